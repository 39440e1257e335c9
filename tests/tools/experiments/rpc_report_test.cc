// The rpc experiment's honesty at a small scale (the pool fitted to the table,
// the per-read ratio, the undercount warning, no bare ratio below 1), its sweep,
// and the README excerpt written from REPORT.md.
#include <gtest/gtest.h>

#include "tests/tools/experiments/experiments_test_util.h"
#include "tools/experiments/rpc_measure.h"

namespace tp::experiments::test {
namespace {

constexpr uint64_t kRows = 10000;
constexpr uint64_t kPages = 455;  // 10,000 rows at 22 a page (fillfactor 10)

// With a floor below a quarter of the table, rpc lowers shared_buffers so the table is 4x the
// pool: no warning, the pool in the CSV, and shared_buffers back to its value afterwards.
TEST(RpcReport, ShrinksThePoolToAQuarterOfTheTable) {
  TempDir dir;
  LabOptions opt = tiny(dir.path(), kRows);
  opt.min_pool_blocks = 64;
  Lab lab(opt);
  Context ctx = context_for(lab);
  ctx.device.known = true;  // a device this run measured: the seq scan is quoted against it
  ctx.device.seq_direct_mb_s = 1e9;
  ctx.device.random_direct_us_d1 = 50;
  Outcome o = run_rpc(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/rpc.csv");
  ASSERT_EQ(csv.rows.size(), 4u);
  for (const auto& r : csv.rows) {
    EXPECT_EQ(r.at("table_pages"), std::to_string(kPages));
    EXPECT_EQ(r.at("pool_blocks"), std::to_string(kPages / 4));
    EXPECT_EQ(r.at("pool_shrunk"), "1");
    EXPECT_EQ(r.at("undercount"), "0");
    // A pool of a quarter of the table cannot hold what the scan reads: it reads at least
    // every heap page once, and most pages more than once.
    EXPECT_GT(num(r, "index_shared_read"), double(kPages));
    EXPECT_TRUE(std::isfinite(num(r, "ratio_per_read")));
  }
  const std::string md = slurp(lab.options().out_dir + "/rpc.md");
  EXPECT_NE(md.find("the experiment lowered shared_buffers from 128.0 MB"), std::string::npos);
  EXPECT_NE(md.find("the table is 4.0x the pool"), std::string::npos);  // 455 / 113
  EXPECT_EQ(md.find("Warning"), std::string::npos);
  // The seq scan against the device reading the table's file, with the experiment's
  // io_workers (the worker method's device depth).
  EXPECT_NE(md.find("| worker (io_workers 16) | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ratio (article's) | ratio per read |"), std::string::npos);
  expect_no_bare_ratio_below_one(md);
  lab.reset_settings();
  EXPECT_EQ(lab.session().settings().show("shared_buffers"), "128MB");
}

// --set shared_buffers is the user's: kept, and the section says so.
TEST(RpcReport, KeepsAPoolTheUserChose) {
  TempDir dir;
  LabOptions opt = tiny(dir.path(), kRows);
  opt.settings = {"shared_buffers=768kB"};
  Lab lab(opt);
  Context ctx = context_for(lab);
  Outcome o = run_rpc(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/rpc.csv");
  for (const auto& r : csv.rows) {
    EXPECT_EQ(r.at("pool_blocks"), "96");
    EXPECT_EQ(r.at("pool_shrunk"), "0");
    EXPECT_EQ(r.at("undercount"), "0");  // 455 pages >= 4 x 96
  }
  const std::string md = slurp(lab.options().out_dir + "/rpc.md");
  EXPECT_NE(md.find("(shared_buffers as given with --set)"), std::string::npos);
  expect_no_bare_ratio_below_one(md);
}

TEST(RpcReport, RatioBelowOneCarriesAMarkAndAnExplanation) {
  bool below = false;
  EXPECT_EQ(ratio_cell(12.04, &below), "12.0");
  EXPECT_FALSE(below);
  EXPECT_EQ(ratio_cell(NAN, &below), "-");
  EXPECT_EQ(ratio_cell(0.43, &below), "0.43 *");
  EXPECT_TRUE(below);
  PoolFit small{.table_pages = 910, .pool_blocks = 16384, .default_blocks = 16384};
  EXPECT_TRUE(small.undercounts());
  EXPECT_NE(ratio_footnote(small).find("only 0.1x the pool"), std::string::npos);
  EXPECT_NE(undercount_warning(small).find("undercounts"), std::string::npos);
  PoolFit fits{.table_pages = 910, .pool_blocks = 227, .default_blocks = 16384};
  EXPECT_FALSE(fits.undercounts());
  EXPECT_EQ(undercount_warning(fits), "");
  EXPECT_NE(ratio_footnote(fits).find("per-row work"), std::string::npos);
}

// rpc --sweep: four tables at fillfactors 10-50, prefetch off and on, a table, a chart, a
// section in REPORT.md.
TEST(RpcReport, SweepEstimatesEveryTablePrefetchOffAndOn) {
  TempDir dir;
  LabOptions opt = tiny(dir.path(), 10000);
  opt.rpc_sweep = true;
  Lab lab(opt);
  Context ctx = context_for(lab);
  Outcome o = run_rpc(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  EXPECT_EQ(o.runs, 4 + 8);  // rpc's four rows, then two per sweep table
  Csv csv = load(lab.options().out_dir + "/rpc-sweep.csv");
  ASSERT_EQ(csv.rows.size(), 8u);
  EXPECT_EQ(own_columns(csv)[0], "table");
  EXPECT_EQ(own_columns(csv)[1], "fillfactor");
  std::map<std::string, std::string> fillfactor;
  for (const auto& r : csv.rows) {
    fillfactor[r.at("table")] = r.at("fillfactor");
    EXPECT_GT(num(r, "index_shared_read"), 0);
    EXPECT_TRUE(std::isfinite(num(r, "ratio_per_read")));
    EXPECT_EQ(r.at("io_direct"), "on");
  }
  EXPECT_EQ(fillfactor, (std::map<std::string, std::string>{{"rpc_sweep_1", "10"},
                                                            {"rpc_sweep_2", "20"},
                                                            {"rpc_sweep_3", "30"},
                                                            {"rpc_sweep_4", "50"}}));
  const std::string md = slurp(lab.options().out_dir + "/rpc-sweep.md");
  EXPECT_NE(md.find("| per read, prefetch off |"), std::string::npos);
  EXPECT_NE(md.find("(under 4x)"), std::string::npos);  // tiny tables: the warning
  EXPECT_NE(md.find("Warning: the article's method undercounts"), std::string::npos);
  expect_no_bare_ratio_below_one(md);
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/rpc_sweep.png"));
  const std::string report = slurp(write_report(lab.options(), ctx));
  EXPECT_LT(report.find("## rpc: "), report.find("## rpc-sweep: "));
}

const char* const kReport =
    "# tidepool experiments: the three articles on this machine\n\n"
    "Generated 2026-12-01 15:00 UTC by `tidepool experiment`. Machine: device vda, commit "
    "abc123.\n\n"
    "## device: the raw disk\n\nStatus: **complete**.\n\n| long | table |\n\n"
    "<!-- excerpt -->\nRaw device measured in this run: 1000 MB/s.\n<!-- /excerpt -->\n\n"
    "![chart](device.png)\n\n"
    "## selectivity: nothing marked\n\nno excerpt here\n\n"
    "## rpc: the article\n\n<!-- excerpt -->\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    "<!-- /excerpt -->\n\ntext\n\n<!-- excerpt -->\nEstimate **12.0**.\n<!-- /excerpt -->\n";

TEST(ReadmeExcerpt, TakesTheGeneratedLineAndEachSectionsMarkedBlocks) {
  const std::string e = report_excerpt(kReport);
  EXPECT_EQ(e,
            "Generated 2026-12-01 15:00 UTC by `tidepool experiment`. Machine: device vda, commit "
            "abc123.\n\n"
            "### device: the raw disk\n\nRaw device measured in this run: 1000 MB/s.\n\n"
            "### rpc: the article\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEstimate **12.0**.\n\n");
  EXPECT_THROW(report_excerpt("# nothing\n\n## rpc\n\nno blocks\n"), Error);
}

TEST(ReadmeExcerpt, CommandRewritesOnlyWhatLiesBetweenTheMarkers) {
  TempDir dir;
  const std::string out = dir.path() + "/out", readme = dir.path() + "/README.md";
  std::filesystem::create_directories(out);
  std::ofstream(out + "/REPORT.md") << kReport;
  const std::string before = "# title\n\nintro\n\n" + std::string(kReadmeExcerptBegin) +
                             "\nold, hand-written\n" + kReadmeExcerptEnd + "\n\n## after\n";
  std::ofstream(readme) << before;
  EXPECT_EQ(run_experiment_command({"excerpt", "--out", out, "--readme", readme}), 0);
  const std::string after = slurp(readme);
  EXPECT_EQ(after.find("old, hand-written"), std::string::npos);
  EXPECT_EQ(after.rfind("# title\n\nintro\n\n", 0), 0u);
  EXPECT_NE(after.find(std::string(kReadmeExcerptBegin) + "\n\nGenerated 2026-12-01"),
            std::string::npos);
  EXPECT_NE(
      after.find("Estimate **12.0**.\n\n" + std::string(kReadmeExcerptEnd) + "\n\n## after\n"),
      std::string::npos);
  // Run again: the same README (the markers stay, nothing accumulates).
  EXPECT_EQ(run_experiment_command({"excerpt", "--out", out, "--readme", readme}), 0);
  EXPECT_EQ(slurp(readme), after);
  // A README without markers is refused and left alone.
  std::ofstream(readme, std::ios::trunc) << "# no markers\n";
  EXPECT_EQ(run_experiment_command({"excerpt", "--out", out, "--readme", readme}), 2);
  EXPECT_EQ(slurp(readme), "# no markers\n");
}

}  // namespace
}  // namespace tp::experiments::test
