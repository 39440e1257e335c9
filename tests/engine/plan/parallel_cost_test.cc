// PostgreSQL 15's parallel arithmetic: the worker count (compute_parallel_worker), the
// parallel divisor, Parallel Seq Scan and Gather costs, aggregate costs by AggSplit, and
// add_path's fuzzy comparison and its dominance rule among paths of one order, Gather
// Merge's cost. Figures marked PG15 are what PostgreSQL 15.18 printed for
// p1 (30,000 rows, 1,667 pages; pg15/p1_setup.sql, pg15/p1_explain.sql).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/plan/agg_cost.h"
#include "engine/plan/parallel_cost.h"

namespace tp {
namespace {

using scans::AggKind;

std::string explain(const PathCost& c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "cost=%.2f..%.2f rows=%.0f", c.startup, c.total, c.rows);
  return buf;
}

const RelSize kP1{.pages = 1667, .tuples = 30000, .rows = 30000};

TEST(ParallelWorkers, LogBaseThreeOfTheTableSize) {
  // 8MB = 1,024 pages: below it no worker; then one more worker per tripling.
  EXPECT_EQ(compute_parallel_worker(1023, -1, 1024, 1024), 0);
  EXPECT_EQ(compute_parallel_worker(1024, -1, 1024, 1024), 1);
  EXPECT_EQ(compute_parallel_worker(3071, -1, 1024, 1024), 1);
  EXPECT_EQ(compute_parallel_worker(3072, -1, 1024, 1024), 2);
  EXPECT_EQ(compute_parallel_worker(9215, -1, 1024, 1024), 2);
  EXPECT_EQ(compute_parallel_worker(9216, -1, 1024, 1024), 3);
  EXPECT_EQ(compute_parallel_worker(454546, -1, 1024, 1024), 6);  // the 10 M-row table
  // max_parallel_workers_per_gather caps it.
  EXPECT_EQ(compute_parallel_worker(454546, -1, 1024, 2), 2);
  EXPECT_EQ(compute_parallel_worker(454546, -1, 1024, 0), 0);
  // min_parallel_table_scan_size = 0 counts from one page.
  EXPECT_EQ(compute_parallel_worker(2, -1, 0, 1024), 1);
  EXPECT_EQ(compute_parallel_worker(3, -1, 0, 1024), 2);
  // The threshold stops growing before it overflows an int.
  EXPECT_EQ(compute_parallel_worker(4e9, -1, 715827882, 1024), 2);
}

TEST(ParallelWorkers, TheReloptionOverridesTheSizeRule) {
  EXPECT_EQ(compute_parallel_worker(945, 2, 1024, 2), 2);   // a table under 8MB
  EXPECT_EQ(compute_parallel_worker(1667, 8, 1024, 2), 2);  // capped by the per-Gather limit
  EXPECT_EQ(compute_parallel_worker(1667, 8, 1024, 8), 8);
  EXPECT_EQ(compute_parallel_worker(1e6, 0, 1024, 8), 0);  // 0: never parallel
}

TEST(ParallelDivisor, TheLeaderTakesWhatTheWorkersLeave) {
  EXPECT_DOUBLE_EQ(parallel_divisor(1, true), 1.7);
  EXPECT_DOUBLE_EQ(parallel_divisor(2, true), 2.4);
  EXPECT_NEAR(parallel_divisor(3, true), 3.1, 1e-12);
  EXPECT_DOUBLE_EQ(parallel_divisor(4, true), 4.0);  // 1 - 1.2 < 0: no leader share
  EXPECT_DOUBLE_EQ(parallel_divisor(8, true), 8.0);
  EXPECT_DOUBLE_EQ(parallel_divisor(1, false), 1.0);
  EXPECT_DOUBLE_EQ(parallel_divisor(2, false), 2.0);
}

// PG15: Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=8)      1 worker
//       Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=8824 width=0)       b < 500
//       Parallel Seq Scan on p1  (cost=0.00..1792.00 rows=12500 width=8)      2 workers
//       Parallel Seq Scan on p1  (cost=0.00..1742.00 rows=7500 width=8)       4 workers
TEST(ParallelSeqScan, CpuDividedDiskNot) {
  CostSettings cs;
  EXPECT_EQ(explain(cost_parallel_seq_scan(cs, kP1, {}, parallel_divisor(1, true))),
            "cost=0.00..1843.47 rows=17647");
  RelSize half = kP1;
  half.rows = 15000;
  EXPECT_EQ(explain(cost_parallel_seq_scan(cs, half, {0, 0.0025}, parallel_divisor(1, true))),
            "cost=0.00..1887.59 rows=8824");
  EXPECT_EQ(explain(cost_parallel_seq_scan(cs, kP1, {}, parallel_divisor(2, true))),
            "cost=0.00..1792.00 rows=12500");
  EXPECT_EQ(explain(cost_parallel_seq_scan(cs, kP1, {}, parallel_divisor(4, true))),
            "cost=0.00..1742.00 rows=7500");
}

// PG15 (parallel_setup_cost = 10):
//   Gather  (cost=10.00..1927.89 rows=303 width=4)
//     ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)   Filter: (b < 10)
TEST(Gather, SetupAtStartupAndACostPerRow) {
  CostSettings cs;
  cs.parallel_setup_cost = 10;
  RelSize rel = kP1;
  rel.rows = 303;
  PathCost scan = cost_parallel_seq_scan(cs, rel, {0, 0.0025}, parallel_divisor(1, true));
  EXPECT_EQ(explain(scan), "cost=0.00..1887.59 rows=178");
  EXPECT_EQ(explain(cost_gather(cs, scan, rel.rows)), "cost=10.00..1927.89 rows=303");
  cs.parallel_setup_cost = 1000;
  EXPECT_EQ(explain(cost_gather(cs, scan, rel.rows)), "cost=1000.00..2917.89 rows=303");
}

// The three stages of an aggregate over a parallel scan, with Gather's rows = workers.
struct AggPlan {
  PathCost partial, gather, final_agg;
};
AggPlan parallel_agg(const CostSettings& cs, const std::vector<AggCall>& calls, int workers,
                     const RelSize& rel = kP1, QualCost quals = {}) {
  PathCost scan = cost_parallel_seq_scan(cs, rel, quals, parallel_divisor(workers, true));
  AggPlan p;
  p.partial = cost_plain_agg(cs, scan, agg_clause_costs(cs, calls, AggSplit::kInitialSerial));
  p.gather = cost_gather(cs, p.partial, p.partial.rows * workers);
  p.final_agg = cost_plain_agg(cs, p.gather, agg_clause_costs(cs, calls, AggSplit::kFinalDeserial));
  return p;
}

const std::vector<AggCall> kSumCountAvg = {{AggKind::kSum, 0, ColumnType::kInt4},
                                           {AggKind::kCountStar, -1, ColumnType::kInt8},
                                           {AggKind::kAvg, 1, ColumnType::kInt4}};

// PG15, select sum(a), count(*), avg(b) from p1:
//   Aggregate  (cost=2192.00..2192.01 rows=1 width=48)          (defaults: serial)
//   with parallel_setup_cost = 0:
//   Finalize Aggregate  (cost=1975.94..1975.95 rows=1 width=48)
//     ->  Gather  (cost=1975.82..1975.93 rows=1 width=48)
//           ->  Partial Aggregate  (cost=1975.82..1975.83 rows=1 width=48)
//   with max_parallel_workers_per_gather = 4, parallel_workers = 4, parallel_setup_cost = 10:
//   Finalize Aggregate  (cost=1808.69..1808.70 rows=1 width=48)
//     ->  Gather  (cost=1808.25..1808.66 rows=4 width=48)
//           ->  Partial Aggregate  (cost=1798.25..1798.26 rows=1 width=48)
TEST(AggCost, SumCountAvgSerialAndParallel) {
  CostSettings cs;
  PathCost serial = cost_plain_agg(cs, cost_seq_scan(cs, kP1, {}),
                                   agg_clause_costs(cs, kSumCountAvg, AggSplit::kSimple));
  EXPECT_EQ(explain(serial), "cost=2192.00..2192.01 rows=1");
  cs.parallel_setup_cost = 0;
  AggPlan one = parallel_agg(cs, kSumCountAvg, 1);
  EXPECT_EQ(explain(one.partial), "cost=1975.82..1975.83 rows=1");
  EXPECT_EQ(explain(one.gather), "cost=1975.82..1975.93 rows=1");
  EXPECT_EQ(explain(one.final_agg), "cost=1975.94..1975.95 rows=1");
  cs.parallel_setup_cost = 10;
  AggPlan four = parallel_agg(cs, kSumCountAvg, 4);
  EXPECT_EQ(explain(four.partial), "cost=1798.25..1798.26 rows=1");
  EXPECT_EQ(explain(four.gather), "cost=1808.25..1808.66 rows=4");
  EXPECT_EQ(explain(four.final_agg), "cost=1808.69..1808.70 rows=1");
  EXPECT_EQ(partial_agg_width(kSumCountAvg), 48);  // int8 + int8 + _int8 (32)
}

// PG15 (parallel_setup_cost = 10), select sum(c), avg(c) from p1, c bigint: one shared
// transition (int8_avg_accum) per row, serialized once, deserialized and combined once
// per partial row, two final functions.
//   Finalize Aggregate  (cost=1897.71..1897.72 rows=1 width=64)
//     ->  Gather  (cost=1897.59..1897.70 rows=1 width=64)
//           ->  Partial Aggregate  (cost=1887.59..1887.60 rows=1 width=64)
TEST(AggCost, BigintSumAndAvgShareOneInternalState) {
  CostSettings cs;
  cs.parallel_setup_cost = 10;
  std::vector<AggCall> calls = {{AggKind::kSum, 2, ColumnType::kInt8},
                                {AggKind::kAvg, 2, ColumnType::kInt8}};
  AggPlan p = parallel_agg(cs, calls, 1);
  EXPECT_EQ(explain(p.partial), "cost=1887.59..1887.60 rows=1");
  EXPECT_EQ(explain(p.gather), "cost=1897.59..1897.70 rows=1");
  EXPECT_EQ(explain(p.final_agg), "cost=1897.71..1897.72 rows=1");
  EXPECT_EQ(partial_agg_width(calls), 64);  // two serialized states (bytea, 32 each)
  AggClauseCosts simple = agg_clause_costs(cs, calls, AggSplit::kSimple);
  EXPECT_DOUBLE_EQ(simple.trans.per_tuple, 0.0025);      // one shared transition
  EXPECT_DOUBLE_EQ(simple.final_cost.per_tuple, 0.005);  // numeric_poly_sum, numeric_poly_avg
}

// PG15 (parallel_setup_cost = 10), select min(a), max(c), count(b) from p1:
//   Finalize Aggregate  (cost=1985.94..1985.95 rows=1 width=20)
//     ->  Gather  (cost=1985.82..1985.93 rows=1 width=20)
//           ->  Partial Aggregate  (cost=1975.82..1975.83 rows=1 width=20)
TEST(AggCost, MinMaxCount) {
  CostSettings cs;
  cs.parallel_setup_cost = 10;
  std::vector<AggCall> calls = {{AggKind::kMin, 0, ColumnType::kInt4},
                                {AggKind::kMax, 2, ColumnType::kInt8},
                                {AggKind::kCount, 1, ColumnType::kInt4}};
  AggPlan p = parallel_agg(cs, calls, 1);
  EXPECT_EQ(explain(p.partial), "cost=1975.82..1975.83 rows=1");
  EXPECT_EQ(explain(p.gather), "cost=1985.82..1985.93 rows=1");
  EXPECT_EQ(explain(p.final_agg), "cost=1985.94..1985.95 rows=1");
  EXPECT_EQ(partial_agg_width(calls), 20);  // int4 + int8 + int8
}

TEST(AggCost, IdenticalAggregatesAreComputedOnce) {
  CostSettings cs;
  std::vector<AggCall> twice = {{AggKind::kAvg, 0, ColumnType::kInt4},
                                {AggKind::kAvg, 0, ColumnType::kInt4}};
  AggClauseCosts c = agg_clause_costs(cs, twice, AggSplit::kSimple);
  EXPECT_DOUBLE_EQ(c.trans.per_tuple, 0.0025);
  EXPECT_DOUBLE_EQ(c.final_cost.per_tuple, 0.0025);
  EXPECT_EQ(partial_agg_width(twice), 32);
  // Different transition functions over one column do not share: sum(int4) and avg(int4).
  std::vector<AggCall> two = {{AggKind::kSum, 0, ColumnType::kInt4},
                              {AggKind::kAvg, 0, ColumnType::kInt4}};
  EXPECT_DOUBLE_EQ(agg_clause_costs(cs, two, AggSplit::kSimple).trans.per_tuple, 0.005);
}

TEST(FuzzyCompare, OnePercentDecides) {
  PathCost seq{0, 1000, 100}, gather{500, 989, 100};
  EXPECT_EQ(compare_path_costs_fuzzily(gather, seq, false), FuzzyCompare::kNewBetter);
  EXPECT_TRUE(parallel_path_survives(gather, seq, false));
  // Within 1% on total: the better startup wins, and a tie keeps the serial path.
  PathCost close{500, 995, 100};
  EXPECT_EQ(compare_path_costs_fuzzily(close, seq, false), FuzzyCompare::kOldBetter);
  EXPECT_FALSE(parallel_path_survives(close, seq, false));
  EXPECT_EQ(compare_path_costs_fuzzily(PathCost{0, 995, 1}, seq, false), FuzzyCompare::kEqual);
  EXPECT_FALSE(parallel_path_survives(PathCost{0, 995, 1}, seq, false));
  // Worse on total but better at startup: both kept only when startup counts (LIMIT).
  EXPECT_EQ(compare_path_costs_fuzzily(PathCost{10, 2000, 1}, PathCost{500, 1000, 1}, true),
            FuzzyCompare::kDifferent);
  EXPECT_EQ(compare_path_costs_fuzzily(PathCost{10, 2000, 1}, PathCost{500, 1000, 1}, false),
            FuzzyCompare::kOldBetter);
}

TEST(GatherMerge, HeapComparisonsSetupAndAPerRowCost) {
  CostSettings cs;
  cs.parallel_setup_cost = 10;
  // PG15: `select a from p1 where b < 10 order by a`: Sort (cost=1894.24..1894.69 rows=178),
  // Gather Merge (cost=1904.25..1924.72 rows=178 width=4), one worker.
  // (The Sort's figures are rounded: within a cent.)
  PathCost sort{1894.24, 1894.69, 178};
  PathCost gm = cost_gather_merge(cs, sort, 178, 1, false);
  EXPECT_NEAR(gm.startup, 1904.25, 0.01);
  EXPECT_NEAR(gm.total, 1924.72, 0.01);
  EXPECT_EQ(gm.rows, 178);
  // PG15, four workers without the leader: N = 5 inputs all the same (the leader
  // counted though it does not run), log2(5) comparisons per row; rows 303, the
  // relation's.
  PathCost sort4{1763.12, 1763.31, 76};
  EXPECT_EQ(explain(cost_gather_merge(cs, sort4, 303, 4, false)), "cost=1773.18..1809.46 rows=303");
  PathCost off = cost_gather_merge(cs, sort, 178, 1, true);  // enable_gathermerge = off
  EXPECT_NEAR(off.startup - kDisableCost, 1904.25, 0.01);
  EXPECT_NEAR(off.total - kDisableCost, 1924.72, 0.01);
}

TEST(AddPath, SameOrderDominance) {
  // Fuzzily equal: the parallel-safe one stays, whichever came first.
  std::vector<RelPath> kept;
  add_same_order_path(kept, {{0, 1000, 300}, true, 1}, false);
  add_same_order_path(kept, {{0, 995, 300}, false, 2}, false);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, 1);
  // Both parallel-unsafe and fuzzily equal: fewer rows wins.
  kept.clear();
  add_same_order_path(kept, {{10, 1000, 303}, false, 1}, false);
  add_same_order_path(kept, {{10, 1005, 178}, false, 2}, false);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, 2);
  // Cheaper by more than 1% but returning more rows: both kept.
  add_same_order_path(kept, {{10, 900, 300}, false, 3}, false);
  EXPECT_EQ(kept.size(), 2u);
  // Dearer in total but cheaper to start under a LIMIT: both kept.
  kept.clear();
  add_same_order_path(kept, {{500, 1000, 100}, true, 1}, true);
  add_same_order_path(kept, {{0, 2000, 100}, true, 2}, true);
  EXPECT_EQ(kept.size(), 2u);
}

}  // namespace
}  // namespace tp
