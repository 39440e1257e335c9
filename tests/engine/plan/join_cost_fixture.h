// The fixture of join_cost_test.cc, join_cost_merge_test.cc and group_cost_test.cc:
// join_cost.h's functions against EXPLAIN of a real PostgreSQL 15.20 (Debian
// 15.20-0+deb12u1). Every case names the SQL and settings that printed it; the inputs
// are the child nodes' figures, exact where EXPLAIN rounds them (a seq scan is pages +
// 0.01 * rows, a sort is cost_sort's, an index scan cost_model.h's cost_index_scan, which
// prints PostgreSQL's figure), and the expected values are the join or aggregate node's
// printed costs, within the half cent EXPLAIN rounds to.
//
// The tables, each VACUUM ANALYZE'd (default statistics target, all pages all-visible):
//   CREATE TABLE s (id int, v int);              -- 1,000 rows: i, i % 10          5 pages
//   CREATE TABLE b (id int PRIMARY KEY, g int);  -- 10,000 rows: i, i % 100       45 pages
//   CREATE TABLE a (id int PRIMARY KEY, x int, y int, z int);   -- 100,000 rows:  541 pages
//     i, i % 1000 + 1, i % 20000 + 1, i % 2000 + 1              (a_pkey 276 pages, b_pkey 30)
//   CREATE TABLE o (k int);                      -- 20,000 rows: 5001..25000      89 pages
//   CREATE TABLE m (k int, pad int);             -- 5,000 rows: 1, i              23 pages
//   CREATE TABLE d (k int, v int); CREATE INDEX d_k ON d (k);   -- 20,000 rows: i % 1000, i
//                                                               89 pages (d_k 21)
//   CREATE TABLE e (k int, w int); CREATE INDEX e_k ON e (k);   -- 40,000 rows: i % 2000, i
//                                                               177 pages (e_k 40)
// (i from generate_series(1, rows); every B-tree has one level above its leaves.)
// pg_stats: unique columns n_distinct -1 without MCVs; a.x 1,000 distinct (6 MCVs),
// a.y 19,963, a.z 2,000 (8 MCVs), d.k 1,000 and e.k 2,000 (MCVs), m.k one value of
// frequency 1.
//
// The selectivity inputs are worked out in each comment the way the planner does:
//   * join selectivity (eqjoinsel) without MCVs on both sides: 1 / max(nd1, nd2);
//   * semi-join selectivity (eqjoinsel_semi, the same without both MCV lists): 1 when
//     nd(outer) <= nd(inner), else nd(inner) / nd(outer);
//   * SemiAntiFactors (compute_semi_anti_join_factors): outer_match_frac = that
//     selectivity under the SpecialJoinInfo's join type, so for an inner or left join
//     with inner_unique it is the inner-join selectivity; match_count = max(1,
//     inner-join selectivity * inner rows / outer_match_frac);
//   * mergejoinscansel from pg_stats' histograms (scalarineqsel; columns without an
//     index clamp a histogram fraction to at least 0.01 / 100 buckets = 1e-4).
#pragma once

#include <gtest/gtest.h>

#include "engine/plan/join_cost.h"

namespace tp::join_cost_fixture {

inline const CostSettings kDefaults;

inline CostSettings with_work_mem(int64_t kb) {
  CostSettings cs;
  cs.work_mem_kb = kb;
  return cs;
}

// EXPLAIN prints two decimals: the true value is within half a cent of them. (A value
// on the half cent rounds either way with its last bits: PostgreSQL's 0.285 index
// startup prints 0.29, the double nearest 0.285 prints 0.28.)
inline constexpr double kHalfCent = 0.005 + 1e-9;
inline void expect_cost(const PathCost& c, double startup, double total) {
  EXPECT_NEAR(c.startup, startup, kHalfCent);
  EXPECT_NEAR(c.total, total, kHalfCent);
}

// Seq Scans (pages + cpu_tuple_cost per row) and index scans of the fixture.
inline const PathCost kSeqS{0, 15, 1000}, kSeqB{0, 145, 10000}, kSeqO{0, 289, 20000};
inline const PathCost kSeqA{0, 1541, 100000}, kSeqM{0, 73, 5000}, kSeqD{0, 289, 20000};
// Index Scan using b_pkey, whole index: 0.29..318.29 (correlation 1).
inline const PathCost kIndexB{0.285, 318.285, 10000};
// Index Scan using d_k, whole index, correlation 0.05069775: 0.29..739.61.
inline const PathCost kIndexD{0.2875, 739.608950834, 20000};

}  // namespace tp::join_cost_fixture
