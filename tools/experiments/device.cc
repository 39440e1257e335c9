// `device`: the raw device through the aio layer, no buffer pool: sequential
// 128 kB reads at depth 16 and random 8 kB reads at depths 1..64, direct and
// buffered, per I/O method. The other experiments quote these figures.
#include <map>
#include <sstream>

#include "aio/device_probe.h"
#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

namespace {

using ProbeRows = std::vector<const aio::DeviceProbeRow*>;

Record probe_record(const aio::DeviceProbeRow& r, const aio::DeviceProbeConfig& config) {
  return {{"method", r.method},
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
}

std::vector<double> probe_values(const ProbeRows& g, double aio::DeviceProbeRow::*field) {
  std::vector<double> v;
  for (const auto* r : g) v.push_back(r->*field);
  return v;
}

class Device : public Experiment {
 public:
  explicit Device(const LabOptions& opt) : Experiment("device") {
    config_.directory = opt.data_dir;
    config_.file_size_mb = opt.device_file_mb;
    config_.seconds_per_run = opt.device_seconds;
    config_.repeats = std::max(1, opt.repeat);
  }

  int steps(const Lab&) const override {
    return int(config_.methods.size() * config_.direct_modes.size() *
               (1 + config_.random_depths.size()) * size_t(config_.repeats));
  }

  void set_up(Lab& lab, Context&, Progress&) override {
    lab.close_session();  // the probe needs the thread free of the session's I/O system
    if (lab.options().progress)
      std::fprintf(stderr, "[device] preparing a %llu MB probe file in %s\n",
                   static_cast<unsigned long long>(config_.file_size_mb),
                   lab.options().data_dir.c_str());
  }

  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    aio::run_device_probe(
        config_,
        [&](const aio::DeviceProbeRow& r) {
          progress.step(r.method + (r.direct ? " direct " : " buffered ") + r.pattern + " depth " +
                        std::to_string(r.depth) + ": " + fixed(r.mb_per_s, 0) + " MB/s, " +
                        fixed(r.iops, 0) + " IOPS");
          if (r.failed_ios != 0)
            throw Error("device probe: " + std::to_string(r.failed_ios) + " of " +
                        std::to_string(r.ios) + " reads returned wrong data (" + r.method + ")");
          record.add_without_settings(probe_record(r, config_));
          rows_.push_back(r);
          lab.check_stop();
        },
        [&](const std::string& note) { notes_.push_back(note); });
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  void group_rows();
  std::string table() const;
  Chart chart() const;

  aio::DeviceProbeConfig config_;
  std::vector<aio::DeviceProbeRow> rows_;
  std::vector<std::string> notes_;
  // The runs of each (method, direct, pattern, depth), in first-measured order.
  std::map<std::string, ProbeRows> groups_;
  std::vector<std::string> order_;
};

void Device::group_rows() {
  for (const auto& r : rows_) {
    std::string key = r.method + "|" + (r.direct ? "direct" : "buffered") + "|" + r.pattern + "|" +
                      std::to_string(r.depth);
    if (!groups_.count(key)) order_.push_back(key);
    groups_[key].push_back(&r);
  }
}

std::string Device::table() const {
  std::vector<std::vector<std::string>> table;
  for (const std::string& key : order_) {
    const ProbeRows& g = groups_.at(key);
    const auto* r = g.front();
    std::vector<double> iops = probe_values(g, &aio::DeviceProbeRow::iops);
    table.push_back({r->method, r->direct ? "direct" : "buffered",
                     r->pattern == "seq" ? "seq 128 kB" : "random 8 kB", std::to_string(r->depth),
                     fixed(median(probe_values(g, &aio::DeviceProbeRow::mb_per_s)), 0),
                     fixed(median(iops), 0), fixed(spread(iops), 0),
                     fixed(median(probe_values(g, &aio::DeviceProbeRow::avg_latency_us)), 1)});
  }
  return markdown_table(
      {"method", "mode", "pattern", "depth", "MB/s", "IOPS", "IOPS spread", "latency us"}, table,
      {false, false, false, true, true, true, true, true});
}

Chart Device::chart() const {
  Chart chart;
  chart.title = "Random 8 kB reads by queue depth (aio layer, no pool)";
  chart.xlabel = "queue depth (log scale)";
  chart.ylabel = "reads per second (IOPS)";
  chart.log_x = true;
  chart.key_position = "top left";
  for (int depth : config_.random_depths) chart.xtics.push_back(depth);
  std::map<std::string, Series> series;
  std::vector<std::string> series_order;
  for (const std::string& key : order_) {
    const ProbeRows& g = groups_.at(key);
    const auto* r = g.front();
    if (r->pattern != "random") continue;
    std::string name = r->method + (r->direct ? " direct" : " buffered");
    if (!series.count(name)) series_order.push_back(name);
    Series& s = series[name];
    s.title = name;
    s.dashed = !r->direct;
    s.points.emplace_back(r->depth, median(probe_values(g, &aio::DeviceProbeRow::iops)));
  }
  for (const auto& n : series_order) chart.series.push_back(series[n]);
  return chart;
}

std::string Device::report(Lab& lab, Context& ctx, const Outcome& outcome) {
  const LabOptions& opt = lab.options();
  ctx.device = DeviceFigures{};
  load_device_figures(opt.out_dir, &ctx.device);
  group_rows();
  std::ostringstream md;
  md << "## device: the raw disk through the aio layer\n\n" << section_status(outcome);
  md << "Each measurement runs " << fixed(config_.seconds_per_run, 2) << " s on a "
     << config_.file_size_mb
     << " MB file (every block holds its own number, so each read is checked); buffered runs "
        "drop the file from the page cache first.\n\n";
  for (const auto& n : notes_) md << "- " << n << "\n";
  if (order_.empty()) return md.str();
  md << table();
  // Only this run's figures: the device is whatever this machine has today.
  md << "\n<!-- excerpt -->\n" << device_sentence(ctx.device) << "\n<!-- /excerpt -->\n\n";
  md << chart_markdown(chart(), opt.out_dir, "device.png", "random reads by depth");
  return md.str();
}

}  // namespace

Outcome run_device(Lab& lab, Context& ctx) {
  Device experiment(lab.options());
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
