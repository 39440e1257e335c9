// `policies`: every registered prefetch policy (bufmgr/prefetch_policy.h, chosen with
// SET prefetch_policy) on the same cold workloads: shuffled and correlated full index
// scans, the correlated one with every other heap page already in the pool, `ORDER BY
// a LIMIT n` at three sizes, a bitmap heap scan, and a parallel seq scan (leader and one
// worker: two streams at once). Per policy and workload: the median time, the blocks
// read, the stream's reads, waits and wasted reads (read ahead, never returned), and per
// workload the fastest policy.
#include <cmath>
#include <cstring>
#include <sstream>

#include "bufmgr/prefetch_policy.h"
#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/rpc_measure.h"

namespace tp::experiments {

namespace {

// What the Prefetch line of the plan said (summed over its streams' nodes).
struct StreamFigures {
  uint64_t ios = 0;
  uint64_t waits = 0;
  uint64_t wasted = 0;
};

// Every "Prefetch:" line of an EXPLAIN ANALYZE (one per node that read through a stream).
StreamFigures parse_stream_figures(const ResultSet& explain) {
  StreamFigures f;
  for (const auto& row : explain.rows) {
    if (row.empty() || row[0].find("Prefetch: ") == std::string::npos) continue;
    f.ios += explain_field(row[0], "I/Os=");
    f.waits += explain_field(row[0], "waits=");
    f.wasted += explain_field(row[0], "wasted=");
  }
  return f;
}

// One measured run.
struct Run {
  double ms = 0;
  uint64_t shared_read = 0;
  StreamFigures stream;
};

double median_field(const std::vector<Run>& runs, double (*get)(const Run&)) {
  std::vector<double> v;
  for (const Run& r : runs) v.push_back(get(r));
  return runs.empty() ? NAN : median(v);
}

std::vector<double> values_of_ms(const std::vector<Run>& runs) {
  std::vector<double> v;
  for (const Run& r : runs) v.push_back(r.ms);
  return v;
}

enum class Kind {
  kShuffledFull,
  kSmallPool,
  kCorrelatedFull,
  kPartlyCached,
  kLimit,
  kBitmap,
  kParallel
};

struct Workload {
  std::string name;
  Kind kind;
  int limit = 0;
};

std::vector<Workload> workloads() {
  return {{"shuffled full index scan", Kind::kShuffledFull},
          {"shuffled, table 4x the pool", Kind::kSmallPool},
          {"correlated full index scan", Kind::kCorrelatedFull},
          {"half cached (every other page)", Kind::kPartlyCached},
          {"LIMIT 10", Kind::kLimit, 10},
          {"LIMIT 100", Kind::kLimit, 100},
          {"LIMIT 1000", Kind::kLimit, 1000},
          {"bitmap heap scan (2%)", Kind::kBitmap},
          {"parallel seq scan, 2 streams", Kind::kParallel}};
}

// The correlated table: heap order = index order; b marks every other heap page (22 rows
// a page at fillfactor 10), so `WHERE b = 0` reads exactly the even pages.
TableSpec correlated_table(uint64_t rows) {
  const std::string n = std::to_string(rows);
  return TableSpec{
      "polc",
      rows,
      {"CREATE TABLE polc (a int, b int) WITH (fillfactor=10)",
       "INSERT INTO polc SELECT g, ((g - 1) / 22) % 2 FROM generate_series(1, " + n + ") g",
       "CREATE INDEX polc_a_idx ON polc (a)", "CREATE INDEX polc_b_idx ON polc (b)",
       "ANALYZE polc"},
      {"polc_a_idx", "polc_b_idx"}};
}

class Policies : public Experiment {
 public:
  explicit Policies(const Lab& lab)
      : Experiment("policies"),
        rows_(lab.options().prefetch_rows),
        // index-prefetch's shuffled table (rpc's when the scales agree).
        table_(rows_ == lab.options().rows ? "t" : "tp"),
        policies_(bufmgr::prefetch_policy_names()),
        workloads_(workloads()),
        runs_(workloads_.size(), std::vector<std::vector<Run>>(policies_.size())) {}

  int steps(const Lab& lab) const override {
    return int(workloads_.size() * policies_.size()) * std::max(1, lab.options().repeat) + 2;
  }

  void set_up(Lab& lab, Context&, Progress& progress) override {
    lab.reset_settings();
    lab.default_setting("io_direct", "on");  // as index-prefetch: the device, not the page cache
    progress.step("table " + table_ + ": " + grouped(rows_) + " rows like the rpc table");
    lab.ensure_table(rpc_table(rows_, table_));
    progress.step("table polc: " + grouped(rows_) + " rows in index order");
    lab.ensure_table(correlated_table(rows_));
  }

  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    lab.sql("SET enable_seqscan = off");
    lab.sql("SET index_prefetch = on");
    for (size_t w = 0; w < workloads_.size(); ++w) {
      // As rpc: the pool a quarter of the table, so most of the scan's heap visits read.
      if (workloads_[w].kind == Kind::kSmallPool)
        fit_ = fit_pool(lab, table_, lab.options().min_pool_blocks);
      for (size_t p = 0; p < policies_.size(); ++p) {
        lab.sql("SET prefetch_policy = " + policies_[p]);
        const std::string label = workloads_[w].name + ", " + policies_[p];
        std::vector<Timed> timed =
            repeated(lab, progress, label, [&] { return run_once(lab, workloads_[w]); });
        for (size_t i = 0; i < timed.size(); ++i) {
          Run r{timed[i].execution_ms, timed[i].shared_read, parse_stream_figures(timed[i].result)};
          runs_[w][p].push_back(r);
          add(record, w, p, i, r);
        }
      }
      if (workloads_[w].kind == Kind::kSmallPool && !fit_.user_chose)
        lab.sql("RESET shared_buffers");
    }
    lab.sql("RESET prefetch_policy");
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  Timed run_once(Lab& lab, const Workload& w) const {
    const std::string n = std::to_string(rows_);
    switch (w.kind) {
      case Kind::kShuffledFull:
      case Kind::kSmallPool:
        lab.make_cold({table_, table_ + "_a_idx"});
        return explain_analyze(lab, "SELECT * FROM " + table_ + " ORDER BY a",
                               {"Index Scan", rows_}, "policies: " + w.name);
      case Kind::kCorrelatedFull:
        lab.make_cold({"polc", "polc_a_idx", "polc_b_idx"});
        return explain_analyze(lab, "SELECT * FROM polc ORDER BY a", {"Index Scan", rows_},
                               "policies: " + w.name);
      case Kind::kPartlyCached:
        lab.make_cold({"polc", "polc_a_idx", "polc_b_idx"});
        lab.sql("SELECT count(*) FROM polc WHERE b = 0");  // the even pages into the pool
        return explain_analyze(lab, "SELECT * FROM polc ORDER BY a", {"Index Scan", rows_},
                               "policies: " + w.name);
      case Kind::kLimit:
        lab.make_cold({table_, table_ + "_a_idx"});
        return explain_analyze(
            lab, "SELECT * FROM " + table_ + " ORDER BY a LIMIT " + std::to_string(w.limit),
            {"Limit", uint64_t(w.limit)}, "policies: " + w.name);
      case Kind::kBitmap:
        return bitmap_scan(lab, w);
      case Kind::kParallel:
        return parallel_scan(lab, w);
    }
    throw Error("policies: unknown workload");
  }

  Timed bitmap_scan(Lab& lab, const Workload& w) const {
    const uint64_t k = std::max<uint64_t>(1, rows_ / 50);
    lab.sql("SET enable_indexscan = off");
    lab.sql("SET enable_indexonlyscan = off");
    lab.make_cold({table_, table_ + "_a_idx"});
    Timed t = explain_analyze(
        lab, "SELECT * FROM " + table_ + " WHERE a BETWEEN 1 AND " + std::to_string(k),
        {"Bitmap Heap Scan", k}, "policies: " + w.name);
    lab.sql("RESET enable_indexscan");
    lab.sql("RESET enable_indexonlyscan");
    return t;
  }

  // The leader and one worker each scan their share of the blocks through their own
  // stream, at the same time, on the same I/O system.
  Timed parallel_scan(Lab& lab, const Workload& w) const {
    lab.sql("SET enable_seqscan = on");
    lab.sql("SET max_parallel_workers_per_gather = 1");
    lab.sql("SET parallel_setup_cost = 0");
    lab.sql("SET parallel_tuple_cost = 0");
    lab.sql("SET min_parallel_table_scan_size = 0");
    lab.make_cold({table_, table_ + "_a_idx"});
    Timed t = explain_analyze(lab, "SELECT count(*) FROM " + table_, {"Finalize Aggregate", 1},
                              "policies: " + w.name);
    int planned = 0, launched = 0;
    if (!parse_gather_workers(t.result, &planned, &launched) || planned != 1)
      throw Error("policies: " + w.name + ": expected a Gather with one worker planned");
    for (const char* s :
         {"enable_seqscan", "max_parallel_workers_per_gather", "parallel_setup_cost",
          "parallel_tuple_cost", "min_parallel_table_scan_size"})
      lab.sql(std::string("RESET ") + s);
    lab.sql("SET enable_seqscan = off");
    return t;
  }

  void add(Recorder& record, size_t w, size_t p, size_t i, const Run& r) const {
    record.add({{"workload", workloads_[w].name},
                {"policy", policies_[p]},
                {"rows", std::to_string(rows_)},
                {"repeat", std::to_string(i)},
                {"ms", fixed(r.ms, 3)},
                {"shared_read", std::to_string(r.shared_read)},
                {"ios", std::to_string(r.stream.ios)},
                {"waits", std::to_string(r.stream.waits)},
                {"wasted", std::to_string(r.stream.wasted)}});
  }

  // The policy with the lowest median time for workload w (-1: none measured).
  int best(size_t w) const {
    int b = -1;
    double best_ms = NAN;
    for (size_t p = 0; p < policies_.size(); ++p) {
      double ms = median_field(runs_[w][p], [](const Run& r) { return r.ms; });
      if (!std::isnan(ms) && (b < 0 || ms < best_ms)) b = int(p), best_ms = ms;
    }
    return b;
  }

  // How far ahead of the runner-up the best is, e.g. "4.2%", with "(noise)" when the gap
  // is smaller than either one's max - min over its runs.
  std::string margin(size_t w, size_t b) const {
    auto ms = [&](size_t p) {
      return median_field(runs_[w][p], [](const Run& r) { return r.ms; });
    };
    double second = NAN;
    size_t s = b;
    for (size_t p = 0; p < policies_.size(); ++p)
      if (p != b && !std::isnan(ms(p)) && (std::isnan(second) || ms(p) < second))
        second = ms(p), s = p;
    if (std::isnan(second) || second <= 0) return "-";
    const double gap = second - ms(b);
    const double noise =
        std::max(spread(values_of_ms(runs_[w][b])), spread(values_of_ms(runs_[w][s])));
    if (runs_[w][b].size() < 2 || runs_[w][s].size() < 2)
      return fixed(100.0 * gap / second, 1) + "% (one run)";
    return fixed(100.0 * gap / second, 1) + "%" + (gap < noise ? " (noise)" : "");
  }
  std::string best_table() const;
  std::string detail_table() const;

  const uint64_t rows_;
  const std::string table_;
  const std::vector<std::string> policies_;
  const std::vector<Workload> workloads_;
  std::vector<std::vector<std::vector<Run>>> runs_;  // [workload][policy]
  PoolFit fit_;                                      // the pool of the "table 4x the pool" workload
};

// Per workload: each policy's median time, and the fastest.
std::string Policies::best_table() const {
  std::vector<std::string> header = {"workload"};
  std::vector<bool> right = {false};
  for (const std::string& p : policies_) header.push_back(p + " ms"), right.push_back(true);
  header.push_back("best");
  header.push_back("by");
  right.push_back(false);
  right.push_back(true);
  std::vector<std::vector<std::string>> rows;
  for (size_t w = 0; w < workloads_.size(); ++w) {
    const int b = best(w);
    if (b < 0) continue;
    std::vector<std::string> row = {workloads_[w].name};
    for (size_t p = 0; p < policies_.size(); ++p) {
      double ms = median_field(runs_[w][p], [](const Run& r) { return r.ms; });
      row.push_back(std::isnan(ms) ? "-" : fixed(ms, 1));
    }
    row.push_back("**" + policies_[size_t(b)] + "**");
    row.push_back(margin(w, size_t(b)));
    rows.push_back(row);
  }
  return rows.empty() ? "" : markdown_table(header, rows, right);
}

// Per workload and policy: time, blocks read, the stream's reads, waits, wasted reads.
std::string Policies::detail_table() const {
  std::vector<std::vector<std::string>> rows;
  for (size_t w = 0; w < workloads_.size(); ++w)
    for (size_t p = 0; p < policies_.size(); ++p) {
      const std::vector<Run>& runs = runs_[w][p];
      if (runs.empty()) continue;
      auto med = [&](double (*get)(const Run&), int decimals) {
        return fixed(median_field(runs, get), decimals);
      };
      rows.push_back({workloads_[w].name, policies_[p], std::to_string(runs.size()),
                      med([](const Run& r) { return r.ms; }, 1),
                      fixed(spread(values_of_ms(runs)), 1),
                      med([](const Run& r) { return double(r.shared_read); }, 0),
                      med([](const Run& r) { return double(r.stream.ios); }, 0),
                      med([](const Run& r) { return double(r.stream.waits); }, 0),
                      med([](const Run& r) { return double(r.stream.wasted); }, 0)});
    }
  if (rows.empty()) return "";
  return markdown_table({"workload", "policy", "runs", "ms", "max - min", "blocks read",
                         "stream reads", "waits", "wasted reads"},
                        rows, {false, false, true, true, true, true, true, true, true});
}

std::string Policies::report(Lab&, Context& ctx, const Outcome& outcome) {
  std::ostringstream md;
  md << "## policies: prefetch policies on the same workloads\n\n" << section_status(outcome);
  md << "Each registered prefetch policy (`SET prefetch_policy`, bufmgr/prefetch_policy.h) on "
        "the same cold runs (`io_direct = on`, `index_prefetch = on`, `enable_seqscan = off`): "
        "`SELECT * FROM "
     << table_ << " ORDER BY a` (" << grouped(rows_)
     << " rows, fillfactor 10, shuffled), with the default pool and with the pool lowered to a "
        "quarter of the table as rpc does ("
     << (fit_.table_pages ? pool_sentence(fit_) : std::string("not measured"))
     << "); the same on `polc`, in index order, cold and with "
        "every other heap page read into the pool first (`SELECT count(*) FROM polc WHERE b = "
        "0`); `ORDER BY a LIMIT n` on "
     << table_ << "; a bitmap heap scan of `a BETWEEN 1 AND "
     << grouped(std::max<uint64_t>(1, rows_ / 50)) << "`; `SELECT count(*) FROM " << table_
     << "` by the leader and one parallel worker (two streams at once). Times are EXPLAIN "
        "ANALYZE's Execution Time, medians of the runs.\n\n";
  const std::string best = best_table();
  if (!best.empty())
    md << "<!-- excerpt -->\n"
       << best
       << "\n*by*: how much faster the best was than the runner-up; *(noise)*: by less than "
          "either one's max - min over its runs, so the order of the two is not settled; "
          "*(one run)*: no spread to tell.\n"
          "<!-- /excerpt -->\n\n";
  md << "Policies: ";
  for (const bufmgr::PrefetchPolicyDef& d : bufmgr::prefetch_policies())
    md << "`" << d.name << "` (" << d.summary << "); ";
  md << "\n\n";
  md << detail_table()
     << "\n*blocks read*: the plan's `Buffers: shared read` (the index's pages and the heap "
        "blocks an index scan read before its stream started included; a block is counted "
        "when the query waits for it, so the wasted reads come on top); *stream reads*, "
        "*waits*: the Prefetch line's `I/Os` (reads started, a block another read already had "
        "in flight included) and `waits`; *wasted reads*: blocks the stream read that the "
        "query never used (`wasted=`).\n\n"
     << device_sentence(ctx.device) << "\n\n";
  return md.str();
}

}  // namespace

Outcome run_policies(Lab& lab, Context& ctx) {
  Policies experiment(lab);
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
