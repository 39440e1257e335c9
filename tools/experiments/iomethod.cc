// `iomethod`: the AIO article on its own axis. A cold `SELECT SUM(a), COUNT(*),
// AVG(b)` of a table of about 2 GB for parallel workers 0, 1, 2, 4, 8, 16, 32
// (forced as the article forces them: max_parallel_workers_per_gather and the
// table's parallel_workers), for io_method sync, worker (io_workers 3, and
// scaled with the participants), io_uring, each buffered and direct; then the
// io_workers sweep at 0 parallel workers. The raw device's sequential rate is
// measured in the same run. The table has fillfactor 10 (22 rows a page) so,
// like ClickBench's wide rows, the scan is bound by I/O, not by per-row work.
#include <cmath>
#include <map>
#include <sstream>

#include "aio/device_probe.h"
#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/iomethod.h"
#include "tools/experiments/readme_claims.h"
#include "tools/experiments/traced.h"

namespace tp::experiments {

namespace {

const char* const kQuery = "SELECT SUM(a), COUNT(*), AVG(b) FROM iom";
constexpr IoSetup kSetups[] = {IoSetup::kSync, IoSetup::kWorker, IoSetup::kWorkerScaled,
                               IoSetup::kIoUring};
// The io_workers sweep (beside the grid's 3): fewer points than io_workers' 1..32.
const std::vector<int> kSweepIoWorkers = {1, 8, 32};

// One measured point: what the session is set to.
struct Point {
  std::string part;  // "grid" or "io_workers sweep"
  std::string label;
  std::string method;
  int io_workers = kDefaultIoWorkers;
  int direct = 0;
  int parallel_workers = 0;
};

class IoMethod : public Experiment {
 public:
  explicit IoMethod(const LabOptions& opt)
      : Experiment("iomethod"),
        pages_(std::max<uint64_t>(1, opt.iomethod_table_mb * 1024 * 1024 / 8192)),
        rows_(pages_ * 22),  // 22 rows per fillfactor-10 page
        table_mb_(opt.iomethod_table_mb),
        results_(opt.iomethod_workers, kSweepIoWorkers) {
    results_.table_mb = double(pages_) * 8192 / 1e6;
    results_.table_pages = pages_;
    probe_.directory = opt.data_dir;
    probe_.file_size_mb = opt.device_file_mb;
    probe_.seconds_per_run = opt.device_seconds;
    probe_.repeats = std::max(1, opt.repeat);
    probe_.direct_modes = {true, false};
    probe_.random_depths = {};
  }

  int steps(const Lab& lab) const override {
    size_t points = 2 * kSweepIoWorkers.size();
    for (int w : results_.workers) points += 2 * (scaled_is_default(w) ? 3 : 4);
    return int(1 + 2 * probe_.methods.size() * size_t(probe_.repeats) + results_.workers.size() +
               points * size_t(std::max(1, lab.options().repeat)) + 6);
  }

  void set_up(Lab& lab, Context&, Progress& progress) override {
    measure_device(lab, progress);
    lab.reset_settings();
    progress.step("table iom: " + grouped(rows_) + " rows, fillfactor 10 (" + grouped(table_mb_) +
                  " MB)");
    lab.ensure_table(TableSpec{"iom",
                               rows_,
                               {"CREATE TABLE iom (a int, b int) WITH (fillfactor=10)",
                                "INSERT INTO iom SELECT g, g % 1000 FROM generate_series(1, " +
                                    std::to_string(rows_) + ") g"},
                               {}});
  }

  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    for (size_t c = 0; c < results_.workers.size(); ++c) {
      const int w = results_.workers[c];
      int launched = -1;
      for (IoSetup s : kSetups) {
        if (s == IoSetup::kWorkerScaled && scaled_is_default(w)) continue;  // same as worker
        for (int d = 0; d < 2; ++d) {
          Point p{"grid", io_setup_label(s), io_setup_method(s), io_workers_for(s, w), d, w};
          configure(lab, p);
          if (launched < 0) launched = check_workers(lab, p, progress);
          IoCell& cell = results_.grid[size_t(s)][size_t(d)][c];
          cell.launched = launched;
          measure_point(lab, p, cell, progress, record);
        }
      }
    }
    for (size_t i = 0; i < kSweepIoWorkers.size(); ++i)
      for (int d = 0; d < 2; ++d) {
        Point p{"io_workers sweep",
                "worker " + std::to_string(kSweepIoWorkers[i]),
                "worker",
                kSweepIoWorkers[i],
                d,
                0};
        configure(lab, p);
        results_.sweep[i][size_t(d)].launched = 0;
        measure_point(lab, p, results_.sweep[i][size_t(d)], progress, record);
      }
    trace_methods(lab, progress);
    lab.sql("ALTER TABLE iom RESET (parallel_workers)");
    lab.reset_settings();
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  // The raw device's sequential rate, now (the probe needs the thread free of the
  // session's I/O system): the chart's limit lines, the best method's median.
  void measure_device(Lab& lab, Progress& progress) {
    lab.close_session();
    std::map<std::string, std::vector<double>> runs;  // "method/direct" -> MB/s of each run
    aio::run_device_probe(probe_, [&](const aio::DeviceProbeRow& r) {
      progress.step("raw device " + r.method + " sequential " +
                    (r.direct ? "direct: " : "buffered: ") + fixed(r.mb_per_s, 0) + " MB/s");
      runs[r.method + (r.direct ? "/1" : "/0")].push_back(r.mb_per_s);
      lab.check_stop();
    });
    for (const auto& [key, mb_s] : runs) {
      double& best =
          key.back() == '1' ? results_.device_seq_mb_s : results_.device_seq_buffered_mb_s;
      if (std::isnan(best) || median(mb_s) > best) best = median(mb_s);
    }
  }

  // Sets the I/O system and forces the worker count as the article does.
  static void configure(Lab& lab, const Point& p) {
    lab.reset_settings();
    lab.sql(std::string("SET io_direct = ") + (p.direct ? "on" : "off"));
    lab.sql("SET io_method = " + p.method);
    lab.sql("SET io_workers = " + std::to_string(p.io_workers));
    const std::string w = std::to_string(p.parallel_workers);
    lab.sql("SET max_parallel_workers_per_gather = " + w);
    lab.sql("SET max_parallel_workers = " + std::to_string(std::max(8, p.parallel_workers)));
    lab.sql(p.parallel_workers ? "ALTER TABLE iom SET (parallel_workers = " + w + ")"
                               : "ALTER TABLE iom RESET (parallel_workers)");
  }

  // EXPLAIN ANALYZE of the query once per worker count: the plan must be the forced
  // one (a Gather planning exactly that many workers, none at 0) and read every block
  // exactly once over all participants. Returns Workers Launched.
  int check_workers(Lab& lab, const Point& p, Progress& progress) {
    const std::string what = "iomethod: " + std::to_string(p.parallel_workers) + " workers";
    progress.step("EXPLAIN ANALYZE check, " + std::to_string(p.parallel_workers) + " workers");
    Timed t = lab.timed("EXPLAIN (ANALYZE, BUFFERS) " + std::string(kQuery));
    int planned = 0, launched = 0;
    const bool gather = parse_gather_workers(t.result, &planned, &launched);
    if (p.parallel_workers == 0 && gather)
      throw Error(what + ": the plan has a Gather with max_parallel_workers_per_gather = 0");
    if (p.parallel_workers > 0 && (!gather || planned != p.parallel_workers))
      throw Error(what + ": expected a Gather with Workers Planned: " +
                      std::to_string(p.parallel_workers) + ", EXPLAIN shows " +
                      (gather ? "Workers Planned: " + std::to_string(planned) : "no Gather"),
                  "",
                  "the planner keeps a small table serial whatever its parallel_workers, as "
                  "PostgreSQL does; give a larger --table-mb or --set parallel_setup_cost=0 "
                  "--set parallel_tuple_cost=0");
    if (t.shared_hit + t.shared_read != pages_)
      throw Error(what + ": the scan's buffers were hit " + std::to_string(t.shared_hit) +
                  " + read " + std::to_string(t.shared_read) + ", expected every one of the " +
                  std::to_string(pages_) + " pages once");
    return p.parallel_workers == 0 ? 0 : launched;
  }

  void measure_point(Lab& lab, const Point& p, IoCell& cell, Progress& progress, Recorder& record) {
    const std::string label = p.label + (p.direct ? " direct, " : " buffered, ") +
                              std::to_string(p.parallel_workers) + " workers";
    std::vector<Timed> runs = repeated(lab, progress, label, [&] { return cold_scan(lab); });
    cell.seconds.clear();
    for (size_t i = 0; i < runs.size(); ++i) {
      cell.seconds.push_back(runs[i].wall_ms / 1000);
      record.add(row(runs[i], p, cell.launched, i));
    }
  }

  // The three methods in time, direct I/O (nothing between the pool and the device):
  // serial, and with the grid's largest worker count up to 4.
  void trace_methods(Lab& lab, Progress& progress) {
    int parallel = 0;
    for (int w : results_.workers)
      if (w <= 4) parallel = std::max(parallel, w);
    for (int i = 0; i < (parallel > 0 ? 2 : 1); ++i) {
      const int w = i == 0 ? 0 : parallel;
      for (const char* method : {"sync", "worker", "io_uring"}) {
        const std::string side = std::string(method) + ", " + std::to_string(w) + " workers";
        progress.step("traced cold scan, " + side);
        configure(lab, Point{"trace", method, method, kDefaultIoWorkers, 1, w});
        traced_[i].run(lab, side, {"iom"}, kQuery, {});
      }
    }
  }

  Timed cold_scan(Lab& lab) const {
    lab.make_cold({"iom"});
    Timed t = lab.timed(kQuery);
    if (t.result.rows.empty() || t.result.rows[0].size() < 2 ||
        t.result.rows[0][1] != std::to_string(rows_))
      throw Error("iomethod: COUNT(*) returned " +
                  (t.result.rows.empty() || t.result.rows[0].size() < 2 ? std::string("nothing")
                                                                        : t.result.rows[0][1]) +
                  ", expected " + std::to_string(rows_));
    return t;
  }

  Record row(const Timed& t, const Point& p, int launched, size_t i) const {
    return {{"part", p.part},
            {"config", p.label},
            {"io_method", p.method},
            {"io_workers", std::to_string(p.io_workers)},
            {"direct", p.direct ? "on" : "off"},
            {"parallel_workers", std::to_string(p.parallel_workers)},
            {"workers_launched", std::to_string(launched)},
            {"repeat", std::to_string(i)},
            {"seconds", fixed(t.wall_ms / 1000, 4)},
            {"shared_hit", std::to_string(t.shared_hit)},
            {"shared_read", std::to_string(t.shared_read)},
            {"mb_per_s", fixed(double(t.shared_read) * 8192 / 1e6 / (t.wall_ms / 1000), 1)},
            {"rows", std::to_string(rows_)},
            {"table_mb", std::to_string(table_mb_)},
            {"device_seq_mb_s", fixed(results_.device_seq_mb_s, 1)},
            {"device_seq_buffered_mb_s", fixed(results_.device_seq_buffered_mb_s, 1)}};
  }

  const uint64_t pages_, rows_, table_mb_;
  aio::DeviceProbeConfig probe_;
  IoMethodResults results_;
  TracedContrast traced_[2] = {
      {"iomethod",
       "the cold scan under sync, worker (3 I/O workers) and io_uring, direct I/O, "
       "no parallel workers"},
      {"iomethod-parallel", "the same with parallel workers (the grid's largest count up to 4)"}};
};

std::string IoMethod::report(Lab& lab, Context& ctx, const Outcome& outcome) {
  {
    // The article's shape turned around: one backend is already near its best here.
    std::string which;
    const double share = lowest_share_at_zero_workers(results_, &which);
    Headline h;
    h.claim =
        "with worker or io_uring, a scan without parallel workers reaches most of its "
        "best throughput (lowest share over those configurations)";
    h.measured = !std::isnan(share);
    h.this_run = readme::percent(share) + (h.measured ? " (" + which + ")" : "");
    h.readme = readme::percent(readme::kIomethodShare) + " (holds: at least " +
               readme::percent(readme::kIomethodShareMin) + "; the articles: 12-20%)";
    h.holds = h.measured && share >= readme::kIomethodShareMin;
    write_headlines(lab.options().out_dir, name(), {h}, outcome.load);
  }
  std::ostringstream md;
  md << "## iomethod: cold scan by parallel workers, io_method and direct I/O\n\n"
     << section_status(outcome);
  md << "`" << kQuery << "` over a " << grouped(table_mb_) << " MB table (" << grouped(rows_)
     << " rows, fillfactor 10, " << grouped(pages_)
     << " pages), cold, wall time of the statement in seconds (medians). Parallel workers are "
        "forced as the article forces them: `SET max_parallel_workers_per_gather = N`, "
        "`max_parallel_workers` at least N, `ALTER TABLE iom SET (parallel_workers = N)`; the "
        "leader scans too. Every run's COUNT(*) is checked, and one EXPLAIN ANALYZE per worker "
        "count checks Workers Planned, Workers Launched (a cell marked \"(N launched)\" had "
        "fewer) and that every page was read once. `worker (scaled)` runs one I/O worker per "
        "participant (io_workers = workers + 1, 3..32): with sync each participant reads on its "
        "own thread, the default 3 I/O workers would cap all participants at 3 reads in "
        "flight. At the counts where that is 3 it is the `worker` runs. cmp is David Rowley's "
        "column: buffered time / direct time.\n\n";
  if (outcome.runs > 0) {
    md << "<!-- excerpt -->\n"
       << grid_table(results_) << "\n"
       << shape_comparison(results_) << "<!-- /excerpt -->\n\n"
       << chart_markdown(grid_chart(results_), lab.options().out_dir, "iomethod.png",
                         "cold scan by parallel workers")
       << "The io_workers sweep (0 parallel workers; the earlier version of this experiment):\n\n"
       << sweep_table(results_) << "\n";
  }
  for (const TracedContrast& c : traced_) md << c.markdown(lab.options().out_dir);
  md << "Published (ClickBench Q2, `SELECT SUM(AdvEngineID), COUNT(*), AVG(ResolutionWidth) "
        "FROM hits`, 64 GB table), seconds by parallel workers:\n\n"
     << published_tables() << "\n";
  if (ctx.device.known) md << "The device experiment: " << device_sentence(ctx.device) << "\n\n";
  return md.str();
}

}  // namespace

Outcome run_iomethod(Lab& lab, Context& ctx) {
  IoMethod experiment(lab.options());
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
