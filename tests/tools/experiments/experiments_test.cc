// End-to-end runs of every experiment at a tiny scale (20 k rows, one run per
// measurement): the CSV has the documented columns in their order, the expected
// number of rows and sane values. A failed step or a Ctrl-C ends an experiment
// with its rows kept and its section written (the skeleton of experiment.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "tests/tools/experiments/experiments_test_util.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): the tests' helpers

constexpr uint64_t kRows = kTinyRows;
constexpr uint64_t kRpcPages = 910;  // 20,000 rows at 22 a page (fillfactor 10)

void expect_environment(const Csv& csv) {
  for (const char* c : {"device", "kernel", "commit"}) EXPECT_TRUE(csv.has(c)) << c;
  ASSERT_FALSE(csv.rows.empty());
  EXPECT_FALSE(csv.rows[0].at("kernel").empty());
  EXPECT_FALSE(csv.rows[0].at("commit").empty());
}

TEST(Experiments, DeviceMeasuresEveryMethodModeAndDepth) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  Outcome o = run_device(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/device.csv");
  for (const char* c : {"method", "direct", "pattern", "depth", "mb_per_s", "iops",
                        "avg_latency_us", "block_size_bytes"})
    EXPECT_TRUE(csv.has(c)) << c;
  EXPECT_EQ(own_columns(csv), (std::vector<std::string>{
                                  "method", "direct", "pattern", "depth", "block_size_bytes",
                                  "repeat", "ios", "seconds", "mb_per_s", "iops", "avg_latency_us",
                                  "cpu_us_per_io", "file_mb", "seconds_per_run"}));
  expect_environment(csv);
  // Per method that can start here: 2 modes x (1 sequential + 5 random depths).
  ASSERT_GE(csv.rows.size(), 12u);
  EXPECT_EQ(csv.rows.size() % 12, 0u);
  EXPECT_EQ(int(csv.rows.size()), o.runs);
  for (const auto& r : csv.rows) {
    EXPECT_GT(num(r, "iops"), 0) << r.at("method") << " " << r.at("pattern");
    EXPECT_EQ(r.at("block_size_bytes"), r.at("pattern") == "seq" ? "131072" : "8192");
  }
  EXPECT_TRUE(ctx.device.known);
  EXPECT_GT(ctx.device.seq_direct_mb_s, 0);
  EXPECT_GT(ctx.device.random_direct_us_d1, 0);
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/device.png"));
  EXPECT_NE(slurp(lab.options().out_dir + "/device.md").find("| io_uring |"), std::string::npos);
}

TEST(Experiments, RpcMeasuresExactSeqPagesAndAFiniteRatio) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  Outcome o = run_rpc(lab, ctx);
  Csv csv = load(lab.options().out_dir + "/rpc.csv");
  for (const char* c : {"eic", "index_prefetch", "seq_pages", "seq_ms", "seq_page_us",
                        "random_page_us", "ratio", "io_method", "effective_io_concurrency"})
    EXPECT_TRUE(csv.has(c)) << c;
  EXPECT_EQ(own_columns(csv), (std::vector<std::string>{"rows",
                                                        "eic",
                                                        "index_prefetch",
                                                        "repeat",
                                                        "seq_pages",
                                                        "seq_pages_read",
                                                        "seq_ms",
                                                        "index_rows",
                                                        "index_ms",
                                                        "index_shared_hit",
                                                        "index_shared_read",
                                                        "seq_page_us",
                                                        "random_page_us",
                                                        "ratio",
                                                        "random_read_us",
                                                        "ratio_per_read",
                                                        "table_pages",
                                                        "pool_blocks",
                                                        "pool_shrunk",
                                                        "undercount"}));
  expect_environment(csv);
  // eic 16 and 0, index_prefetch off and on: one row each.
  ASSERT_EQ(csv.rows.size(), 4u);
  EXPECT_EQ(csv.rows[0].at("eic"), "16");
  EXPECT_EQ(csv.rows[2].at("eic"), "0");
  EXPECT_EQ(csv.rows[2].at("effective_io_concurrency"), "0");
  for (const auto& r : csv.rows) {
    EXPECT_EQ(r.at("seq_pages"), std::to_string(kRpcPages));
    EXPECT_EQ(r.at("seq_pages_read"), std::to_string(kRpcPages));  // cold: all read
    EXPECT_GT(num(r, "seq_ms"), 0);
    EXPECT_NEAR(num(r, "seq_page_us"), num(r, "seq_ms") * 1000 / kRpcPages, 1e-3);
  }
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  ASSERT_TRUE(csv.has("index_rows"));
  for (const auto& r : csv.rows) {
    EXPECT_EQ(r.at("index_rows"), std::to_string(kRows));
    EXPECT_GT(num(r, "index_ms"), 0);
    EXPECT_TRUE(std::isfinite(num(r, "ratio")) && num(r, "ratio") > 0);
    // Per read: index time / the pages the index scan read.
    EXPECT_NEAR(num(r, "random_read_us"), num(r, "index_ms") * 1000 / num(r, "index_shared_read"),
                1e-3);
    EXPECT_NEAR(num(r, "ratio_per_read"), num(r, "random_read_us") / num(r, "seq_page_us"), 1e-2);
    // 910 pages cannot be 4x a pool of at least 1024 buffers: the pool goes down to that floor
    // and the section warns.
    EXPECT_EQ(r.at("table_pages"), std::to_string(kRpcPages));
    EXPECT_EQ(r.at("pool_blocks"), "1024");
    EXPECT_EQ(r.at("pool_shrunk"), "1");
    EXPECT_EQ(r.at("undercount"), "1");
  }
  EXPECT_TRUE(std::isfinite(ctx.rpc_estimate));
  for (const auto& r : csv.rows)  // back to the session's after the seq-vs-device rounds
    EXPECT_EQ(r.at("io_method"), "worker");
  const std::string md = slurp(lab.options().out_dir + "/rpc.md");
  EXPECT_NE(md.find("Warning: the article's method undercounts here."), std::string::npos);
  EXPECT_NE(md.find("the table is 0.9x the pool"), std::string::npos);
  EXPECT_NE(md.find("but not below 8.0 MB"), std::string::npos);
  expect_no_bare_ratio_below_one(md);
  // The traced contrast: both sides ran, their traces kept for Perfetto, one picture.
  EXPECT_NE(md.find("#### Traced: the cold index scan's first rows"), std::string::npos);
  EXPECT_NE(md.find("![the cold index scan's first rows"), std::string::npos) << md;
  for (const char* side : {"off", "on"}) {
    const std::string file = std::string("traces/rpc-prefetch-index_prefetch-") + side + ".json";
    EXPECT_NE(md.find(std::string("| index_prefetch ") + side + " | "), std::string::npos);
    EXPECT_NE(md.find("`" + file + "`"), std::string::npos) << md;
    EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/" + file)) << file;
  }
  EXPECT_EQ(md.find("failed:"), std::string::npos) << md;
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/rpc-prefetch-trace.png"));

  // The seq scan against the device reading the table's own file, per method, one round each
  // (--repeat 1): the scan read every page, the device the whole file in 16-block reads.
  Csv vs = load(lab.options().out_dir + "/rpc-seq-vs-device.csv");
  ASSERT_EQ(vs.rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& r = vs.rows[i];
    EXPECT_EQ(r.at("io_method"), i == 0 ? "worker" : "io_uring");
    EXPECT_EQ(r.at("scan_pages_read"), std::to_string(kRpcPages));
    EXPECT_EQ(r.at("device_reads"), std::to_string(kRpcPages / 16));
    EXPECT_EQ(r.at("device_read_bytes"), "131072");
    EXPECT_EQ(r.at("device_depth"), "16");
    EXPECT_NEAR(num(r, "scan_over_device"), num(r, "scan_mb_per_s") / num(r, "device_mb_per_s"),
                1e-2);
  }
  for (const char* text :
       {"| io_method | rounds | seq scan MB/s | device MB/s (same file) |",
        "| worker (io_workers 16) | 1 |", "| io_uring | 1 |", "The seq scan ran at "})
    EXPECT_NE(md.find(text), std::string::npos) << text;
}

TEST(Experiments, SelectivityRunsEveryPlanAtEveryFraction) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  Outcome o = run_selectivity(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/selectivity.csv");
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"rows", "fraction_pct", "k", "plan", "cached_pct", "repeat",
                                      "ms", "shared_hit", "shared_read", "cost_rpc4",
                                      "cost_measured", "cost_prefetch_aware", "rpc_estimate"}));
  // Six plans at nine fractions, cold and all cached.
  EXPECT_EQ(csv.rows.size(), 9u * 6u * 2u);
  for (const auto& r : csv.rows) {
    EXPECT_GT(num(r, "ms"), 0);
    EXPECT_GT(num(r, "cost_rpc4"), 0);
    EXPECT_GT(num(r, "cost_prefetch_aware"), 0);
    // A cached run reads nothing: the pool holds the table and its index.
    if (r.at("cached_pct") == "100") {
      EXPECT_EQ(num(r, "shared_read"), 0) << r.at("plan");
    }
  }
  EXPECT_EQ(csv.rows[0].at("k"), "2");  // 0.01% of 20,000
  // Each model's pick in each of the four worlds at each fraction, never faster than
  // the fastest forced plan of its world.
  Csv picks = load(lab.options().out_dir + "/selectivity-picks.csv");
  EXPECT_EQ(picks.rows.size(), 9u * 4u * 3u);
  std::set<std::string> models;
  for (const auto& r : picks.rows) {
    models.insert(r.at("model"));
    EXPECT_GE(num(r, "regret"), 0.9995) << r.at("model") << " " << r.at("fraction_pct");
  }
  EXPECT_EQ(models.size(), 3u);
  EXPECT_TRUE(models.count("prefetch_aware"));
  const std::string md = slurp(lab.options().out_dir + "/selectivity.md");
  for (const char* text :
       {"| cost model | worst regret, prefetch off, cold |", "| prefetch_aware | ",
        "**prefetch on, all cached**", "The prefetch-aware model priced with `device_"})
    EXPECT_NE(md.find(text), std::string::npos) << text;
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/selectivity_cost.png"));
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/selectivity_time.png"));
}

TEST(Experiments, CachedSweepsNoneHalfAndAllOfTheTableInThePool) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  Outcome o = run_cached(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/cached.csv");
  EXPECT_EQ(csv.rows.size(), 9u * 3u * 3u);
  std::map<std::string, std::pair<double, double>> hit_read;  // cached_pct -> seq's hit, read
  for (const auto& r : csv.rows)
    if (r.at("plan") == "seq" && r.at("fraction_pct") == "10.00")
      hit_read[r.at("cached_pct")] = {num(r, "shared_hit"), num(r, "shared_read")};
  ASSERT_EQ(hit_read.size(), 3u);
  EXPECT_EQ(hit_read["0"].first, 0);
  EXPECT_EQ(hit_read["100"].second, 0);
  // Half the heap in the pool: half the seq scan's pages are hits.
  const auto [hit, read] = hit_read["50"];
  EXPECT_NEAR(hit / (hit + read), 0.5, 0.01);
  const std::string md = slurp(lab.options().out_dir + "/cached.md");
  EXPECT_NE(md.find("worst regret, prefetch on, 50% cached"), std::string::npos);
}

TEST(Experiments, EicRunsEveryConcurrency) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  ctx.device.known = true;  // the dense query's rate is quoted against it
  ctx.device.seq_direct_mb_s = 1e9;
  Outcome o = run_eic(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/eic.csv");
  for (const char* c : {"config", "variant", "eic", "ms", "mb_per_s", "shared_read", "heap_ms",
                        "heap_read", "heap_mb_per_s"})
    EXPECT_TRUE(csv.has(c)) << c;
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"rows", "config", "leaf_readahead", "variant", "workers",
                                      "eic", "prefetch_limit", "prefetch_in_flight_max", "repeat",
                                      "ms", "shared_hit", "shared_read", "mb_per_s", "heap_ms",
                                      "heap_read", "heap_mb_per_s"}));
  // configs x leaf read-ahead x variants x eics, then the parallel column: 0, 2, 4 workers x eics.
  EXPECT_EQ(csv.rows.size(), 6u * 2u * 2u * 10u + 3u * 10u);
  std::map<std::string, int> by_leaf, by_combine, parallel_workers;
  for (const auto& r : csv.rows) {
    if (r.at("config") == "io_uring direct, 8 kB reads, parallel") {
      ++parallel_workers[r.at("workers")];
      // Each worker count ran the plan it was forced to (explain_analyze checks the top
      // node: Gather, or the serial Bitmap Heap Scan for 0), cold.
      EXPECT_EQ(r.at("max_parallel_workers_per_gather"), r.at("workers"));
      EXPECT_EQ(r.at("io_combine_limit"), "8kB");
      EXPECT_GT(num(r, "ms"), 0);
      EXPECT_GT(num(r, "shared_read"), 0);
      continue;
    }
    EXPECT_EQ(r.at("workers"), "0");
    ++by_leaf[r.at("leaf_readahead")];
    // The 8 kB-read configurations run with io_combine_limit 1, the others at the default.
    const bool small = r.at("config").find(", 8 kB reads") != std::string::npos;
    EXPECT_EQ(r.at("io_combine_limit"), small ? "8kB" : "128kB") << r.at("config");
    ++by_combine[r.at("io_combine_limit")];
    EXPECT_EQ(r.at("leaf_readahead"), r.at("index_leaf_readahead"));  // what was SET
    // The limit the Bitmap Heap Scan's stream ran with, from its Prefetch line.
    if (r.at("config") == "io_uring direct" && num(r, "eic") > 0) {
      EXPECT_GE(num(r, "prefetch_limit"), 1) << r.at("eic");
      EXPECT_LE(num(r, "prefetch_limit"), num(r, "eic"));
      EXPECT_LE(num(r, "prefetch_in_flight_max"), num(r, "prefetch_limit"));
      // Every configuration runs with the handles for eic 256 (io_max_concurrency 256):
      // no point is clamped by them.
      EXPECT_EQ(r.at("io_max_concurrency"), "256");
      EXPECT_EQ(num(r, "prefetch_limit"), num(r, "eic")) << r.at("eic");
    }
  }
  EXPECT_EQ(by_leaf, (std::map<std::string, int>{{"off", 120}, {"on", 120}}));
  EXPECT_EQ(by_combine, (std::map<std::string, int>{{"128kB", 120}, {"8kB", 120}}));
  const std::string md = slurp(lab.options().out_dir + "/eic.md");
  EXPECT_NE(md.find("Against the raw device's sequential direct rate in the device section "
                    "(1000000000 MB/s"),
            std::string::npos);
  EXPECT_NE(md.find("- io_uring direct, leaf read-ahead on: the dense query read "),
            std::string::npos);
  EXPECT_NE(md.find(" MB/s at eic 256 (0%)."), std::string::npos);
  EXPECT_EQ(parallel_workers, (std::map<std::string, int>{{"0", 10}, {"2", 10}, {"4", 10}}));
  EXPECT_NE(md.find("| eic | 0 workers ms | 2 workers ms | 4 workers ms | 2 vs 0 | 4 vs 0 |"),
            std::string::npos)
      << md;
  for (const char* label :
       {"| config | index_leaf_readahead | dense: whole query | dense: heap "
        "share | sparse: whole query | sparse: heap share |",
        "| io_uring direct | on |", "| worker direct | off |",
        "| io_uring direct, 8 kB reads | on |", "| sync buffered (fadvise), 8 kB reads | off |",
        "Whole query, index_leaf_readahead = off, reads combined",
        "Whole query, index_leaf_readahead = on, 8 kB reads",
        "Heap share, index_leaf_readahead = on, 8 kB reads "
        "(io_combine_limit = 1, PostgreSQL 15's shape):"})
    EXPECT_NE(md.find(label), std::string::npos) << label;
  for (const char* side : {"| eic 1 | ", "| eic 64 | ", "`traces/eic-dense-eic-64.json`"})
    EXPECT_NE(md.find(side), std::string::npos) << side;
  EXPECT_EQ(md.find("failed:"), std::string::npos) << md;
  for (const char* png : {"eic_time.png", "eic_mbps.png", "eic_time_8k.png", "eic_mbps_8k.png",
                          "eic-dense-trace.png"})
    EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/" + png)) << png;
  for (const auto& r : csv.rows) {
    if (r.at("config").find(", parallel") != std::string::npos) continue;  // checked above
    EXPECT_GT(num(r, "ms"), 0);
    EXPECT_GT(num(r, "shared_read"), 0);  // cold
    // The heap share is part of the whole: some heap pages, and the index pages besides.
    EXPECT_GT(num(r, "heap_ms"), 0);
    EXPECT_LT(num(r, "heap_ms"), num(r, "ms"));
    EXPECT_GT(num(r, "heap_read"), 0);
    EXPECT_LT(num(r, "heap_read"), num(r, "shared_read"));
  }
}

TEST(Experiments, IndexPrefetchRunsEveryDistanceAndLimit) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  // A device measured with worker only: 4x the reads at depth 16 (and at 64) than at 1.
  ctx.device.known = true;
  ctx.device.medians = {{"worker/1/random/1/iops", 1000.0},
                        {"worker/1/random/16/iops", 4000.0},
                        {"worker/1/random/64/iops", 4000.0}};
  Outcome o = run_index_prefetch(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  // Its claims, one per configuration, in the headline file.
  EXPECT_NE(slurp(lab.options().out_dir + "/index-prefetch.headlines.tsv")
                .find("index prefetching's share of the device's queue-depth gain, worker"),
            std::string::npos);
  Csv csv = load(lab.options().out_dir + "/index-prefetch.csv");
  for (const char* c : {"part", "index_prefetch", "eic", "ms", "limit", "shared_read", "io_method"})
    EXPECT_TRUE(csv.has(c)) << c;
  // The full part's columns come first; "limit" is first seen in the LIMIT part's rows.
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"part", "rows", "leaf_readahead", "index_prefetch", "eic",
                                      "repeat", "ms", "shared_hit", "shared_read"}));
  EXPECT_EQ(csv.header.back(), "limit");
  std::map<std::string, int> full_by_method;
  size_t limit = 0;
  for (const auto& r : csv.rows) {
    EXPECT_GT(num(r, "ms"), 0);
    if (r.at("part") == "full") {
      ++full_by_method[r.at("io_method") + " " + r.at("leaf_readahead")];
      EXPECT_EQ(r.at("leaf_readahead"), r.at("index_leaf_readahead"));
      EXPECT_GT(num(r, "shared_read"), 0);  // cold
    } else {
      ++limit;
      EXPECT_EQ(r.at("io_method"), "worker");
      EXPECT_GE(num(r, "shared_read"), 1);  // the heap is cold before each query
    }
  }
  // Per method and leaf read-ahead: off, then on at 8 distances.
  EXPECT_EQ(full_by_method,
            (std::map<std::string, int>{
                {"io_uring off", 9}, {"io_uring on", 9}, {"worker off", 9}, {"worker on", 9}}));
  EXPECT_EQ(limit, 3u * 6u * 5u);  // modes x limits x queries
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/index_prefetch.png"));
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/index_prefetch_limit.png"));
  // Each configuration's best speed-up against what the device gives at the nearest depth.
  const std::string md = slurp(lab.options().out_dir + "/index-prefetch.md");
  for (const char* leaf : {"off", "on"}) {
    EXPECT_NE(md.find(std::string("- worker, leaf read-ahead ") + leaf), std::string::npos);
    EXPECT_NE(md.find(std::string("- io_uring, leaf read-ahead ") + leaf), std::string::npos);
  }
  // (Which depth depends on the best eic of this tiny, noisy run: 1, 16 or 64.)
  EXPECT_NE(md.find("the raw device, read with worker (direct), does "), std::string::npos) << md;
  EXPECT_TRUE(md.find("x more random reads at depth 16 than at depth 1") != std::string::npos ||
              md.find("x more random reads at depth 64 than at depth 1") != std::string::npos ||
              md.find("1.0x more random reads at depth 1 than at depth 1") != std::string::npos)
      << md;
  EXPECT_NE(md.find("% of that."), std::string::npos);
  EXPECT_NE(md.find("(the raw device was not measured with io_uring)"), std::string::npos);
}

TEST(Experiments, TablesAreReusedUnlessFresh) {
  TempDir dir;
  TableSpec spec{"r",
                 3000,
                 {"CREATE TABLE r (a int, b int) WITH (fillfactor=10)",
                  "INSERT INTO r SELECT g, g FROM generate_series(1, 3000) g",
                  // Statistics span lines: the catalog must still read back.
                  "ANALYZE r"},
                 {}};
  uint32_t oid = 0;
  {
    Lab lab(tiny(dir.path()));
    lab.ensure_table(spec);
    oid = lab.session().catalog().find("r")->oid;
    EXPECT_EQ(lab.session().catalog().find("r")->rows, 3000u);
  }
  {
    Lab lab(tiny(dir.path()));
    lab.ensure_table(spec);  // same definition and rows: reused
    EXPECT_EQ(lab.session().catalog().find("r")->oid, oid);
    TableSpec bigger = spec;
    bigger.rows = 4000;
    bigger.setup[1] = "INSERT INTO r SELECT g, g FROM generate_series(1, 4000) g";
    lab.ensure_table(bigger);  // another row count: rebuilt
    EXPECT_NE(lab.session().catalog().find("r")->oid, oid);
    EXPECT_EQ(lab.session().catalog().find("r")->rows, 4000u);
    oid = lab.session().catalog().find("r")->oid;
  }
  LabOptions fresh = tiny(dir.path());
  fresh.fresh = true;
  Lab lab(fresh);
  TableSpec again = spec;
  again.rows = 4000;
  again.setup[1] = "INSERT INTO r SELECT g, g FROM generate_series(1, 4000) g";
  lab.ensure_table(again);
  EXPECT_NE(lab.session().catalog().find("r")->oid, oid);
}

TEST(Experiments, FailedStepNamesTheStatementAndKeepsTheEnginesMessage) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  try {
    lab.sql("SELECT count(*) FROM nowhere");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "SQL step \"SELECT count(*) FROM nowhere\" failed: relation \"nowhere\" does not "
                 "exist");
  }
}

TEST(Experiments, StopFlagEndsAnExperimentKeepingItsRuns) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  Lab::stop_flag().store(true);
  Outcome o = run_rpc(lab, ctx);
  Lab::stop_flag().store(false);
  EXPECT_EQ(o.status, OutcomeStatus::kStopped);
  EXPECT_EQ(o.runs, 0);
  EXPECT_TRUE(std::filesystem::exists(lab.options().out_dir + "/rpc.md"));
}

// Ctrl-C during the second index configuration: the first one's rows are all there, the
// second keeps its seq scans and no index figures.
TEST(Experiments, StopMidwayKeepsTheRunsAlreadyMeasured) {
  TempDir dir;
  LabOptions options = tiny(dir.path());
  options.repeat = 2;
  options.stop_at_step = "eic=16 index_prefetch=on (run 1)";
  Lab lab(options);
  Context ctx = context_for(lab);
  Outcome o = run_rpc(lab, ctx);
  Lab::stop_flag().store(false);
  EXPECT_EQ(o.status, OutcomeStatus::kStopped);
  Csv csv = load(lab.options().out_dir + "/rpc.csv");
  ASSERT_EQ(csv.rows.size(), 4u);
  EXPECT_EQ(o.runs, 4);
  for (size_t i = 0; i < 4; ++i) {
    const auto& r = csv.rows[i];
    EXPECT_EQ(r.at("index_prefetch"), i < 2 ? "off" : "on");
    EXPECT_EQ(r.at("seq_pages"), std::to_string(kRpcPages));
    if (i < 2) {
      EXPECT_EQ(r.at("index_rows"), std::to_string(kRows));
      EXPECT_GT(num(r, "index_ms"), 0);
    } else {
      EXPECT_EQ(r.at("index_ms"), "");  // stopped before its first index scan
    }
  }
}

TEST(Experiments, ParsesExplainAnalyzeBuffersOutput) {
  ResultSet r;
  for (const char* line :
       {"Index Scan using t_a_idx on t  (cost=0.43..36745682.11 rows=10000012 width=8) (actual "
        "time=0.541..392901.032 rows=10000000 loops=1)",
        "  Buffers: shared hit=342789 read=9684524", "Planning Time: 0.114 ms",
        "Execution Time: 392976.373 ms"})
    r.rows.push_back({line});
  double ms = 0, cost = 0;
  uint64_t hit = 0, read = 0, rows = 0;
  std::string node;
  ASSERT_TRUE(parse_execution_time_ms(r, &ms));
  EXPECT_DOUBLE_EQ(ms, 392976.373);
  ASSERT_TRUE(parse_top_buffers(r, &hit, &read));
  EXPECT_EQ(hit, 342789u);
  EXPECT_EQ(read, 9684524u);
  ASSERT_TRUE(parse_top_plan(r, &node, &cost));
  EXPECT_EQ(node, "Index Scan");
  EXPECT_DOUBLE_EQ(cost, 36745682.11);
  ASSERT_TRUE(parse_top_actual_rows(r, &rows));
  EXPECT_EQ(rows, 10000000u);
  ResultSet seq;
  seq.rows.push_back({"Seq Scan on t  (cost=0.00..554546.12 rows=10000012 width=8)"});
  ASSERT_TRUE(parse_top_plan(seq, &node, &cost));
  EXPECT_EQ(node, "Seq Scan");
  EXPECT_DOUBLE_EQ(cost, 554546.12);
  EXPECT_FALSE(parse_execution_time_ms(seq, &ms));
  EXPECT_FALSE(parse_top_buffers(seq, &hit, &read));
}

TEST(Experiments, ParsesEachPlanNodesOwnActuals) {
  ResultSet r;
  for (const char* line :
       {"Bitmap Heap Scan on test  (cost=4220.21..5522.27 rows=20843 width=8) (actual "
        "time=45.821..51.814 rows=20370 loops=1)",
        "  Heap Blocks: exact=885", "  Buffers: shared hit=5 read=1434",
        "  ->  BitmapOr  (cost=4220.21..4220.21 rows=20853 width=0) (actual time=45.664..45.664 "
        "rows=0 loops=1)",
        "        Buffers: shared hit=5 read=549",
        "        ->  Bitmap Index Scan on test_pkey  (cost=0.00..5.37 rows=95 width=0) (actual "
        "time=0.046..0.046 rows=91 loops=1)",
        "              Index Cond: ((major >= 10) AND (major <= 100))",
        "        ->  Bitmap Index Scan on minor_idx  (cost=0.00..4204.42 rows=20758 width=0) "
        "(actual time=45.311..45.311 rows=20288 loops=1)",
        "              Buffers: shared hit=1 read=549", "Execution Time: 52.350 ms"})
    r.rows.push_back({line});
  NodeActuals n;
  ASSERT_TRUE(parse_node_actuals(r, 0, &n));
  EXPECT_DOUBLE_EQ(n.total_ms, 51.814);
  EXPECT_EQ(n.shared_hit, 5u);
  EXPECT_EQ(n.shared_read, 1434u);
  ASSERT_TRUE(parse_node_actuals(r, 1, &n));
  EXPECT_DOUBLE_EQ(n.total_ms, 45.664);
  EXPECT_EQ(n.shared_read, 549u);
  // A node without a Buffers line (all hits zero) reports zeros, not its child's line.
  ASSERT_TRUE(parse_node_actuals(r, 2, &n));
  EXPECT_DOUBLE_EQ(n.total_ms, 0.046);
  EXPECT_EQ(n.shared_read, 0u);
  ASSERT_TRUE(parse_node_actuals(r, 3, &n));
  EXPECT_EQ(n.shared_hit, 1u);
  EXPECT_FALSE(parse_node_actuals(r, 4, &n));
}

TEST(Experiments, CsvRoundTripsQuotesAndMissingColumns) {
  TempDir dir;
  CsvFile csv(dir.path() + "/x.csv");
  csv.add({{"a", "1"}, {"b", "say \"hi\", twice"}});
  csv.add({{"a", "2"}, {"c", "x"}});
  auto rows = read_csv(csv.path());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "say \"hi\", twice", ""}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"2", "", "x"}));
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_EQ(spread({4, 1, 2, 3}), 3);
  EXPECT_EQ(grouped(454546), "454,546");
}

TEST(Experiments, CommandRejectsBadArgumentsAndRunsAll) {
  TempDir dir;
  EXPECT_EQ(run_experiment_command({"nosuch"}), 2);
  EXPECT_EQ(run_experiment_command({"rpc", "--rows", "ten"}), 2);
  EXPECT_EQ(run_experiment_command({"rpc", "--repeat"}), 2);
  EXPECT_EQ(run_experiment_command({"prefetch-suite", "--suite-warm-ms", "0"}), 2);
  EXPECT_EQ(run_experiment_command({"prefetch-suite", "--suite-rounds", "101"}), 2);
  // A bad --set is refused before anything runs: no data directory, no results.
  const std::string bad = dir.path() + "/bad";
  EXPECT_EQ(run_experiment_command({"rpc", "--set", "io_method=bogus", "--data", bad + "/data",
                                    "--out", bad + "/out"}),
            2);
  EXPECT_FALSE(std::filesystem::exists(bad));
  const std::string out = dir.path() + "/out";
  int status = run_experiment_command(
      {"all", "--rows", "1000", "--repeat", "1", "--out", out, "--quiet", "--device-seconds",
       "0.02", "--device-file-mb", "8", "--table-mb", "1", "--prefetch-rows", "2000",
       "--suite-rounds", "1", "--suite-warm-ms", "2", "--suite-random", "2", "--set",
       "parallel_setup_cost=0", "--set", "parallel_tuple_cost=0",
       // `all` calibrates first: here at a tiny size.
       "--calibrate-option", "--seconds", "--calibrate-option", "0.02", "--calibrate-option",
       "--methods", "--calibrate-option", "sync", "--calibrate-option", "--depths",
       "--calibrate-option", "1,4", "--calibrate-option", "--cpu-trials", "--calibrate-option", "1",
       "--calibrate-option", "--scratch-rows", "--calibrate-option", "20000"});
  EXPECT_EQ(status, 0);
  std::string report = slurp(out + "/REPORT.md");
  // Calibrated by this invocation, said at the top; then the headline check with a line
  // per claim (held or not: this scale is far too small to say).
  EXPECT_NE(slurp(out + "/data/tidepool.conf").find("# BEGIN tidepool calibrate ("),
            std::string::npos);
  EXPECT_NE(report.find("priced with this machine's figures: `tidepool calibrate` of "),
            std::string::npos);
  EXPECT_NE(report.find("(run by this invocation)"), std::string::npos);
  const size_t check = report.find("## Headline check");
  ASSERT_NE(check, std::string::npos);
  EXPECT_LT(check, report.find("## Contents"));
  EXPECT_NE(report_excerpt(report).find("### Headline check\n\nThe prefetch-aware cost model"),
            std::string::npos);  // the README shows it too
  for (const char* claim :
       {"| rpc | random_page_cost estimate per read",
        "| selectivity | prefetch_aware's worst regret, prefetch off, cold",
        "| cached | prefetch_aware's worst regret, prefetch on, 50% cached",
        "| eic | eic 1 -> 256 speed-up, dense query, io_uring direct, 8 kB reads",
        "| iomethod | with worker or io_uring, a scan without parallel workers",
        "| index-prefetch | index prefetching's share of the device's queue-depth gain, worker, "
        "leaf read-ahead on"})
    EXPECT_NE(report.find(claim), std::string::npos) << claim;
  // Every section says how busy the machine was; every CSV row carries it.
  EXPECT_NE(report.find("Machine load while it measured ("), std::string::npos);
  const auto rows = read_csv(out + "/eic.csv");
  ASSERT_GE(rows.size(), 2u);
  for (const char* column : {"load_avg_1m", "other_cpu_pct", "steal_pct", "machine_busy"})
    EXPECT_NE(std::find(rows[0].begin(), rows[0].end(), column), rows[0].end()) << column;
  for (const char* section :
       {"## device", "## rpc", "## selectivity", "## cached", "## eic", "## iomethod",
        "## index-prefetch", "## policies", "## limit", "## prefetch-suite"})
    EXPECT_NE(report.find(section), std::string::npos) << section;
  EXPECT_NE(report.find("![random reads by depth](device.png)"), std::string::npos);
  EXPECT_EQ(report.find("Not measured: "), std::string::npos);
  for (const char* status_line : {"Status: **complete**, 4 runs in `rpc.csv`.",
                                  "Status: **complete**, 108 runs in `selectivity.csv`.",
                                  "Status: **complete**, 81 runs in `cached.csv`.",
                                  "Status: **complete**, 270 runs in `eic.csv`.",
                                  "Status: **complete**, 56 runs in `iomethod.csv`.",
                                  "Status: **complete**, 126 runs in `index-prefetch.csv`."})
    EXPECT_NE(report.find(status_line), std::string::npos) << status_line;
  // The device's run count depends on the I/O methods this machine can start.
  EXPECT_NE(report.find("Status: **complete**"), std::string::npos);
  size_t complete = 0;
  for (size_t at = report.find("Status: **complete**"); at != std::string::npos;
       at = report.find("Status: **complete**", at + 1))
    ++complete;
  EXPECT_EQ(complete, 10u);
}

// An experiment that records two rows and then fails: the skeleton keeps the rows,
// names the failure in the outcome and still writes the section.
class TwoRowsThenFails : public Experiment {
 public:
  TwoRowsThenFails() : Experiment("fake") {}
  int steps(const Lab&) const override { return 2; }
  void set_up(Lab&, Context&, Progress& progress) override { progress.step("set up"); }
  void measure(Lab&, Context&, Progress& progress, Recorder& record) override {
    progress.step("measure");
    record.add_without_settings({{"x", "1"}});
    record.add_without_settings({{"x", "2"}});
    throw Error("step three failed");
  }
  std::string report(Lab&, Context&, const Outcome& outcome) override {
    ++reports;
    return "## fake\n\n" + section_status(outcome);
  }
  int reports = 0;
};

TEST(Experiments, SkeletonKeepsRowsAndReportsAFailedStep) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  Context ctx = context_for(lab);
  TwoRowsThenFails fake;
  Outcome o = run_experiment(fake, lab, ctx);
  EXPECT_EQ(o.status, OutcomeStatus::kIncomplete);
  EXPECT_EQ(o.error, "step three failed");
  EXPECT_EQ(o.runs, 2);
  EXPECT_EQ(fake.reports, 1);
  Csv csv = load(lab.options().out_dir + "/fake.csv");
  EXPECT_EQ(own_columns(csv), std::vector<std::string>{"x"});
  EXPECT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(slurp(lab.options().out_dir + "/fake.md"),
            "## fake\n\nStatus: **incomplete**, 2 runs in `fake.csv`.\n\n> Not measured: step "
            "three failed\n\n");
}

// explain_analyze: the figures of the top node, and an error naming the step when the plan
// or the row count is not the one asked for.
TEST(Experiments, ExplainAnalyzeChecksTheTopNodeAndTheRowCount) {
  TempDir dir;
  Lab lab(tiny(dir.path()));
  lab.ensure_table({"r",
                    3000,
                    {"CREATE TABLE r (a int, b int) WITH (fillfactor=10)",
                     "INSERT INTO r SELECT g, g FROM generate_series(1, 3000) g"},
                    {}});
  lab.make_cold({"r"});
  Timed t = explain_analyze(lab, "SELECT * FROM r", {"Seq Scan", 3000}, "test: seq scan");
  EXPECT_GT(t.execution_ms, 0);
  EXPECT_EQ(t.shared_hit + t.shared_read, 137u);  // 3,000 rows at 22 a page
  EXPECT_EQ(t.shared_read, 137u);                 // cold
  try {
    explain_analyze(lab, "SELECT * FROM r", {"Index Scan", {}}, "test: index scan");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "test: index scan: expected an Index Scan, the planner chose \"Seq Scan\"");
  }
  try {
    explain_analyze(lab, "SELECT * FROM r", {"Seq Scan", 5}, "test: seq scan");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "test: seq scan returned 3000 rows, expected 5");
  }
  PlanChoice plan = explain_plan(lab, "SELECT * FROM r", "test");
  EXPECT_EQ(plan.node, "Seq Scan");
  EXPECT_GT(plan.total_cost, 0);
}

}  // namespace
}  // namespace tp::experiments
