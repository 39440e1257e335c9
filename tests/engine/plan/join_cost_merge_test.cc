// Merge joins (join_cost.h) against PostgreSQL 15's EXPLAIN: the tables, the inputs and
// how the scan fractions were worked out from the histograms are join_cost_fixture.h's.
#include "engine/plan/join_cost.h"

#include <gtest/gtest.h>

#include "tests/engine/plan/join_cost_fixture.h"

namespace tp {
namespace {

using namespace join_cost_fixture;  // NOLINT(google-build-using-namespace)

// --- Merge joins --------------------------------------------------------------------

// EXPLAIN SELECT * FROM s JOIN b ON s.id = b.id;
//   Merge Join  (cost=65.11..114.41 rows=1000 width=16)
//     Merge Cond: (b.id = s.id)
//     ->  Index Scan using b_pkey on b  (cost=0.29..318.29 rows=10000 width=8)
//     ->  Sort  (cost=64.83..67.33 rows=1000 width=8)
//           ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
// mergejoinscansel: b.id <= max(s.id) = 1000 is 10 of b's 100 histogram buckets, so the
// merge stops after a tenth of b; s.id < 1 is clamped to 1e-4, rint(0.1) = no row.
TEST(MergeJoinCost, MergeJoinStopsWhenTheShorterSideEnds) {
  const MergeJoinInput in{.outer = {kIndexB, 8},
                          .inner = {kSeqS, 8},
                          .sort_inner = true,
                          .scan = {.outer_end = 0.1, .inner_start = 1e-4},
                          .merge_quals = {0, 0.0025},
                          .join_quals = {0, 0.0025},
                          .mergejoin_tuples = 1000,
                          .rows = 1000};
  const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(ws.inner_sort, 64.83, 67.33);
  EXPECT_EQ(ws.outer_rows, 1000);
  EXPECT_EQ(ws.inner_skip_rows, 0);
  const MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_FALSE(c.materialize_inner);
  expect_cost(c.path, 65.11, 114.41);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM a JOIN b ON a.x = b.id;
//   Merge Join  (cost=9846.16..11380.41 rows=100000 width=24)
//     Merge Cond: (b.id = a.x)
//     ->  Index Scan using b_pkey on b  (cost=0.29..318.29 rows=10000 width=8)
//     ->  Sort  (cost=9845.82..10095.82 rows=100000 width=16)   Sort Key: a.x
// b.id <= max(a.x) = 1000: a tenth of b. a.x < min(b.id) = 1 is the clamp 1e-4 times
// the non-MCV share (1 - 0.0087): 9.913e-5, ten rows skipped before the first match
// (b.id's end is an index's actual minimum, 0). Join selectivity 1/10000.
// EXPLAIN SELECT * FROM a LEFT JOIN b ON b.id = a.x gives the same inputs as a
// Merge Right Join (a's rows all read): cost=9846.11..11380.41; FULL JOIN reads both
// whole: Merge Full Join (cost=9846.11..11689.11).
TEST(MergeJoinCost, MergeJoinSkipsInnerRowsBeforeTheFirstMatch) {
  MergeJoinInput in{.outer = {kIndexB, 8},
                    .inner = {kSeqA, 16},
                    .sort_inner = true,
                    .scan = {.outer_end = 0.1, .inner_start = 9.913e-5},
                    .merge_quals = {0, 0.0025},
                    .join_quals = {0, 0.0025},
                    .mergejoin_tuples = 100000,
                    .rows = 100000};
  MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(ws.inner_sort, 9845.82, 10095.82);
  EXPECT_EQ(ws.inner_skip_rows, 10);
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 9846.16, 11380.41);
  in.kind = JoinKind::kRight;
  ws = initial_cost_mergejoin(kDefaults, in);
  EXPECT_EQ(ws.inner_skip_rows, 0);
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 9846.11, 11380.41);
  in.kind = JoinKind::kFull;
  ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 9846.11, 11689.11);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM a JOIN o ON a.y = o.k;
//   Merge Join  (cost=11688.44..13138.59 rows=100000 width=20)
//     Merge Cond: (o.k = a.y)
//     ->  Sort  (cost=1717.77..1767.77 rows=20000 width=4)    Sort Key: o.k
//     ->  Sort  (cost=9845.82..10095.82 rows=100000 width=16)  Sort Key: a.y
// From the histograms: o.k <= max(a.y) = 20000 is 0.75 of o (its bounds step by 200);
// a.y < min(o.k) = 5001 falls in a.y's bucket 5006 / 4806 bucket 25, 0.2496999.
// ... AND a.x < o.k adds a Join Filter: (cost=11688.44..13388.59 rows=33333).
// SET work_mem = '64kB': the Sorts spill, and a spilling inner Sort gets a Materialize:
//   Merge Join  (cost=17375.94..19076.09 rows=100000 width=20)
//     ->  Sort  (cost=2270.77..2320.77 rows=20000 width=4)
//     ->  Materialize  (cost=14980.32..15480.32 rows=100000 width=16)
//           ->  Sort  (cost=14980.32..15230.32 rows=100000 width=16)
TEST(MergeJoinCost, MergeJoinOfTwoSorts) {
  MergeJoinInput in{.outer = {kSeqO, 4},
                    .inner = {kSeqA, 16},
                    .sort_outer = true,
                    .sort_inner = true,
                    .scan = {.outer_end = 0.75, .inner_start = 0.2496999},
                    .merge_quals = {0, 0.0025},
                    .join_quals = {0, 0.0025},
                    .mergejoin_tuples = 100000,
                    .rows = 100000};
  MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(ws.outer_sort, 1717.77, 1767.77);
  EXPECT_EQ(ws.outer_rows, 15000);
  EXPECT_EQ(ws.inner_skip_rows, 24970);
  MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_FALSE(c.materialize_inner);
  expect_cost(c.path, 11688.44, 13138.59);

  in.join_quals = {0, 0.005};
  in.rows = 33333;
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 11688.44, 13388.59);

  const CostSettings cs = with_work_mem(64);
  in.join_quals = {0, 0.0025};
  in.rows = 100000;
  ws = initial_cost_mergejoin(cs, in);
  expect_cost(ws.inner_sort, 14980.32, 15230.32);
  c = final_cost_mergejoin(cs, in, ws);
  EXPECT_TRUE(c.materialize_inner);
  expect_cost(mergejoin_inner_material(cs, ws.inner_sort), 14980.32, 15480.32);
  expect_cost(c.path, 17375.94, 19076.09);
  // With enable_material off the spilling sort is read as it is.
  in.enable_material = false;
  EXPECT_FALSE(final_cost_mergejoin(cs, in, ws).materialize_inner);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM o LEFT JOIN b ON b.id = o.k;
//   Merge Right Join  (cost=1889.56..2261.06 rows=20000 width=12)
//     Merge Cond: (b.id = o.k)
//     ->  Index Scan using b_pkey on b  (cost=0.29..318.29 rows=10000 width=8)
//     ->  Sort  (cost=1717.77..1767.77 rows=20000 width=4)
// b.id < min(o.k) = 5001 is half of b (skipped); o, the preserved side, is read whole.
TEST(MergeJoinCost, MergeRightJoin) {
  const MergeJoinInput in{.kind = JoinKind::kRight,
                          .outer = {kIndexB, 8},
                          .inner = {kSeqO, 4},
                          .sort_inner = true,
                          .scan = {.outer_start = 0.5, .inner_end = 0.25},
                          .merge_quals = {0, 0.0025},
                          .join_quals = {0, 0.0025},
                          .mergejoin_tuples = 10000,
                          .rows = 20000};
  const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  EXPECT_EQ(ws.outer_skip_rows, 5000);
  EXPECT_EQ(ws.inner_rows, 20000);
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 1889.56, 2261.06);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM o WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = o.k);
//   Merge Anti Join  (cost=2552.16..2777.16 rows=10000 width=4)
//     Merge Cond: (o.k = b.id)
//     ->  Sort  (cost=1717.77..1767.77 rows=20000 width=4)
//     ->  Sort  (cost=809.39..834.39 rows=10000 width=4)
// An anti join reads its outer side whole; half of b lies below o.k's minimum. It
// stops at the first match with only the merge clause: no mark and restore, no rereads.
TEST(MergeJoinCost, MergeAntiJoin) {
  const MergeJoinInput in{.kind = JoinKind::kAnti,
                          .outer = {kSeqO, 4},
                          .inner = {kSeqB, 4},
                          .sort_outer = true,
                          .sort_inner = true,
                          .scan = {.outer_end = 0.25, .inner_start = 0.5},
                          .merge_quals = {0, 0.0025},
                          .join_quals = {0, 0.0025},
                          .mergejoin_tuples = 10000,
                          .rows = 10000};
  const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(ws.inner_sort, 809.39, 834.39);
  const MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_TRUE(c.skip_mark_restore);
  expect_cost(c.path, 2552.16, 2777.16);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM b WHERE EXISTS (SELECT 1 FROM a WHERE a.x = b.id);
//   Merge Join  (cost=1851.11..1900.41 rows=1000 width=8)
//     Inner Unique: true
//     ->  Index Scan using b_pkey on b  (cost=0.29..318.29 rows=10000 width=8)
//     ->  Sort  (cost=1850.83..1853.33 rows=1000 width=4)
//           ->  HashAggregate  (cost=1791.00..1801.00 rows=1000 width=4)
TEST(MergeJoinCost, MergeJoinInnerUniqueSkipsMarkRestore) {
  const PathCost unique{1791, 1801, 1000};
  const MergeJoinInput in{.inner_unique = true,
                          .outer = {kIndexB, 8},
                          .inner = {unique, 4},
                          .sort_inner = true,
                          .scan = {.outer_end = 0.1, .inner_start = 9.913e-5},
                          .merge_quals = {0, 0.0025},
                          .join_quals = {0, 0.0025},
                          .mergejoin_tuples = 1000,
                          .rows = 1000};
  const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  expect_cost(ws.inner_sort, 1850.83, 1853.33);
  const MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_TRUE(c.skip_mark_restore);
  expect_cost(c.path, 1851.11, 1900.41);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM d d1 JOIN d d2 ON d1.k = d2.k;
//   Merge Join  (cost=0.57..7529.22 rows=400000 width=16)
//     ->  Index Scan using d_k on d d1  (cost=0.29..739.61 rows=20000 width=8)
//     ->  Materialize  (cost=0.29..789.61 rows=20000 width=8)
//           ->  Index Scan using d_k on d d2  (cost=0.29..739.61 rows=20000 width=8)
// Twenty rows per key on both sides: the inner rows of a key are read 20 times
// (rescanned 400,000 - 20,000, ratio 20), cheaper from a Materialize than from the
// index. Equal scan fractions on both sides are not believed (the defaults).
// SET enable_material = off:
//   Merge Join  (cost=1718.06..8507.38 rows=400000 width=16)
//     ->  Index Scan using d_k on d d1  (cost=0.29..739.61 rows=20000 width=8)
//     ->  Sort  (cost=1717.77..1767.77 rows=20000 width=8)
TEST(MergeJoinCost, MergeJoinMaterializesARereadInner) {
  MergeJoinInput in{.outer = {kIndexD, 8},
                    .inner = {kIndexD, 8},
                    .merge_quals = {0, 0.0025},
                    .join_quals = {0, 0.0025},
                    .mergejoin_tuples = 400000,
                    .rows = 400000};
  MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_DOUBLE_EQ(c.rescanned_tuples, 380000);
  EXPECT_DOUBLE_EQ(c.rescan_ratio, 20);
  EXPECT_TRUE(c.materialize_inner);
  expect_cost(mergejoin_inner_material(kDefaults, kIndexD), 0.29, 789.61);
  expect_cost(c.path, 0.57, 7529.22);

  in.enable_material = false;
  in.inner = {kSeqD, 8};
  in.sort_inner = true;
  ws = initial_cost_mergejoin(kDefaults, in);
  c = final_cost_mergejoin(kDefaults, in, ws);
  EXPECT_FALSE(c.materialize_inner);
  expect_cost(c.path, 1718.06, 8507.38);
}

// SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM b LEFT JOIN o ON o.k = b.id;
//   Merge Left Join  (cost=1718.06..2186.06 rows=10000 width=12)
//     ->  Index Scan using b_pkey on b  (cost=0.29..318.29 rows=10000 width=8)
//     ->  Sort  (cost=1717.77..1767.77 rows=20000 width=4)
// The same clause as MergeRightJoin's: half of b lies below o's minimum and o.k <= 10000
// is a quarter of o, but a left join emits every b row, so b is read whole.
TEST(MergeJoinCost, MergeLeftJoinReadsItsOuterWhole) {
  const MergeJoinInput in{.kind = JoinKind::kLeft,
                          .outer = {kIndexB, 8},
                          .inner = {kSeqO, 4},
                          .sort_inner = true,
                          .scan = {.outer_start = 0.5, .inner_end = 0.25},
                          .merge_quals = {0, 0.0025},
                          .join_quals = {0, 0.0025},
                          .mergejoin_tuples = 10000,
                          .rows = 10000};
  const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
  EXPECT_EQ(ws.outer_skip_rows, 0);
  EXPECT_EQ(ws.inner_rows, 5000);
  expect_cost(final_cost_mergejoin(kDefaults, in, ws).path, 1718.06, 2186.06);
}

// e(k int, w int): 40,000 rows, k = id % 2000, index e_k (177 pages, e_k 40, correlation
// 0.044544235). SET enable_hashjoin = off; SET enable_nestloop = off;
// EXPLAIN SELECT * FROM d JOIN e ON d.k = e.k;   (and d LEFT JOIN e: the same figures)
//   Merge Join  (cost=0.58..7424.43 rows=399987 width=16)
//     ->  Index Scan using d_k on d  (cost=0.29..739.61 rows=20000 width=8)
//     ->  Materialize  (cost=0.29..1567.24 rows=40000 width=8)
//           ->  Index Scan using e_k on e  (cost=0.29..1467.24 rows=40000 width=8)
// e.k <= max(d.k) = 999 is 0.50076 of e by its histogram: 20,030 inner rows read, each
// key's reread for d's duplicates (399,987 - 40,000 rescanned over those 20,030 rows).
TEST(MergeJoinCost, MergeJoinRereadsThePartOfTheInnerItReads) {
  const PathCost index_e{0.29, 1467.242348282, 40000};
  for (JoinKind kind : {JoinKind::kInner, JoinKind::kLeft}) {
    const MergeJoinInput in{.kind = kind,
                            .outer = {kIndexD, 8},
                            .inner = {index_e, 8},
                            .scan = {.inner_end = 0.50076},
                            .merge_quals = {0, 0.0025},
                            .join_quals = {0, 0.0025},
                            .mergejoin_tuples = 399987,
                            .rows = 399987};
    const MergeJoinWorkspace ws = initial_cost_mergejoin(kDefaults, in);
    EXPECT_EQ(ws.inner_rows, 20030);
    const MergeJoinCost c = final_cost_mergejoin(kDefaults, in, ws);
    EXPECT_NEAR(c.rescan_ratio, 1 + 359987.0 / 20030, 1e-12);
    EXPECT_TRUE(c.materialize_inner);
    expect_cost(mergejoin_inner_material(kDefaults, index_e), 0.29, 1567.24);
    expect_cost(c.path, 0.58, 7424.43);
  }
}

}  // namespace
}  // namespace tp
