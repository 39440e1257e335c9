// `eic`: the effective_io_concurrency article. A bitmap heap scan of
// `major BETWEEN 10 AND 100 OR minor BETWEEN 800 AND 900` (dense: about a tenth
// of the rows, most pages) and a sparse variant (`minor BETWEEN 800 AND 802`,
// pages skipped), cold, at effective_io_concurrency 0..256, for buffered I/O
// with io_method sync (fadvise ahead, as PostgreSQL <= 17) and direct I/O with
// io_uring and with worker.
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

namespace {

const int kEics[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
// Published (SSD): seconds at eic 1, 4, 8, 16, 32, 64, 128, 256.
const std::pair<int, double> kPublished[] = {{1, 46.3},  {4, 29.1},  {8, 23.2},   {16, 22.1},
                                             {32, 20.7}, {64, 20.0}, {128, 19.3}, {256, 19.2}};

struct IoConfig {
  std::string name;
  std::string method;
  std::string direct;
};

const IoConfig kConfigs[] = {{"sync buffered (fadvise)", "sync", "off"},
                             {"io_uring direct", "io_uring", "on"},
                             {"worker direct", "worker", "on"}};

struct Variant {
  std::string name;
  std::string sql;
};

// The Bitmap Heap Scan's own share: its figures minus those of the BitmapOr below it. With
// direct I/O the index leaf pages are read one at a time (no readahead, as in PostgreSQL), and
// at this table's shape they take most of the query, hiding what effective_io_concurrency
// does to the heap pages; this share shows it.
struct HeapPart {
  double ms = NAN;
  uint64_t read = 0;
  double mb_s = NAN;
};

HeapPart heap_part(const Timed& t) {
  NodeActuals top, bitmap;
  if (!parse_node_actuals(t.result, 0, &top) || !parse_node_actuals(t.result, 1, &bitmap))
    return {};
  HeapPart h;
  h.ms = top.total_ms - bitmap.total_ms;
  h.read = top.shared_read - bitmap.shared_read;
  if (h.ms > 0) h.mb_s = double(h.read) * 8192 / 1e6 / (h.ms / 1000);
  return h;
}

double mb_per_s(const Timed& t) {
  return double(t.shared_read) * 8192 / 1e6 / (t.execution_ms / 1000);
}

}  // namespace

Outcome run_eic(Lab& lab, Context& ctx) {
  Outcome outcome("eic");
  const LabOptions& opt = lab.options();
  const uint64_t n = opt.rows;
  const std::string base =
      "SELECT * FROM test WHERE major BETWEEN 10 AND 100 OR minor BETWEEN 800 AND ";
  const Variant variants[] = {{"dense", base + "900"}, {"sparse", base + "802"}};
  const size_t ne = std::size(kEics);
  // [config][variant][eic] -> runs
  std::vector<std::vector<std::vector<std::vector<Timed>>>> runs(
      std::size(kConfigs),
      std::vector<std::vector<std::vector<Timed>>>(2, std::vector<std::vector<Timed>>(ne)));
  CsvFile csv(opt.out_dir + "/eic.csv");
  Progress progress("eic", int(std::size(kConfigs) * 2 * ne * size_t(std::max(1, opt.repeat)) + 1),
                    opt);
  measure(outcome, [&] {
    lab.reset_settings();
    progress.step("table test: " + grouped(n) + " rows (major PRIMARY KEY, minor_idx)");
    lab.ensure_table(
        TableSpec{"test",
                  n,
                  {"CREATE TABLE test (major int PRIMARY KEY, minor int)",
                   "CREATE INDEX minor_idx ON test (major, minor)",
                   "INSERT INTO test SELECT g, random()*1000 FROM generate_series(1, " +
                       std::to_string(n) + ") g",
                   "ANALYZE test"},
                  {"test_pkey", "minor_idx"}});
    for (size_t c = 0; c < std::size(kConfigs); ++c) {
      const IoConfig& io = kConfigs[c];
      lab.sql("SET io_method = " + io.method);
      lab.sql("SET io_direct = " + io.direct);
      lab.sql("SET enable_seqscan = off");
      lab.sql("SET enable_indexscan = off");
      set_if_known(lab, "enable_indexonlyscan", "off", true);
      for (size_t v = 0; v < 2; ++v) {
        for (size_t e = 0; e < ne; ++e) {
          lab.sql("SET effective_io_concurrency = " + std::to_string(kEics[e]));
          runs[c][v][e] =
              repeated(lab, progress,
                       io.name + " " + variants[v].name + " eic=" + std::to_string(kEics[e]), [&] {
                         lab.make_cold({"test", "test_pkey", "minor_idx"});
                         Timed t = lab.timed("EXPLAIN (ANALYZE, BUFFERS) " + variants[v].sql);
                         std::string node;
                         double cost = 0;
                         if (!parse_top_plan(t.result, &node, &cost) || node != "Bitmap Heap Scan")
                           throw Error("eic: expected a Bitmap Heap Scan, the planner chose \"" +
                                       node + "\"");
                         return t;
                       });
          for (size_t i = 0; i < runs[c][v][e].size(); ++i) {
            const Timed& t = runs[c][v][e][i];
            HeapPart heap = heap_part(t);
            Record rec = {{"rows", std::to_string(n)},
                          {"config", io.name},
                          {"variant", variants[v].name},
                          {"eic", std::to_string(kEics[e])},
                          {"repeat", std::to_string(i)},
                          {"ms", fixed(t.execution_ms, 3)},
                          {"shared_hit", std::to_string(t.shared_hit)},
                          {"shared_read", std::to_string(t.shared_read)},
                          {"mb_per_s", fixed(mb_per_s(t), 1)},
                          {"heap_ms", fixed(heap.ms, 3)},
                          {"heap_read", std::to_string(heap.read)},
                          {"heap_mb_per_s", fixed(heap.mb_s, 1)}};
            add_run(csv, rec, lab, ctx, outcome);
          }
        }
      }
      lab.reset_settings();
    }
  });

  // The median over one point's runs of a figure of each run.
  auto med = [&](size_t c, size_t v, size_t e, auto figure) {
    std::vector<double> x;
    for (const Timed& t : runs[c][v][e]) x.push_back(figure(t));
    return x.empty() ? NAN : median(x);
  };
  auto med_ms = [&](size_t c, size_t v, size_t e) {
    return med(c, v, e, [](const Timed& t) { return t.execution_ms; });
  };
  auto med_mbs = [&](size_t c, size_t v, size_t e) { return med(c, v, e, mb_per_s); };
  auto med_heap_ms = [&](size_t c, size_t v, size_t e) {
    return med(c, v, e, [](const Timed& t) { return heap_part(t).ms; });
  };
  auto med_heap_mbs = [&](size_t c, size_t v, size_t e) {
    return med(c, v, e, [](const Timed& t) { return heap_part(t).mb_s; });
  };
  std::ostringstream md;
  md << "## eic: bitmap heap scan vs effective_io_concurrency\n\n" << section_status(outcome);
  md << "`CREATE TABLE test (major int PRIMARY KEY, minor int)`, `CREATE INDEX minor_idx ON test "
        "(major, minor)`, "
     << grouped(n) << " rows `(g, random()*1000)`. Dense: `" << variants[0].sql
     << "`; sparse: `... minor BETWEEN "
        "800 AND 802`. Forced bitmap heap scan, cold, times in ms (medians), MB/s = pages read "
        "* 8 kB / time.\n\n";
  if (outcome.runs > 0) {
    // One table: per eic, each config's dense and sparse medians (ms and MB/s).
    auto table = [&](auto ms, auto mbs, bool published) {
      std::vector<std::string> header = {"eic"};
      for (const auto& io : kConfigs)
        for (const auto& v : variants) {
          header.push_back(io.name + " " + v.name + " ms");
          header.push_back("MB/s");
        }
      if (published) header.push_back("published s");
      std::vector<std::vector<std::string>> rows;
      for (size_t e = 0; e < ne; ++e) {
        std::vector<std::string> row = {std::to_string(kEics[e])};
        for (size_t c = 0; c < std::size(kConfigs); ++c)
          for (size_t v = 0; v < 2; ++v) {
            row.push_back(fixed(ms(c, v, e), 1));
            row.push_back(fixed(mbs(c, v, e), 0));
          }
        if (published) {
          std::string pub = "-";
          for (auto [eic, sec] : kPublished)
            if (eic == kEics[e]) pub = fixed(sec, 1);
          row.push_back(pub);
        }
        rows.push_back(row);
      }
      return markdown_table(header, rows, std::vector<bool>(header.size(), true));
    };
    // The article's shape: the gain from eic 1 to eic 256 (dense).
    auto speedups = [&](auto ms) {
      std::string out;
      for (size_t c = 0; c < std::size(kConfigs); ++c)
        out += std::string(c ? ", " : ": ") + kConfigs[c].name + " " +
               fixed(ms(c, 0, 1) / ms(c, 0, ne - 1), 2) + "x";
      return out;
    };
    md << "Whole query:\n\n" << table(med_ms, med_mbs, true) << "\n";
    md << "The Bitmap Heap Scan's own share (its time and pages minus those of the bitmap index "
          "scans below it). With direct I/O the index leaf pages are read one at a time, as in "
          "PostgreSQL, and at this shape (an index of (major, minor) scanned whole for the minor "
          "condition) they take most of the query; this share is where "
          "effective_io_concurrency acts:\n\n"
       << table(med_heap_ms, med_heap_mbs, false) << "\n";
    md << "Speed-up from eic 1 to eic 256 (dense): published " << fixed(46.3 / 19.2, 2)
       << "x. Whole query" << speedups(med_ms) << "; heap share" << speedups(med_heap_ms);
    md << ".\n\n" << device_sentence(ctx.device) << "\n\n";
    try {
      std::vector<std::string> labels;
      for (int e : kEics) labels.push_back(std::to_string(e));
      for (bool mbps : {false, true}) {
        Chart chart;
        chart.title = mbps ? "Bitmap heap scan: heap pages' throughput vs effective_io_concurrency"
                           : "Bitmap heap scan time vs effective_io_concurrency";
        chart.xlabel = "effective_io_concurrency";
        chart.ylabel = mbps ? "heap read throughput (MB/s, heap share of the scan)"
                            : "execution time (ms, log scale)";
        chart.log_y = !mbps;
        chart.xtic_labels = labels;
        chart.key_position = "below";
        for (size_t c = 0; c < std::size(kConfigs); ++c)
          for (size_t v = 0; v < 2; ++v) {
            Series s(kConfigs[c].name + ", " + variants[v].name, false, v == 1);
            for (size_t e = 0; e < ne; ++e)
              s.points.emplace_back(double(e), mbps ? med_heap_mbs(c, v, e) : med_ms(c, v, e));
            chart.series.push_back(s);
          }
        const std::string file = mbps ? "eic_mbps.png" : "eic_time.png";
        render_chart(chart, opt.out_dir + "/" + file);
        md << "![" << chart.title << "](" << file << ")\n\n";
      }
    } catch (const Error& e) {
      md << "> Chart not drawn: " << e.what() << "\n\n";
    }
  }
  md << "Published (SSD, PostgreSQL <= 17, buffered with fadvise): eic 1 46.3 s (~170 MB/s), 4 "
        "29.1 s, 8 23.2 s, 16 22.1 s, 32 20.7 s, 64 20.0 s, 128 19.3 s, 256 19.2 s (~494 "
        "MB/s).\n\n";
  write_section(opt, "eic", md.str());
  return outcome;
}

}  // namespace tp::experiments
