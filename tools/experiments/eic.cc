// `eic`: the effective_io_concurrency article. A bitmap heap scan of
// `major BETWEEN 10 AND 100 OR minor BETWEEN 800 AND 900` (dense: about a tenth
// of the rows, most pages) and a sparse variant (`minor BETWEEN 800 AND 802`,
// pages skipped), cold, at effective_io_concurrency 0..256, for buffered I/O
// with io_method sync (fadvise ahead, as PostgreSQL <= 17) and direct I/O with
// io_uring and with worker; each with index_leaf_readahead off (PostgreSQL's
// behaviour: the bitmap index scans read their leaf pages one at a time) and on; each
// with reads of consecutive pages combined (io_combine_limit) and with 8 kB reads
// (io_combine_limit = 1, PostgreSQL 15's shape, which the article measured). Then the
// dense query in the article's shape (io_uring direct, 8 kB reads, leaf read-ahead on) as
// a Parallel Bitmap Heap Scan with 0, 2 and 4 workers at every eic.
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/plot.h"
#include "tools/experiments/readme_claims.h"
#include "tools/experiments/traced.h"

namespace tp::experiments {

namespace {

const int kEics[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr size_t kNumEics = std::size(kEics);
// Published (SSD): seconds at eic 1, 4, 8, 16, 32, 64, 128, 256.
const std::pair<int, double> kPublished[] = {{1, 46.3},  {4, 29.1},  {8, 23.2},   {16, 22.1},
                                             {32, 20.7}, {64, 20.0}, {128, 19.3}, {256, 19.2}};

struct IoConfig {
  std::string name;
  std::string method;
  std::string direct;
  std::string combine;  // io_combine_limit to SET ("": the session's)
};

// Two groups of three. Combined reads: a run of consecutive heap pages is one read of up
// to io_combine_limit pages, so at eic 1 the dense query already keeps a large read in
// flight. 8 kB reads: every page its own read, as PostgreSQL 15 (the article's) reads
// them, so eic 1 keeps one 8 kB read in flight and the depth is what eic buys.
const IoConfig kConfigs[] = {{"sync buffered (fadvise)", "sync", "off", ""},
                             {"io_uring direct", "io_uring", "on", ""},
                             {"worker direct", "worker", "on", ""},
                             {"sync buffered (fadvise), 8 kB reads", "sync", "off", "1"},
                             {"io_uring direct, 8 kB reads", "io_uring", "on", "1"},
                             {"worker direct, 8 kB reads", "worker", "on", "1"}};
constexpr size_t kNumConfigs = std::size(kConfigs);
constexpr size_t kPerGroup = 3;
const char* const kGroups[] = {"reads combined (io_combine_limit)",
                               "8 kB reads (io_combine_limit = 1, PostgreSQL 15's shape)"};
constexpr size_t kNumGroups = std::size(kGroups);
static_assert(kNumConfigs == kNumGroups * kPerGroup);
const char* const kConfigColours[] = {"#0072b2", "#d55e00", "#009e73"};

struct Variant {
  std::string name;
  std::string sql;
};

const std::string kBase =
    "SELECT * FROM test WHERE major BETWEEN 10 AND 100 OR minor BETWEEN 800 AND ";
const Variant kVariants[] = {{"dense", kBase + "900"}, {"sparse", kBase + "802"}};
constexpr size_t kNumVariants = std::size(kVariants);

// The parallel column: workers of a Parallel Bitmap Heap Scan (0: the serial plan), the
// dense query in the article's shape (kConfigs[kParallelConfig], leaf read-ahead on).
const int kWorkers[] = {0, 2, 4};
constexpr size_t kNumWorkers = std::size(kWorkers);
constexpr size_t kParallelConfig = 4;  // io_uring direct, 8 kB reads

// index_leaf_readahead: off first (PostgreSQL's behaviour), then on (tidepool's default).
const char* const kLeafModes[] = {"off", "on"};
constexpr size_t kNumLeafModes = std::size(kLeafModes);

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

// The Bitmap Heap Scan's read stream: the most reads it had in flight and its limit.
NodeActuals heap_stream(const Timed& t) {
  NodeActuals top;
  parse_node_actuals(t.result, 0, &top);
  return top;
}

double mb_per_s(const Timed& t) {
  return double(t.shared_read) * 8192 / 1e6 / (t.execution_ms / 1000);
}

// A figure of one run: the whole query's or the heap share's time or MB/s.
using Figure = double (*)(const Timed&);
double whole_ms(const Timed& t) {
  return t.execution_ms;
}
double heap_ms(const Timed& t) {
  return heap_part(t).ms;
}
double heap_mb_per_s(const Timed& t) {
  return heap_part(t).mb_s;
}

class Eic : public Experiment {
 public:
  explicit Eic(const LabOptions& opt)
      : Experiment("eic"),
        rows_(opt.rows),
        runs_(kNumLeafModes,
              std::vector<std::vector<std::vector<std::vector<Timed>>>>(
                  kNumConfigs, std::vector<std::vector<std::vector<Timed>>>(
                                   kNumVariants, std::vector<std::vector<Timed>>(kNumEics)))),
        parallel_runs_(kNumWorkers, std::vector<std::vector<Timed>>(kNumEics)) {}

  int steps(const Lab& lab) const override {
    return int((kNumLeafModes * kNumConfigs * kNumVariants + kNumWorkers) * kNumEics *
                   size_t(std::max(1, lab.options().repeat)) +
               1 + 2);
  }

  void set_up(Lab& lab, Context&, Progress& progress) override {
    lab.reset_settings();
    progress.step("table test: " + grouped(rows_) + " rows (major PRIMARY KEY, minor_idx)");
    lab.ensure_table(
        TableSpec{"test",
                  rows_,
                  {"CREATE TABLE test (major int PRIMARY KEY, minor int)",
                   "CREATE INDEX minor_idx ON test (major, minor)",
                   "INSERT INTO test SELECT g, random()*1000 FROM generate_series(1, " +
                       std::to_string(rows_) + ") g",
                   "ANALYZE test"},
                  {"test_pkey", "minor_idx"}});
  }

  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    for (size_t c = 0; c < kNumConfigs; ++c)
      for (size_t l = 0; l < kNumLeafModes; ++l) {
        const IoConfig& io = kConfigs[c];
        // eic 128 and 256 must really keep that many reads in flight: a thread has
        // io_max_concurrency I/O handles (64 by default, PostgreSQL's), which would clamp
        // them. (Set per configuration: each ends with RESET ALL.)
        lab.default_setting("io_max_concurrency", "256");
        lab.sql("SET io_method = " + io.method);
        lab.sql("SET io_direct = " + io.direct);
        lab.sql(std::string("SET index_leaf_readahead = ") + kLeafModes[l]);
        if (!io.combine.empty()) lab.sql("SET io_combine_limit = " + io.combine);
        // A forced bitmap heap scan: the article's query gets a Seq Scan by default, and with
        // the heap all-visible (after a VACUUM) an Index Only Scan of minor_idx could compete.
        for (const char* off : {"enable_seqscan", "enable_indexscan", "enable_indexonlyscan"})
          lab.sql(std::string("SET ") + off + " = off");
        for (size_t v = 0; v < kNumVariants; ++v)
          for (size_t e = 0; e < kNumEics; ++e) measure_point(lab, progress, record, l, c, v, e);
        lab.reset_settings();
      }
    measure_parallel(lab, progress, record);
    // The article's contrast in time: its shape (8 kB reads), one read in flight or 64.
    for (const char* eic : {"1", "64"}) {
      progress.step(std::string("traced dense bitmap heap scan, eic=") + eic);
      traced_.run(lab, std::string("eic ") + eic, {"test", "test_pkey", "minor_idx"},
                  kVariants[0].sql,
                  {{"io_max_concurrency", "256"},
                   {"io_method", "io_uring"},
                   {"io_direct", "on"},
                   {"io_combine_limit", "1"},
                   {"index_leaf_readahead", "on"},
                   {"enable_seqscan", "off"},
                   {"enable_indexscan", "off"},
                   {"enable_indexonlyscan", "off"},
                   {"effective_io_concurrency", eic}});
    }
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  // The dense query as a Parallel Bitmap Heap Scan: workers forced as the AIO article
  // forces them (max_parallel_workers_per_gather and the table's parallel_workers; no
  // setup or tuple cost), so every worker count runs the parallel plan (0: the serial one).
  void measure_parallel(Lab& lab, Progress& progress, Recorder& record) {
    const IoConfig& io = kConfigs[kParallelConfig];
    for (size_t w = 0; w < kNumWorkers; ++w) {
      lab.default_setting("io_max_concurrency", "256");
      lab.sql("SET io_method = " + io.method);
      lab.sql("SET io_direct = " + io.direct);
      lab.sql("SET io_combine_limit = " + io.combine);
      lab.sql("SET index_leaf_readahead = on");
      for (const char* off : {"enable_seqscan", "enable_indexscan", "enable_indexonlyscan"})
        lab.sql(std::string("SET ") + off + " = off");
      lab.sql("SET parallel_setup_cost = 0");
      lab.sql("SET parallel_tuple_cost = 0");
      lab.sql("SET max_parallel_workers_per_gather = " + std::to_string(kWorkers[w]));
      lab.sql(kWorkers[w] == 0 ? std::string("ALTER TABLE test RESET (parallel_workers)")
                               : "ALTER TABLE test SET (parallel_workers = " +
                                     std::to_string(kWorkers[w]) + ")");
      for (size_t e = 0; e < kNumEics; ++e) {
        const std::string eic = std::to_string(kEics[e]);
        lab.sql("SET effective_io_concurrency = " + eic);
        const std::string label =
            io.name + " dense, " + std::to_string(kWorkers[w]) + " workers, eic=" + eic;
        std::vector<Timed>& runs = parallel_runs_[w][e];
        runs = repeated(lab, progress, label, [&] {
          lab.make_cold({"test", "test_pkey", "minor_idx"});
          return explain_analyze(lab, kVariants[0].sql,
                                 {kWorkers[w] == 0 ? "Bitmap Heap Scan" : "Gather", {}},
                                 "eic: " + label);
        });
        for (size_t i = 0; i < runs.size(); ++i) record.add(parallel_row(runs[i], w, e, i));
      }
      lab.sql("ALTER TABLE test RESET (parallel_workers)");
      lab.reset_settings();
    }
  }

  // A parallel run's row: the whole query's figures (the heap share is the serial
  // plan's measure; a Gather's children are the participants').
  Record parallel_row(const Timed& t, size_t w, size_t e, size_t i) const {
    Record r = row(t, kNumLeafModes - 1, kParallelConfig, 0, e, i);
    for (auto& [column, value] : r) {
      if (column == "config") value = kConfigs[kParallelConfig].name + ", parallel";
      if (column == "workers") value = std::to_string(kWorkers[w]);
      if (kWorkers[w] > 0 && (column.rfind("heap_", 0) == 0 || column.rfind("prefetch_", 0) == 0))
        value = "";
    }
    return r;
  }

  void measure_point(Lab& lab, Progress& progress, Recorder& record, size_t l, size_t c, size_t v,
                     size_t e) {
    const std::string eic = std::to_string(kEics[e]);
    lab.sql("SET effective_io_concurrency = " + eic);
    const std::string label = kConfigs[c].name + " leaf read-ahead " + kLeafModes[l] + " " +
                              kVariants[v].name + " eic=" + eic;
    std::vector<Timed>& runs = runs_[l][c][v][e];
    runs = repeated(lab, progress, label, [&] {
      lab.make_cold({"test", "test_pkey", "minor_idx"});
      return explain_analyze(lab, kVariants[v].sql, {"Bitmap Heap Scan", {}}, "eic: " + label);
    });
    for (size_t i = 0; i < runs.size(); ++i) record.add(row(runs[i], l, c, v, e, i));
  }

  Record row(const Timed& t, size_t l, size_t c, size_t v, size_t e, size_t i) const {
    HeapPart heap = heap_part(t);
    NodeActuals stream = heap_stream(t);
    return {{"rows", std::to_string(rows_)},
            {"config", kConfigs[c].name},
            {"leaf_readahead", kLeafModes[l]},
            {"variant", kVariants[v].name},
            {"workers", "0"},
            {"eic", std::to_string(kEics[e])},
            {"prefetch_limit", std::to_string(stream.prefetch_limit)},
            {"prefetch_in_flight_max", std::to_string(stream.prefetch_in_flight_max)},
            {"repeat", std::to_string(i)},
            {"ms", fixed(t.execution_ms, 3)},
            {"shared_hit", std::to_string(t.shared_hit)},
            {"shared_read", std::to_string(t.shared_read)},
            {"mb_per_s", fixed(mb_per_s(t), 1)},
            {"heap_ms", fixed(heap.ms, 3)},
            {"heap_read", std::to_string(heap.read)},
            {"heap_mb_per_s", fixed(heap.mb_s, 1)}};
  }

  // The median over one point's runs of a figure of each run.
  double med(size_t l, size_t c, size_t v, size_t e, Figure figure) const {
    std::vector<double> x;
    for (const Timed& t : runs_[l][c][v][e]) x.push_back(figure(t));
    return x.empty() ? NAN : median(x);
  }
  // The gain from eic 1 to eic 256: time at 1 / time at 256.
  double speedup(size_t l, size_t c, size_t v, Figure ms) const {
    return med(l, c, v, 1, ms) / med(l, c, v, kNumEics - 1, ms);
  }
  std::string table(size_t l, size_t g, Figure ms, Figure mbs, bool published) const;
  std::string headline() const;
  std::vector<Headline> headlines() const;
  std::string device_reach(const DeviceFigures& device) const;
  std::string limits() const;
  std::string parallel_table() const;
  std::string charts(const std::string& out_dir) const;

  const uint64_t rows_;
  // [leaf read-ahead][config][variant][eic]
  std::vector<std::vector<std::vector<std::vector<std::vector<Timed>>>>> runs_;
  std::vector<std::vector<std::vector<Timed>>> parallel_runs_;  // [workers][eic]
  TracedContrast traced_{"eic-dense",
                         "the dense bitmap heap scan, io_uring direct, 8 kB reads "
                         "(io_combine_limit 1), index_leaf_readahead on, eic 1 and 64"};
};

// One table of one leaf read-ahead mode and group: per eic, each config's dense and sparse
// medians.
std::string Eic::table(size_t l, size_t g, Figure ms, Figure mbs, bool published) const {
  std::vector<std::string> header = {"eic"};
  for (size_t c = g * kPerGroup; c < (g + 1) * kPerGroup; ++c)
    for (const auto& v : kVariants) {
      header.push_back(kConfigs[c].name + " " + v.name + " ms");
      header.push_back("MB/s");
    }
  if (published) header.push_back("published s");
  std::vector<std::vector<std::string>> rows;
  for (size_t e = 0; e < kNumEics; ++e) {
    std::vector<std::string> row = {std::to_string(kEics[e])};
    for (size_t c = g * kPerGroup; c < (g + 1) * kPerGroup; ++c)
      for (size_t v = 0; v < kNumVariants; ++v) {
        row.push_back(fixed(med(l, c, v, e, ms), 1));
        row.push_back(fixed(med(l, c, v, e, mbs), 0));
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
}

// The article's shape, the gain from eic 1 to eic 256, for every config, leaf read-ahead
// mode and variant: the whole query's (what the article timed) and the heap share's.
std::string Eic::headline() const {
  std::vector<std::vector<std::string>> rows;
  for (size_t c = 0; c < kNumConfigs; ++c)
    for (size_t l = 0; l < kNumLeafModes; ++l) {
      std::vector<std::string> row = {kConfigs[c].name, kLeafModes[l]};
      for (size_t v = 0; v < kNumVariants; ++v)
        for (Figure f : {whole_ms, heap_ms}) row.push_back(fixed(speedup(l, c, v, f), 2) + "x");
      rows.push_back(row);
    }
  return "Speed-up from eic 1 to eic 256 (time at 1 / time at 256; published, whole query, "
         "dense: " +
         fixed(46.3 / 19.2, 2) + "x):\n\n" +
         markdown_table({"config", "index_leaf_readahead", "dense: whole query",
                         "dense: heap share", "sparse: whole query", "sparse: heap share"},
                        rows, {false, false, true, true, true, true}) +
         "\n";
}

// With 8 kB reads, as PostgreSQL 15 reads (the article's shape), eic 1 -> 256 speeds the
// dense query up in every configuration (tidepool's default leaf read-ahead, on).
std::vector<Headline> Eic::headlines() const {
  std::vector<Headline> out;
  const size_t leaf_on = 1;
  for (size_t c = kPerGroup; c < kNumConfigs; ++c) {
    double readme_figure = NAN, bound = NAN;
    for (const readme::ConfigFigure& f : readme::kEic8kSpeedup)
      if (kConfigs[c].name == f.config) readme_figure = f.figure, bound = f.bound;
    const double x = speedup(leaf_on, c, 0, whole_ms);
    Headline h;
    h.claim = "eic 1 -> 256 speed-up, dense query, " + kConfigs[c].name;
    h.this_run = readme::times(x);
    h.readme = readme::times(readme_figure) + " (holds: at least " + readme::times(bound) +
               "; the article: 2.41x)";
    h.measured = !std::isnan(x);
    h.holds = h.measured && x >= bound;
    out.push_back(h);
  }
  return out;
}

// Why a speed-up is small: the dense query reads nearly every heap page in order, so
// combined reads make eic 1 fast already; what is left is the distance to the device.
std::string Eic::device_reach(const DeviceFigures& device) const {
  if (!device.known || std::isnan(device.seq_direct_mb_s)) return "";
  std::ostringstream md;
  for (size_t c = 0; c < kNumConfigs; ++c)
    for (size_t l = 0; l < kNumLeafModes; ++l) {
      const auto rate = [&](size_t e) {
        return med(l, c, 0, e, [](const Timed& t) {
          return double(t.shared_read) * 8192.0 / 1e6 / (t.execution_ms / 1e3);
        });
      };
      const double at1 = rate(1), at256 = rate(kNumEics - 1);
      if (std::isnan(at1) || std::isnan(at256)) continue;
      md << "- " << kConfigs[c].name << ", leaf read-ahead " << kLeafModes[l]
         << ": the dense query read " << fixed(at1, 0) << " MB/s at eic 1 ("
         << fixed(100.0 * at1 / device.seq_direct_mb_s, 0) << "% of the device) and "
         << fixed(at256, 0) << " MB/s at eic 256 ("
         << fixed(100.0 * at256 / device.seq_direct_mb_s, 0) << "%).\n";
    }
  if (md.str().empty()) return "";
  return "Against the raw device's sequential direct rate in the device section (" +
         fixed(device.seq_direct_mb_s, 0) +
         " MB/s; the dense query reads nearly every heap page in block order: with combined "
         "reads even eic 1 keeps a large read in flight, so their speed-up is bounded by how "
         "close eic 1 already is to the device; with 8 kB reads eic 1 keeps one page in "
         "flight, as PostgreSQL 15 did):\n\n" +
         md.str() + "\n";
}

// Where the Bitmap Heap Scan's stream ran with fewer reads in flight allowed than eic asked
// for (the Prefetch line's "of L", the CSV's prefetch_limit).
std::string Eic::limits() const {
  std::string out;
  for (size_t c = 0; c < kNumConfigs; ++c) {
    std::string capped;
    int64_t limit = -1;
    for (size_t e = 0; e < kNumEics; ++e) {
      int64_t most = -1;
      for (size_t l = 0; l < kNumLeafModes; ++l)
        for (size_t v = 0; v < kNumVariants; ++v)
          for (const Timed& t : runs_[l][c][v][e])
            most = std::max(most, heap_stream(t).prefetch_limit);
      if (kEics[e] > 0 && most >= 0 && most < kEics[e]) {
        capped += (capped.empty() ? "" : ", ") + std::to_string(kEics[e]);
        limit = most;
      }
    }
    if (!capped.empty())
      out += "- " + kConfigs[c].name + ": at eic " + capped + " the stream allowed at most " +
             std::to_string(limit) +
             " reads in flight (clamped below eic: the thread's I/O handles or its pin budget); "
             "those points measure that limit, "
             "not the eic asked for.\n";
  }
  if (out.empty())
    return "The Bitmap Heap Scan's stream allowed as many reads in flight as eic asked for at "
           "every point (or printed no limit: the CSV's prefetch_limit is -1 then).\n\n";
  return "Reads in flight limited below eic (the Prefetch line's \"of L\", the CSV's "
         "prefetch_limit):\n\n" +
         out + "\n";
}

// The parallel column: the dense query's time per eic with 0, 2 and 4 workers.
std::string Eic::parallel_table() const {
  auto ms = [&](size_t w, size_t e) {
    std::vector<double> x;
    for (const Timed& t : parallel_runs_[w][e]) x.push_back(t.execution_ms);
    return x.empty() ? NAN : median(x);
  };
  std::vector<std::string> header = {"eic"};
  for (int w : kWorkers) header.push_back(std::to_string(w) + " workers ms");
  for (size_t w = 1; w < kNumWorkers; ++w) header.push_back(std::to_string(kWorkers[w]) + " vs 0");
  std::vector<std::vector<std::string>> rows;
  for (size_t e = 0; e < kNumEics; ++e) {
    std::vector<std::string> row = {std::to_string(kEics[e])};
    for (size_t w = 0; w < kNumWorkers; ++w) row.push_back(fixed(ms(w, e), 1));
    for (size_t w = 1; w < kNumWorkers; ++w) row.push_back(fixed(ms(0, e) / ms(w, e), 2) + "x");
    rows.push_back(row);
  }
  return "Parallel workers: the dense query as a Parallel Bitmap Heap Scan (" +
         kConfigs[kParallelConfig].name +
         ", index_leaf_readahead on; workers forced with max_parallel_workers_per_gather and the "
         "table's parallel_workers, no parallel setup or tuple cost). One participant builds "
         "the bitmap; all of them read the heap pages through one shared iteration, "
         "effective_io_concurrency split between their streams (PostgreSQL 15's shared "
         "prefetch target):\n\n" +
         markdown_table(header, rows, std::vector<bool>(header.size(), true)) + "\n";
}

std::string Eic::charts(const std::string& out_dir) const {
  std::vector<std::string> labels;
  for (int e : kEics) labels.push_back(std::to_string(e));
  std::string md;
  const size_t on = kNumLeafModes - 1;
  for (size_t g = 0; g < kNumGroups; ++g)
    for (bool mbps : {false, true}) {
      Chart chart;
      chart.title = std::string(mbps ? "Bitmap heap scan: heap pages' throughput"
                                     : "Bitmap heap scan time (dense)") +
                    " vs effective_io_concurrency, " + kGroups[g];
      chart.xlabel = "effective_io_concurrency";
      chart.ylabel = mbps ? "heap read throughput (MB/s, heap share, leaf read-ahead on)"
                          : "execution time (ms, log scale, whole query)";
      chart.log_y = !mbps;
      chart.xtic_labels = labels;
      chart.key_position = "below";
      for (size_t c = g * kPerGroup; c < (g + 1) * kPerGroup; ++c) {
        // Time: the dense query with leaf read-ahead off (dashed) and on; throughput: the heap
        // share (which leaf read-ahead does not read) dense and sparse (dashed).
        for (size_t k = 0; k < 2; ++k) {
          const size_t l = mbps ? on : k;  // time: leaf read-ahead off (dashed), on
          const size_t v = mbps ? k : 0;   // throughput: dense, sparse (dashed)
          const std::string what =
              mbps ? kVariants[v].name : std::string("leaf read-ahead ") + kLeafModes[l];
          Series s(kConfigs[c].name + ", " + what, mbps ? v == 1 : l == 0);
          s.colour =
              kConfigColours[c % kPerGroup];  // one colour per configuration, dashed for its pair
          for (size_t e = 0; e < kNumEics; ++e)
            s.points.emplace_back(double(e), med(l, c, v, e, mbps ? heap_mb_per_s : whole_ms));
          chart.series.push_back(s);
        }
      }
      const std::string file =
          std::string(mbps ? "eic_mbps" : "eic_time") + (g == 0 ? "" : "_8k") + ".png";
      md += chart_markdown(chart, out_dir, file, chart.title);
    }
  return md;
}

std::string Eic::report(Lab& lab, Context& ctx, const Outcome& outcome) {
  write_headlines(lab.options().out_dir, name(), headlines(), outcome.load);
  std::ostringstream md;
  md << "## eic: bitmap heap scan vs effective_io_concurrency\n\n" << section_status(outcome);
  md << "`CREATE TABLE test (major int PRIMARY KEY, minor int)`, `CREATE INDEX minor_idx ON test "
        "(major, minor)`, "
     << grouped(rows_) << " rows `(g, random()*1000)`. Dense: `" << kVariants[0].sql
     << "`; sparse: `... minor BETWEEN "
        "800 AND 802`. A forced bitmap heap scan (enable_seqscan, enable_indexscan and "
        "enable_indexonlyscan off: PostgreSQL 15 and tidepool plan a Seq Scan at the default "
        "settings, and an Index Only Scan may take the bitmap scan's place on a vacuumed "
        "table), cold, times in ms (medians), MB/s = pages read "
        "* 8 kB / time. Every point runs with index_leaf_readahead off (as PostgreSQL: the "
        "bitmap index scans read their leaf pages one at a time) and on.\n\n";
  if (outcome.runs > 0) {
    md << "<!-- excerpt -->\n" << headline() << device_reach(ctx.device) << "<!-- /excerpt -->\n\n";
    md << limits();
    for (size_t g = 0; g < kNumGroups; ++g)
      for (size_t l = 0; l < kNumLeafModes; ++l)
        md << "Whole query, index_leaf_readahead = " << kLeafModes[l] << ", " << kGroups[g]
           << ":\n\n"
           << table(l, g, whole_ms, mb_per_s, true) << "\n";
    md << "The Bitmap Heap Scan's own share (its time and pages minus those of the bitmap index "
          "scans below it). Without leaf read-ahead, under direct I/O the index leaf pages are "
          "read one at a time, and at this shape (an index of (major, minor) scanned whole for "
          "the minor condition) they take most of the query; this share is where "
          "effective_io_concurrency acts:\n\n";
    for (size_t g = 0; g < kNumGroups; ++g)
      for (size_t l = 0; l < kNumLeafModes; ++l)
        md << "Heap share, index_leaf_readahead = " << kLeafModes[l] << ", " << kGroups[g]
           << ":\n\n"
           << table(l, g, heap_ms, heap_mb_per_s, false) << "\n";
    md << parallel_table();
    md << device_sentence(ctx.device) << "\n\n";
    md << charts(lab.options().out_dir);
  }
  md << traced_.markdown(lab.options().out_dir);
  md << "Published (SSD, PostgreSQL <= 17, buffered with fadvise): eic 1 46.3 s (~170 MB/s), 4 "
        "29.1 s, 8 23.2 s, 16 22.1 s, 32 20.7 s, 64 20.0 s, 128 19.3 s, 256 19.2 s (~494 "
        "MB/s).\n\n";
  return md.str();
}

}  // namespace

Outcome run_eic(Lab& lab, Context& ctx) {
  Eic experiment(lab.options());
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
