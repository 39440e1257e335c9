// The iomethod experiment's formatting, on results made up here (no disk): the
// article's grid with one column per worker count and David Rowley's cmp rows,
// the scaled io_workers rule, the comparison with the published tables computed
// from the medians, the io_workers sweep table, the chart against the raw
// device, the --workers list and EXPLAIN's Workers Planned / Launched lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "tests/tools/experiments/experiments_test_util.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/iomethod.h"

namespace tp::experiments {
namespace {

// Every cell measured: time = base / (1 + workers), direct slower at few workers.
IoMethodResults made_up(const std::vector<int>& workers) {
  IoMethodResults r(workers, {1, 8, 32});
  r.table_mb = 2000;
  r.table_pages = 244141;
  r.device_seq_mb_s = 1000;               // the table in 2 s
  const double base[] = {20, 10, 12, 8};  // sync, worker, worker (scaled), io_uring
  for (size_t s = 0; s < kNumIoSetups; ++s)
    for (size_t c = 0; c < workers.size(); ++c) {
      double buffered = base[s] / (1 + workers[c]) + 2;
      double direct = workers[c] >= 8 ? buffered : 2 * buffered;
      r.grid[s][0][c] = IoCell{{buffered, buffered + 1, buffered - 1}, workers[c]};
      r.grid[s][1][c] = IoCell{{direct}, workers[c]};
    }
  for (size_t i = 0; i < r.sweep.size(); ++i) {
    r.sweep[i][0] = IoCell{{10.0 + double(i)}, 0};
    r.sweep[i][1] = IoCell{{20.0 + double(i)}, 0};
  }
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(line);
  return lines;
}

TEST(IoMethodReport, ScaledIoWorkersIsOnePerParticipantWithinTheSettingsRange) {
  EXPECT_EQ(scaled_io_workers(0), 3);
  EXPECT_EQ(scaled_io_workers(2), 3);
  EXPECT_EQ(scaled_io_workers(4), 5);
  EXPECT_EQ(scaled_io_workers(16), 17);
  EXPECT_EQ(scaled_io_workers(32), 32);  // io_workers' maximum
  EXPECT_TRUE(scaled_is_default(2));
  EXPECT_FALSE(scaled_is_default(4));
  EXPECT_EQ(io_workers_for(IoSetup::kWorker, 16), 3);
  EXPECT_EQ(io_workers_for(IoSetup::kWorkerScaled, 16), 17);
  EXPECT_STREQ(io_setup_method(IoSetup::kWorkerScaled), "worker");
}

TEST(IoMethodReport, GridHasOneColumnPerWorkerCountAndRowleysCmpPerMethod) {
  IoMethodResults r = made_up({0, 1, 2, 4, 8, 16, 32});
  std::vector<std::string> lines = lines_of(grid_table(r));
  ASSERT_EQ(lines.size(), 2u + 4 * 3 + 1);  // header, rule, 4 x (buffered, direct, cmp), scaled
  EXPECT_EQ(lines[0], "| io_method | mode | 0 | 1 | 2 | 4 | 8 | 16 | 32 |");
  // sync buffered at 0 workers: median of 22, 23, 21; direct 44: cmp 50%.
  EXPECT_EQ(lines[2], "| sync | buffered | 22.00 | 12.00 | 8.67 | 6.00 | 4.22 | 3.18 | 2.61 |");
  EXPECT_EQ(lines[3], "| sync | direct | 44.00 | 24.00 | 17.33 | 12.00 | 4.22 | 3.18 | 2.61 |");
  EXPECT_EQ(lines[4], "| sync | cmp | 50% | 50% | 50% | 50% | 100% | 100% | 100% |");
  // worker (scaled) at 0-2 workers is worker's configuration (io_workers 3) and runs.
  EXPECT_EQ(lines[8].substr(0, 52), "| worker (scaled) | buffered | 12.00 | 7.00 | 5.33 |");
  EXPECT_NE(lines[8].find("| 4.40 |"), std::string::npos);  // 12 / 5 + 2 at 4 workers
  EXPECT_EQ(lines.back(), "|  | io_workers (scaled) | 3 | 3 | 3 | 5 | 9 | 17 | 32 |");
}

TEST(IoMethodReport, CellsWhereFewerWorkersLaunchedAreMarked) {
  IoMethodResults r = made_up({0, 4});
  r.grid[size_t(IoSetup::kIoUring)][1][1].launched = 2;
  std::string table = grid_table(r);
  EXPECT_NE(table.find("| io_uring | direct | 20.00 | 7.20 (2 launched) |"), std::string::npos)
      << table;
  EXPECT_EQ(table.find("(4 launched)"), std::string::npos);
}

TEST(IoMethodReport, MissingRunsShowADashNotANumber) {
  IoMethodResults r({0, 2}, {1});
  r.grid[0][0][0] = IoCell{{5.0}, 0};
  std::string table = grid_table(r);
  EXPECT_NE(table.find("| sync | buffered | 5.00 | - |"), std::string::npos) << table;
  EXPECT_NE(table.find("| sync | cmp | - | - |"), std::string::npos);
  EXPECT_TRUE(std::isnan(r.cmp_pct(IoSetup::kSync, 0)));
}

TEST(IoMethodReport, ShapeComparisonIsComputedFromTheMediansAndThePublishedTables) {
  IoMethodResults r = made_up({0, 1, 2, 4, 8, 16, 32});
  std::string text = shape_comparison(r);
  // sync buffered 22 s at 0 workers, 6 s at 4: 3.67x; direct 44 / 12.
  EXPECT_NE(text.find("sync buffered 3.67x, sync direct 3.67x"), std::string::npos) << text;
  // Published, computed from the tables: master 65,753 / 12,918 ms; Rowley 58,880 / 18,557.
  EXPECT_NE(text.find("master (sync, buffered) 5.09x (65.8 -> 12.9 s)"), std::string::npos);
  EXPECT_NE(text.find("David Rowley's io_uring buffered 3.17x, direct 3.76x"), std::string::npos);
  // sync buffered: best 20 / 33 + 2 s at 32 workers over 22 s at 0.
  EXPECT_NE(text.find("0 workers (its fastest time / its time at 0 workers): sync buffered 12%"),
            std::string::npos);
  EXPECT_NE(text.find("Published (David Rowley, io_uring): buffered 20%, direct 12%"),
            std::string::npos);
  // Direct ties buffered from 8 workers in the made-up runs; Rowley's from 16 (98%).
  EXPECT_NE(text.find("sync from 8 workers (100%) [cmp at 0 workers 50%]"), std::string::npos);
  EXPECT_NE(text.find("cmp 57% at 0 workers, converged from 16 workers (98%: 12.5 vs 12.8 s)"),
            std::string::npos);
  // Fastest: io_uring at 32 workers, 8 / 33 + 2 s; the device reads 2000 MB in 2 s.
  EXPECT_NE(text.find("Fastest here: io_uring buffered with 32 workers, 2.24 s (892 MB/s), 89% "
                      "of the raw device's sequential direct rate"),
            std::string::npos);
}

// The headline's figure: the lowest share of a configuration's best reached at 0 workers,
// over worker and io_uring only (sync direct, 2.61 / 44 s = 6%, would be lower).
TEST(IoMethodReport, LowestShareAtZeroWorkersLeavesSyncOut) {
  IoMethodResults r = made_up({0, 1, 2, 4, 8, 16, 32});
  std::string which;
  // worker direct: 24 s at 0 workers, 10 / 33 + 2 s at 32.
  EXPECT_NEAR(lowest_share_at_zero_workers(r, &which), (10.0 / 33 + 2) / 24, 1e-9);
  EXPECT_EQ(which, "worker direct");
  EXPECT_TRUE(std::isnan(lowest_share_at_zero_workers(made_up({1, 2}), &which)));
}

TEST(IoMethodReport, ShapeComparisonSaysWhatIsMissing) {
  IoMethodResults r = made_up({1, 2});
  std::string text = shape_comparison(r);
  EXPECT_NE(text.find("not measured (`--workers` needs 0 and 4)"), std::string::npos);
  EXPECT_NE(text.find("not within the measured counts"), std::string::npos);
}

TEST(IoMethodReport, PublishedTablesInTheGridsShape) {
  std::string md = published_tables();
  EXPECT_NE(md.find("| published (Andres Freund) | 0 | 1 | 2 | 4 |"), std::string::npos);
  EXPECT_NE(md.find("| master (sync, buffered) | 65.75 | 33.25 | 21.09 | 12.92 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| cmp | 57% | 63% | 61% | 68% | 86% | 98% | 99% | 100% |"), std::string::npos);
}

TEST(IoMethodReport, SweepTableSortsIoWorkersAndQuotesTheGrid) {
  IoMethodResults r = made_up({0, 4});
  std::vector<std::string> lines = lines_of(sweep_table(r));
  ASSERT_EQ(lines.size(), 2u + 6);  // sync, worker 1, 3, 8, 32, io_uring
  EXPECT_EQ(lines[2], "| sync | 22.00 | 91 | 44.00 | 45 | 50% |");
  EXPECT_EQ(lines[3], "| worker 1 | 10.00 | 200 | 20.00 | 100 | 50% |");
  EXPECT_EQ(lines[4].substr(0, 20), "| worker 3 | 12.00 |");  // the grid's worker at 0
  EXPECT_EQ(lines[7].substr(0, 12), "| io_uring |");
}

TEST(IoMethodReport, ChartHasEachMethodAndModeAndTheDeviceLimit) {
  IoMethodResults r = made_up({0, 1, 4});
  Chart chart = grid_chart(r);
  EXPECT_EQ(chart.title, "Cold scan of 244,141 pages (2000 MB) by parallel workers");
  EXPECT_EQ(chart.xtic_labels, (std::vector<std::string>{"0", "1", "4"}));
  ASSERT_EQ(chart.series.size(), 9u);
  EXPECT_EQ(chart.series[0].title, "sync buffered");
  EXPECT_FALSE(chart.series[0].dashed);
  EXPECT_EQ(chart.series[1].title, "sync direct");
  EXPECT_TRUE(chart.series[1].dashed);
  EXPECT_EQ(chart.series[0].colour, chart.series[1].colour);
  EXPECT_NE(chart.series[0].colour, chart.series[2].colour);
  EXPECT_DOUBLE_EQ(chart.series[0].points[2].second, 20.0 / 5 + 2);
  EXPECT_EQ(chart.series[8].title, "raw device, sequential direct (1000 MB/s)");
  for (const auto& p : chart.series[8].points) EXPECT_DOUBLE_EQ(p.second, 2.0);
  // The buffered rate of the raw device: a dashed grey line after the direct one.
  r.device_seq_buffered_mb_s = 500;
  chart = grid_chart(r);
  ASSERT_EQ(chart.series.size(), 10u);
  EXPECT_EQ(chart.series[9].title, "raw device, sequential buffered (500 MB/s)");
  EXPECT_TRUE(chart.series[9].dashed);
  EXPECT_DOUBLE_EQ(chart.series[9].points[0].second, 4.0);
  // No device figure: no limit line.
  r.device_seq_mb_s = r.device_seq_buffered_mb_s = NAN;
  EXPECT_EQ(grid_chart(r).series.size(), 8u);
}

TEST(IoMethodReport, ChartScriptUsesTheSeriesColours) {
  char tmpl[] = "/tmp/tidepool-iom-chart-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  Chart chart = grid_chart(made_up({0, 4}));
  try {
    render_chart(chart, dir + "/iomethod.png");
  } catch (const Error&) {
    // gnuplot missing: the script is written before gnuplot runs.
  }
  std::ifstream in(dir + "/iomethod.gp");
  std::stringstream gp;
  gp << in.rdbuf();
  EXPECT_NE(gp.str().find("lc rgb '#000000' title \"raw device"), std::string::npos) << gp.str();
  EXPECT_NE(gp.str().find("lc rgb '#D55E00' dt 2 title \"sync direct\""), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(IoMethodReport, WorkerListIsAscendingDistinctCounts) {
  EXPECT_EQ(parse_worker_list("0,1,2,4,8,16,32"), (std::vector<int>{0, 1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(parse_worker_list("4"), (std::vector<int>{4}));
  for (const char* bad : {"", "4,2", "1,1", "1,,2", "1,", "x", "-1", "2000", "1.5"})
    EXPECT_THROW(parse_worker_list(bad), Error) << bad;
  try {
    parse_worker_list("0,8,4");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "invalid --workers list \"0,8,4\": counts must be ascending and distinct");
  }
  EXPECT_EQ(run_experiment_command({"iomethod", "--workers", "0,x"}), 2);
}

TEST(IoMethodReport, ParsesGatherWorkersPlannedAndLaunched) {
  ResultSet r;
  for (const char* line :
       {"Finalize Aggregate  (cost=1.00..2.00 rows=1 width=48) (actual time=1..2 rows=1 loops=1)",
        "  ->  Gather  (cost=1.00..2.00 rows=4 width=48) (actual time=1..2 rows=3 loops=1)",
        "        Workers Planned: 4", "        Workers Launched: 2",
        "        ->  Partial Aggregate  (cost=1.00..2.00 rows=1 width=48)"})
    r.rows.push_back({line});
  int planned = 0, launched = 0;
  ASSERT_TRUE(parse_gather_workers(r, &planned, &launched));
  EXPECT_EQ(planned, 4);
  EXPECT_EQ(launched, 2);
  ResultSet plain;
  plain.rows.push_back({"Aggregate  (cost=1.00..2.00 rows=1 width=48)"});
  EXPECT_FALSE(parse_gather_workers(plain, &planned, &launched));
  ResultSet no_analyze;
  no_analyze.rows.push_back({"Gather  (cost=1.00..2.00 rows=4 width=48)"});
  no_analyze.rows.push_back({"  Workers Planned: 8"});
  ASSERT_TRUE(parse_gather_workers(no_analyze, &planned, &launched));
  EXPECT_EQ(planned, 8);
  EXPECT_EQ(launched, -1);
}

using namespace test;  // NOLINT(google-build-using-namespace): the tests' helpers

TEST(IoMethodExperiment, RunsEveryMethodAtEveryWorkerCount) {
  TempDir dir;
  LabOptions options = tiny(dir.path());
  options.iomethod_workers = {0, 2, 4};
  // A 2 MB table is planned serial at PostgreSQL's parallel costs, whatever its
  // parallel_workers; at 2 GB the Gather wins at every worker count.
  options.settings = {"parallel_setup_cost=0", "parallel_tuple_cost=0"};
  Lab lab(options);
  Context ctx = context_for(lab);
  Outcome o = run_iomethod(lab, ctx);
  // The 2 MB table is built either way: 256 pages of 22 rows.
  const RelationEntry* rel = lab.session().catalog().find("iom");
  ASSERT_NE(rel, nullptr);
  EXPECT_EQ(rel->rows, 256u * 22u);
  EXPECT_EQ(rel->pages, 256u);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/iomethod.csv");
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"part", "config", "io_method", "io_workers", "direct",
                                      "parallel_workers", "workers_launched", "repeat", "seconds",
                                      "shared_hit", "shared_read", "mb_per_s", "rows", "table_mb",
                                      "device_seq_mb_s", "device_seq_buffered_mb_s"}));
  // 0 and 2 workers: sync, worker, io_uring; 4: also worker (scaled); each buffered and
  // direct; then the io_workers sweep (1, 8, 32) buffered and direct.
  EXPECT_EQ(csv.rows.size(), 6u + 6u + 8u + 6u);
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/iomethod.png"));
  std::map<std::string, int> per_config;
  for (const auto& r : csv.rows) {
    EXPECT_EQ(r.at("shared_read"), "256");
    EXPECT_GT(num(r, "seconds"), 0);
    EXPECT_GT(num(r, "device_seq_mb_s"), 0);
    EXPECT_EQ(r.at("workers_launched"), r.at("parallel_workers"));
    ++per_config[r.at("part") + "/" + r.at("config") + "/" + r.at("parallel_workers")];
    if (r.at("config") == "worker (scaled)") {
      EXPECT_EQ(r.at("io_workers"), "5");
    }
  }
  EXPECT_EQ(per_config["grid/worker (scaled)/4"], 2);
  EXPECT_EQ(per_config["grid/worker (scaled)/2"], 0);  // io_workers 3: worker's runs
  EXPECT_EQ(per_config["io_workers sweep/worker 32/0"], 2);
  std::string md = slurp(lab.options().out_dir + "/iomethod.md");
  EXPECT_NE(md.find("| io_method | mode | 0 | 2 | 4 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| io_uring | cmp |"), std::string::npos);
  EXPECT_NE(md.find("Speed-up from 0 to 4 parallel workers"), std::string::npos);
  EXPECT_EQ(md.find(" launched) |"), std::string::npos);  // every worker launched
  // The traced contrasts: each method serial and with the grid's 4 workers, one picture each.
  for (const char* side :
       {"| sync, 0 workers | ", "| worker, 0 workers | ", "| io_uring, 0 workers | ",
        "| sync, 4 workers | ", "| worker, 4 workers | ", "| io_uring, 4 workers | "})
    EXPECT_NE(md.find(side), std::string::npos) << side;
  EXPECT_EQ(md.find("failed:"), std::string::npos) << md;
  for (const char* png : {"iomethod-trace.png", "iomethod-parallel-trace.png",
                          "traces/iomethod-parallel-worker-4-workers.json"})
    EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/" + png)) << png;
  // The forced worker count is the table's reloption only while the experiment runs.
  ResultSet plan = lab.sql("EXPLAIN SELECT count(*) FROM iom");
  int planned = 0, launched = 0;
  EXPECT_FALSE(parse_gather_workers(plan, &planned, &launched));
}

}  // namespace
}  // namespace tp::experiments
