// `device`: the raw device through the aio layer, no buffer pool: sequential
// 128 kB reads at depth 16 and random 8 kB reads at depths 1..64, direct and
// buffered, per I/O method. The other experiments quote these figures.
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

Outcome run_device(Lab& lab, Context& ctx) {
  Outcome outcome("device");
  const LabOptions& opt = lab.options();
  lab.close_session();  // the probe needs the thread free of the session's I/O system

  aio::DeviceProbeConfig config;
  config.directory = opt.data_dir;
  config.file_size_mb = opt.device_file_mb;
  config.seconds_per_run = opt.device_seconds;
  config.repeats = std::max(1, opt.repeat);
  const int total = int(config.methods.size() * config.direct_modes.size() *
                        (1 + config.random_depths.size()) * size_t(config.repeats));
  Progress progress("device", total, opt);
  CsvFile csv(opt.out_dir + "/device.csv");
  std::vector<aio::DeviceProbeRow> rows;
  std::vector<std::string> notes;
  if (opt.progress)
    std::fprintf(stderr, "[device] preparing a %llu MB probe file in %s\n",
                 static_cast<unsigned long long>(config.file_size_mb), opt.data_dir.c_str());
  measure(outcome, [&] {
    aio::run_device_probe(
        config,
        [&](const aio::DeviceProbeRow& r) {
          progress.step(r.method + (r.direct ? " direct " : " buffered ") + r.pattern + " depth " +
                        std::to_string(r.depth) + ": " + fixed(r.mb_per_s, 0) + " MB/s, " +
                        fixed(r.iops, 0) + " IOPS");
          if (r.failed_ios != 0)
            throw Error("device probe: " + std::to_string(r.failed_ios) + " of " +
                        std::to_string(r.ios) + " reads returned wrong data (" + r.method + ")");
          Record rec = {{"method", r.method},
                        {"direct", r.direct ? "1" : "0"},
                        {"pattern", r.pattern},
                        {"depth", std::to_string(r.depth)},
                        {"block_size_bytes", std::to_string(r.block_size_bytes)},
                        {"repeat", std::to_string(r.repeat)},
                        {"ios", std::to_string(r.ios)},
                        {"seconds", fixed(r.seconds, 3)},
                        {"mb_per_s", fixed(r.mb_per_s, 1)},
                        {"iops", fixed(r.iops, 0)},
                        {"avg_latency_us", fixed(r.avg_latency_us, 1)},
                        {"cpu_us_per_io", fixed(r.cpu_us_per_io, 2)},
                        {"file_mb", std::to_string(config.file_size_mb)},
                        {"seconds_per_run", fixed(config.seconds_per_run, 2)}};
          add_environment(rec, ctx.env);
          csv.add(rec);
          rows.push_back(r);
          ++outcome.runs;
          lab.check_stop();
        },
        [&](const std::string& note) { notes.push_back(note); });
  });

  ctx.device = DeviceFigures{};
  load_device_figures(opt.out_dir, &ctx.device);

  // Medians per (method, direct, pattern, depth).
  std::map<std::string, std::vector<const aio::DeviceProbeRow*>> groups;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    std::string key = r.method + "|" + (r.direct ? "direct" : "buffered") + "|" + r.pattern + "|" +
                      std::to_string(r.depth);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<std::vector<std::string>> table;
  for (const std::string& key : order) {
    const auto& g = groups[key];
    std::vector<double> mb, iops, lat;
    for (const auto* r : g) {
      mb.push_back(r->mb_per_s);
      iops.push_back(r->iops);
      lat.push_back(r->avg_latency_us);
    }
    const auto* r = g.front();
    table.push_back({r->method, r->direct ? "direct" : "buffered",
                     r->pattern == "seq" ? "seq 128 kB" : "random 8 kB", std::to_string(r->depth),
                     fixed(median(mb), 0), fixed(median(iops), 0), fixed(spread(iops), 0),
                     fixed(median(lat), 1)});
  }

  std::ostringstream md;
  md << "## device: the raw disk through the aio layer\n\n" << section_status(outcome);
  md << "Each measurement runs " << fixed(config.seconds_per_run, 2) << " s on a "
     << config.file_size_mb
     << " MB file (every block holds its own number, so each read is checked); buffered runs "
        "drop the file from the page cache first.\n\n";
  for (const auto& n : notes) md << "- " << n << "\n";
  if (!table.empty()) {
    md << markdown_table(
        {"method", "mode", "pattern", "depth", "MB/s", "IOPS", "IOPS spread", "latency us"}, table,
        {false, false, false, true, true, true, true, true});
    md << "\n" << device_sentence(ctx.device) << "\n\n";
    md << "Published for this disk (fio, io_uring, O_DIRECT): sequential 128 kB at depth 16 "
          "1.6-1.77 GB/s; random 8 kB depth 1 ~12.5 k IOPS (~57 us), depth 4 ~27-30 k, depth 16 "
          "~44-54 k, depth 32/64 ~48-56 k; buffered sequential ~400-450 MB/s, buffered random "
          "~80-100 us.\n\n";

    Chart chart;
    chart.title = "Random 8 kB reads by queue depth (aio layer, no pool)";
    chart.xlabel = "queue depth (log scale)";
    chart.ylabel = "reads per second (IOPS)";
    chart.log_x = true;
    chart.key_position = "top left";
    for (int depth : config.random_depths) chart.xtics.push_back(depth);
    std::map<std::string, Series> series;
    std::vector<std::string> series_order;
    for (const std::string& key : order) {
      const auto& g = groups[key];
      const auto* r = g.front();
      if (r->pattern != "random") continue;
      std::string name = r->method + (r->direct ? " direct" : " buffered");
      if (!series.count(name)) series_order.push_back(name);
      Series& s = series[name];
      s.title = name;
      s.dashed = !r->direct;
      std::vector<double> iops;
      for (const auto* x : g) iops.push_back(x->iops);
      s.points.emplace_back(r->depth, median(iops));
    }
    for (const auto& n : series_order) chart.series.push_back(series[n]);
    try {
      render_chart(chart, opt.out_dir + "/device.png");
      md << "![random reads by depth](device.png)\n\n";
    } catch (const Error& e) {
      md << "> Chart not drawn: " << e.what() << "\n\n";
    }
  }
  write_section(opt, "device", md.str());
  return outcome;
}

}  // namespace tp::experiments
