// Materialize, nested loops, Memoize and hash joins (join_cost.h) against PostgreSQL 15's
// EXPLAIN: the tables, the inputs and how their selectivities were worked out are
// join_cost_fixture.h's.
#include "engine/plan/join_cost.h"

#include <gtest/gtest.h>

#include "tests/engine/plan/join_cost_fixture.h"

namespace tp {
namespace {

using namespace join_cost_fixture;  // NOLINT(google-build-using-namespace)

// --- Materialize and nested loops -----------------------------------------------

// EXPLAIN SELECT * FROM s JOIN b ON s.v < b.g;
//   Nested Loop  (cost=0.00..150162.50 rows=3333333 width=16)
//     Join Filter: (s.v < b.g)
//     ->  Seq Scan on b  (cost=0.00..145.00 rows=10000 width=8)
//     ->  Materialize  (cost=0.00..20.00 rows=1000 width=8)
//           ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
TEST(JoinCost, NestLoopOverMaterialize) {
  const PathCost mat = cost_material(kDefaults, kSeqS, 8);
  expect_cost(mat, 0.00, 20.00);
  EXPECT_EQ(mat.rows, 1000);
  const RescanCost rescan = cost_rescan_materialized(kDefaults, 1000, 8);
  EXPECT_DOUBLE_EQ(rescan.startup, 0);
  EXPECT_DOUBLE_EQ(rescan.total, 2.5);  // one cpu_operator_cost per stored row
  NestLoopInput in{.outer = kSeqB,
                   .inner = mat,
                   .inner_rescan = rescan,
                   .join_quals = {0, 0.0025},
                   .rows = 3333333};
  const NestLoopWorkspace ws = initial_cost_nestloop(kDefaults, in);
  EXPECT_NEAR(ws.total, 25162.5, 1e-9);  // 145 + 20 + 9,999 rescans of 2.5
  expect_cost(final_cost_nestloop(kDefaults, in, ws), 0.00, 150162.50);

  // ... ON s.id + b.id = 77: two operators per pair of rows (rows=50000).
  in.join_quals = {0, 0.005};
  in.rows = 50000;
  expect_cost(cost_nestloop(kDefaults, in), 0.00, 175162.50);
}

// SET work_mem = '64kB'; EXPLAIN SELECT * FROM s LEFT JOIN b ON s.v < b.g;
//   Nested Loop Left Join  (cost=0.00..190185.00 rows=3333333 width=16)
//     ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
//     ->  Materialize  (cost=0.00..235.00 rows=10000 width=8)
//           ->  Seq Scan on b  (cost=0.00..145.00 rows=10000 width=8)
// 10,000 rows of 8 + 24 bytes outgrow 64 kB: 40 pages written, and read on each rescan.
TEST(JoinCost, MaterializeSpillsAndLeftNestLoopRereadsIt) {
  const CostSettings cs = with_work_mem(64);
  const PathCost mat = cost_material(cs, kSeqB, 8);
  expect_cost(mat, 0.00, 235.00);  // 145 + 50 + 40 pages
  const RescanCost rescan = cost_rescan_materialized(cs, 10000, 8);
  EXPECT_DOUBLE_EQ(rescan.total, 65);  // 25 + 40 pages
  // Under work_mem nothing is written.
  expect_cost(cost_material(kDefaults, kSeqB, 8), 0.00, 195.00);
  NestLoopInput in{.kind = JoinKind::kLeft,
                   .outer = kSeqS,
                   .inner = mat,
                   .inner_rescan = rescan,
                   .join_quals = {0, 0.0025},
                   .rows = 3333333};
  expect_cost(cost_nestloop(cs, in), 0.00, 190185.00);
}

// SET enable_hashjoin = off; SET enable_mergejoin = off;
// EXPLAIN VERBOSE SELECT * FROM s JOIN a ON a.id = s.id;
//   Nested Loop  (cost=0.29..3509.00 rows=1000 width=24)
//     Inner Unique: true
//     ->  Seq Scan on public.s  (cost=0.00..15.00 rows=1000 width=8)
//     ->  Index Scan using a_pkey on public.a  (cost=0.29..3.49 rows=1 width=16)
//           Index Cond: (a.id = s.id)
// The inner scan per loop (loop_count 1000) is 0.2925..3.494; it applies the only join
// clause, so the join checks none (has_indexed_join_quals). Inner-unique inner join:
// outer_match_frac is the inner-join selectivity 1 / max(1000, 100000) = 1e-5, and
// match_count 1e-5 * 100,000 / 1e-5 = 100,000. rint(1000 * 1e-5) = 0 matched rows: every
// outer row pays an empty probe, about one row's share of the scan.
TEST(JoinCost, NestLoopInnerUniqueIndexProbes) {
  const PathCost probe{0.2925, 3.494, 1};
  NestLoopInput in{.inner_unique = true,
                   .outer = kSeqS,
                   .inner = probe,
                   .inner_rescan = rescan_as_first_scan(probe),
                   .semi = {.outer_match_frac = 1e-5, .match_count = 100000},
                   .indexed_join_quals = true,
                   .rows = 1000};
  expect_cost(cost_nestloop(kDefaults, in), 0.29, 3509.00);

  // EXISTS (SELECT 1 FROM b WHERE b.id = s.id) becomes the same join over an
  // Index Only Scan using b_pkey (cost=0.29..0.42 rows=1): 0.285..0.4225 per loop,
  // outer_match_frac 1 / 10000, match_count 10,000.
  //   Nested Loop  (cost=0.29..437.50 rows=1000 width=8)
  const PathCost ios{0.285, 0.4225, 1};
  in.inner = ios;
  in.inner_rescan = rescan_as_first_scan(ios);
  in.semi = {.outer_match_frac = 1e-4, .match_count = 10000};
  expect_cost(cost_nestloop(kDefaults, in), 0.29, 437.50);
}

// SET enable_hashjoin = off; SET enable_mergejoin = off;
// EXPLAIN SELECT * FROM s WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.x = s.id);
//   Nested Loop Anti Join  (cost=0.00..31754.02 rows=1 width=8)
//     Join Filter: (a.x = s.id)
//     ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
//     ->  Materialize  (cost=0.00..2041.00 rows=100000 width=4)
//           ->  Seq Scan on a  (cost=0.00..1541.00 rows=100000 width=4)
// eqjoinsel_semi: nd(s.id) 1000 <= nd(a.x) 1000, so every outer row matches (1.0);
// inner-join selectivity 1/1000, match_count 1/1000 * 100,000 / 1 = 100. A matched row
// reads 2/101 of the inner rows; nothing is indexed, so the first scan is whole.
TEST(JoinCost, NestLoopAntiJoinStopsAtFirstMatch) {
  const PathCost mat = cost_material(kDefaults, kSeqA, 4);
  expect_cost(mat, 0.00, 2041.00);
  NestLoopInput in{.kind = JoinKind::kAnti,
                   .outer = kSeqS,
                   .inner = mat,
                   .inner_rescan = cost_rescan_materialized(kDefaults, 100000, 4),
                   .semi = {.outer_match_frac = 1.0, .match_count = 100},
                   .join_quals = {0, 0.0025},
                   .rows = 1};
  expect_cost(cost_nestloop(kDefaults, in), 0.00, 31754.02);
}

// SET enable_hashjoin = off; SET enable_mergejoin = off;
// EXPLAIN SELECT * FROM s WHERE EXISTS (SELECT 1 FROM a WHERE a.x = s.id);
//   Nested Loop  (cost=1791.00..16818.50 rows=1000 width=8)
//     Join Filter: (s.id = a.x)
//     ->  HashAggregate  (cost=1791.00..1801.00 rows=1000 width=4)
//           Group Key: a.x
//           ->  Seq Scan on a  (cost=0.00..1541.00 rows=100000 width=4)
//     ->  Materialize  (cost=0.00..20.00 rows=1000 width=8)
//           ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
// The semi join's inner side made unique (a HashAggregate costed by cost_agg, 1,000
// groups) and joined as a plain inner join.
TEST(JoinCost, NestLoopOverUniquifiedOuter) {
  GroupAggInput agg{.groups = 1000, .input = kSeqA, .input_width = 4};
  const GroupAggCost unique = cost_agg(kDefaults, agg);
  expect_cost(unique.path, 1791.00, 1801.00);
  EXPECT_EQ(unique.spill.depth, 0);
  const PathCost mat = cost_material(kDefaults, kSeqS, 8);
  NestLoopInput in{.outer = unique.path,
                   .inner = mat,
                   .inner_rescan = cost_rescan_materialized(kDefaults, 1000, 8),
                   .join_quals = {0, 0.0025},
                   .rows = 1000};
  expect_cost(cost_nestloop(kDefaults, in), 1791.00, 16818.50);
}

// --- Memoize ------------------------------------------------------------------------

// SET enable_hashjoin = off; SET enable_mergejoin = off;
// EXPLAIN VERBOSE SELECT * FROM a JOIN b ON b.id = a.x;
//   Nested Loop  (cost=0.30..4346.65 rows=100000 width=24)
//     Inner Unique: true
//     ->  Seq Scan on public.a  (cost=0.00..1541.00 rows=100000 width=16)
//     ->  Memoize  (cost=0.30..0.32 rows=1 width=8)
//           Cache Key: a.x
//           ->  Index Scan using b_pkey on public.b  (cost=0.29..0.31 rows=1 width=8)
// The probe per loop (loop_count 100,000) is 0.285..0.3055. 100,000 calls over
// estimate_num_groups(a.x) = 1,000 keys (n_distinct 1000); an entry is its row as a heap
// tuple (32 bytes) and 48 + 16 bytes of bookkeeping, 87,381 fit in 8 MB: every key is
// held, 1,000 calls of 100,000 are first sightings, 99% hits, no evictions.
// Inner unique: 1 / max(1000, 10000) = 1e-4, match_count 10,000.
TEST(JoinCost, MemoizeEveryKeyFits) {
  const PathCost probe{0.285, 0.3055, 1};
  const MemoizeCost m =
      cost_memoize(kDefaults, {.subpath = probe, .width = 8, .calls = 100000, .ndistinct = 1000});
  expect_cost(m.path, 0.30, 0.32);
  EXPECT_DOUBLE_EQ(m.entry_bytes, 96);
  EXPECT_DOUBLE_EQ(m.cache_entries, 87381);
  EXPECT_DOUBLE_EQ(m.est_entries, 1000);
  EXPECT_DOUBLE_EQ(m.evict_ratio, 0);
  EXPECT_DOUBLE_EQ(m.hit_ratio, 0.99);
  NestLoopInput in{.inner_unique = true,
                   .outer = kSeqA,
                   .inner = m.path,
                   .inner_rescan = m.rescan,
                   .semi = {.outer_match_frac = 1e-4, .match_count = 10000},
                   .rows = 100000};
  expect_cost(cost_nestloop(kDefaults, in), 0.30, 4346.65);
}

// SET enable_hashjoin = off; SET enable_mergejoin = off; SET work_mem = '64kB';
// EXPLAIN VERBOSE SELECT * FROM a JOIN b ON b.id = a.z;
//   Nested Loop  (cost=0.30..14677.00 rows=100000 width=24)
//     ->  Memoize  (cost=0.30..0.32 rows=1 width=8)   Cache Key: a.z
// 2,000 keys, but 128 kB of hash_mem holds 1,365 entries of 96 bytes: evictions, and
// a hit ratio of 1365/2000 - 2000/100000 = 0.6625. (Later PostgreSQL's ratio,
// 0.98 * 1310/2000 over entries of 100 bytes that count the 4-byte key, would make the
// join cost 15,334.51: this figure is 15's.)
TEST(JoinCost, MemoizeEvictsBeyondHashMem) {
  const CostSettings cs = with_work_mem(64);
  const PathCost probe{0.285, 0.3055, 1};
  const MemoizeCost m =
      cost_memoize(cs, {.subpath = probe, .width = 8, .calls = 100000, .ndistinct = 2000});
  EXPECT_DOUBLE_EQ(m.cache_entries, 1365);
  EXPECT_DOUBLE_EQ(m.est_entries, 1365);
  EXPECT_NEAR(m.evict_ratio, 1 - 1365.0 / 2000, 1e-12);
  EXPECT_NEAR(m.hit_ratio, 0.6625, 1e-12);
  NestLoopInput in{.inner_unique = true,
                   .outer = kSeqA,
                   .inner = m.path,
                   .inner_rescan = m.rescan,
                   .semi = {.outer_match_frac = 1e-4, .match_count = 10000},
                   .rows = 100000};
  expect_cost(cost_nestloop(cs, in), 0.30, 14677.00);

  // Every call a new key and half of them held: the ratio would be negative, and is 0.
  const MemoizeCost none =
      cost_memoize(cs, {.subpath = probe, .width = 8, .calls = 2730, .ndistinct = 2730});
  EXPECT_DOUBLE_EQ(none.hit_ratio, 0);
  EXPECT_NEAR(none.evict_ratio, 0.5, 1e-12);
  EXPECT_NEAR(none.rescan.total, 0.3055 + 0.0025 + 0.01 * 0.5 + 0.00025 * 0.5 + 0.01 + 0.0025,
              1e-12);
}

// --- Hash joins ---------------------------------------------------------------------

// The Hash nodes of the plans below, as EXPLAIN ANALYZE printed them.
TEST(JoinCost, HashTableSizes) {
  auto size = [](const CostSettings& cs, double rows, int width) {
    const HashTableSize t = choose_hash_table_size(cs, rows, width);
    return std::pair{t.buckets, t.batches};
  };
  EXPECT_EQ(size(kDefaults, 20000, 4), std::pair(32768, 1));    // o
  EXPECT_EQ(size(kDefaults, 10000, 4), std::pair(16384, 1));    // b.id
  EXPECT_EQ(size(kDefaults, 10000, 8), std::pair(16384, 1));    // b
  EXPECT_EQ(size(kDefaults, 100000, 4), std::pair(131072, 1));  // a.y
  EXPECT_EQ(size(with_work_mem(128), 20000, 4), std::pair(8192, 8));
  EXPECT_EQ(size(with_work_mem(64), 20000, 4), std::pair(4096, 16));
  // Few rows still get 1,024 buckets; no estimate means 1,000 rows.
  EXPECT_EQ(size(kDefaults, 10, 4), std::pair(1024, 1));
  EXPECT_EQ(size(kDefaults, 0, 4), std::pair(1024, 1));
  // The skew table: 2% of the 67,650 MCV slots of 40 + 64 + 4 + 16 bytes 8 MB holds.
  EXPECT_EQ(choose_hash_table_size(kDefaults, 20000, 4).skew_mcvs, 1353);
  EXPECT_DOUBLE_EQ(hash_memory_limit(kDefaults), 8388608);
}

// EXPLAIN SELECT * FROM a JOIN o ON a.y = o.k;
//   Hash Join  (cost=539.00..3455.00 rows=100000 width=20)
//     ->  Seq Scan on a  (cost=0.00..1541.00 rows=100000 width=16)
//     ->  Hash  (cost=289.00..289.00 rows=20000 width=4)
//           Buckets: 32768  Batches: 1   (EXPLAIN ANALYZE)
// o.k's 20,000 distinct values are fewer than 32,768 buckets: bucket fraction 1/20000.
// Join selectivity 1 / max(19963, 20000): 100,000 rows pass the hash clause.
HashJoinInput a_join_o() {
  return {.outer = {kSeqA, 16},
          .inner = {kSeqO, 4},
          .hash_quals = {0, 0.0025},
          .join_quals = {0, 0.0025},
          .hashjoin_tuples = 100000,
          .rows = 100000};
}

TEST(JoinCost, HashJoinOneBatch) {
  HashJoinInput in = a_join_o();
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  EXPECT_EQ(ws.table.buckets, 32768);
  EXPECT_EQ(ws.table.batches, 1);
  EXPECT_DOUBLE_EQ(ws.startup, 539);
  const double bucket = hash_bucket_fraction(20000, ws.virtual_buckets(), 0, 1.0 / 20000);
  EXPECT_DOUBLE_EQ(bucket, 1.0 / 20000);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = bucket}), 539.00, 3455.00);

  // ... ON a.y = o.k AND a.x < o.k: the second clause is a Join Filter on the 100,000
  // rows that pass the hash clause.  Hash Join  (cost=539.00..3705.00 rows=33333)
  in.join_quals = {0, 0.005};
  in.rows = 33333;
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = bucket}), 539.00, 3705.00);
}

// SET work_mem = '128kB'; the same join:
//   Hash Join  (cost=618.00..4591.00 rows=100000 width=20)
//     ->  Hash  ...  Buckets: 8192  Batches: 8
// Batching writes o's 79 pages at startup, then reads them and writes and reads a's 489.
TEST(JoinCost, HashJoinInBatches) {
  const CostSettings cs = with_work_mem(128);
  const HashJoinInput in = a_join_o();
  const HashJoinWorkspace ws = initial_cost_hashjoin(cs, in);
  EXPECT_EQ(ws.table.buckets, 8192);
  EXPECT_EQ(ws.table.batches, 8);
  const double bucket = hash_bucket_fraction(20000, ws.virtual_buckets(), 0, 1.0 / 20000);
  expect_cost(final_cost_hashjoin(cs, in, ws, {.bucket_size = bucket}), 618.00, 4591.00);
}

// EXPLAIN SELECT * FROM o WHERE EXISTS (SELECT 1 FROM b WHERE b.id = o.k);
//   Hash Join  (cost=270.00..611.51 rows=10000 width=4)
//     Inner Unique: true
//     ->  Seq Scan on o  (cost=0.00..289.00 rows=20000 width=4)
//     ->  Hash  (cost=145.00..145.00 rows=10000 width=4)   Buckets: 16384
// b.id is unique, so the semi join became an inner-unique inner join. Its join type
// JOIN_INNER makes outer_match_frac the inner-join selectivity 1 / 20000: rint(20000 /
// 20000) = one matched row (match_count 10,000), 19,999 unmatched rows probing an
// average bucket. EXPLAIN SELECT * FROM o LEFT JOIN b ON b.id = o.k prints the same
// costs for its Hash Left Join (rows=20000, b's width 8): the same factors under JOIN_LEFT.
TEST(JoinCost, HashJoinInnerUnique) {
  HashJoinInput in{.inner_unique = true,
                   .outer = {kSeqO, 4},
                   .inner = {kSeqB, 4},
                   .hash_quals = {0, 0.0025},
                   .join_quals = {0, 0.0025},
                   .semi = {.outer_match_frac = 1.0 / 20000, .match_count = 10000},
                   .rows = 10000};
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  EXPECT_EQ(ws.table.buckets, 16384);
  const double bucket = hash_bucket_fraction(10000, ws.virtual_buckets(), 0, 1.0 / 10000);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = bucket}), 270.00, 611.51);
  in.kind = JoinKind::kLeft;
  in.inner.width = 8;
  in.rows = 20000;
  expect_cost(final_cost_hashjoin(kDefaults, in, initial_cost_hashjoin(kDefaults, in),
                                  {.bucket_size = bucket}),
              270.00, 611.51);
}

// EXPLAIN SELECT * FROM o WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = o.k);
//   Hash Anti Join  (cost=270.00..722.75 rows=10000 width=4)
// eqjoinsel_semi: nd(o.k) 20000 > nd(b.id) 10000: half the outer rows match;
// match_count (1/20000) * 10000 / 0.5 = 1. The 10,000 unmatched rows come out.
TEST(JoinCost, HashAntiJoin) {
  const HashJoinInput in{.kind = JoinKind::kAnti,
                         .outer = {kSeqO, 4},
                         .inner = {kSeqB, 4},
                         .hash_quals = {0, 0.0025},
                         .join_quals = {0, 0.0025},
                         .semi = {.outer_match_frac = 0.5, .match_count = 1},
                         .rows = 10000};
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = 1.0 / 10000}), 270.00, 722.75);
}

// EXPLAIN SELECT * FROM b WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.y = b.id);
//   Hash Anti Join  (cost=2791.00..2986.00 rows=1 width=8)
//     ->  Seq Scan on b  (cost=0.00..145.00 rows=10000 width=8)
//     ->  Hash  (cost=1541.00..1541.00 rows=100000 width=4)   Buckets: 131072
// nd(b.id) 10000 <= nd(a.y) 19963: every outer row matches, none comes out; each match
// has 100000/19963 = 5.01 inner rows, so a probe reads 2/6.01 of a 5-row bucket.
TEST(JoinCost, HashAntiJoinEveryRowMatches) {
  const HashJoinInput in{.kind = JoinKind::kAnti,
                         .outer = {kSeqB, 8},
                         .inner = {kSeqA, 4},
                         .hash_quals = {0, 0.0025},
                         .join_quals = {0, 0.0025},
                         .semi = {.outer_match_frac = 1.0, .match_count = 100000.0 / 19963},
                         .rows = 1};
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  EXPECT_EQ(ws.table.buckets, 131072);
  const double bucket = hash_bucket_fraction(19963, ws.virtual_buckets(), 0, 1.0 / 19963);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = bucket}), 2791.00, 2986.00);
}

// EXPLAIN SELECT * FROM b WHERE EXISTS (SELECT 1 FROM a WHERE a.y = b.id);
//   Hash Join  (cost=2061.00..2535.12 rows=10000 width=8)
//     Inner Unique: true
//     ->  HashAggregate  (cost=1791.00..1990.63 rows=19963 width=4)   Group Key: a.y
//     ->  Hash  (cost=145.00..145.00 rows=10000 width=8)
// The semi join's inner side made unique and put outside (JOIN_UNIQUE_OUTER): the
// factors come from the semi join itself, nd(b.id) <= nd(a.y) so 1.0, match_count 1.
TEST(JoinCost, HashJoinUniquifiedOuterKeepsSemiJoinFactors) {
  const GroupAggCost unique =
      cost_agg(kDefaults, {.groups = 19963, .input = kSeqA, .input_width = 4});
  expect_cost(unique.path, 1791.00, 1990.63);
  const HashJoinInput in{.inner_unique = true,
                         .outer = {unique.path, 4},
                         .inner = {kSeqB, 8},
                         .hash_quals = {0, 0.0025},
                         .join_quals = {0, 0.0025},
                         .semi = {.outer_match_frac = 1.0, .match_count = 1},
                         .rows = 10000};
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = 1.0 / 10000}), 2061.00,
              2535.12);
}

// EXPLAIN VERBOSE SELECT * FROM o WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.k = o.k);
//   Hash Anti Join  (cost=135.50..676.99 rows=19999 width=4)
//     ->  Hash  (cost=73.00..73.00 rows=5000 width=4)
// m.k is one value (MCV frequency 1): the whole inner side lands in one bucket
// (fraction 1). Semi selectivity nd(m.k)/nd(o.k) = 1/20000, match_count 5,000.
// SET work_mem = '64kB'; SET enable_mergejoin = off; SET enable_nestloop = off:
//   Hash Anti Join  (cost=10000000155.50..10000000874.99 rows=19999 width=4)
// 5,000 rows of the one value (160,000 bytes) outgrow 128 kB of hash_mem, which no
// number of batches can split: PostgreSQL adds the disable cost itself.
TEST(JoinCost, HashJoinCommonValueOutgrowsHashMem) {
  const HashJoinInput in{.kind = JoinKind::kAnti,
                         .outer = {kSeqO, 4},
                         .inner = {kSeqM, 4},
                         .hash_quals = {0, 0.0025},
                         .join_quals = {0, 0.0025},
                         .semi = {.outer_match_frac = 1.0 / 20000, .match_count = 5000},
                         .rows = 19999};
  HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  HashBucketStats bucket{hash_bucket_fraction(1, ws.virtual_buckets(), 1.0, 1.0), 1.0};
  EXPECT_DOUBLE_EQ(bucket.bucket_size, 1.0);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, bucket), 135.50, 676.99);

  const CostSettings cs = with_work_mem(64);
  ws = initial_cost_hashjoin(cs, in);
  EXPECT_EQ(ws.table.batches, 4);
  expect_cost(final_cost_hashjoin(cs, in, ws, bucket), 10000000155.50, 10000000874.99);
}

// EXPLAIN SELECT * FROM s WHERE EXISTS (SELECT 1 FROM a WHERE a.x = s.id);
//   Hash Join  (cost=1813.50..1842.25 rows=1000 width=8)
//     ->  Seq Scan on s  (cost=0.00..15.00 rows=1000 width=8)
//     ->  Hash  (cost=1801.00..1801.00 rows=1000 width=4)
//           ->  HashAggregate  (cost=1791.00..1801.00 rows=1000 width=4)
// The semi join's inner side made unique (JOIN_UNIQUE_INNER, so inner-unique): a
// unique-ified inner hashes well by construction, bucket fraction 1 / virtual buckets
// (1,024) and no MCV. The semi join's factors: nd(s.id) <= nd(a.x), every row matches;
// match_count (1/1000) * a's 100,000 rows = 100.
TEST(JoinCost, HashJoinOverUniquifiedInner) {
  const PathCost unique{1791, 1801, 1000};
  const HashJoinInput in{.inner_unique = true,
                         .outer = {kSeqS, 8},
                         .inner = {unique, 4},
                         .hash_quals = {0, 0.0025},
                         .join_quals = {0, 0.0025},
                         .semi = {.outer_match_frac = 1.0, .match_count = 100},
                         .rows = 1000};
  const HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  EXPECT_EQ(ws.table.buckets, 1024);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = 1 / ws.virtual_buckets()}),
              1813.50, 1842.25);
}

// EXPLAIN SELECT * FROM s FULL JOIN a ON a.x = s.id;
//   Hash Full Join  (cost=27.50..2943.50 rows=100000 width=24)
//     ->  Seq Scan on a  (cost=0.00..1541.00 rows=100000 width=16)
//     ->  Hash  (cost=15.00..15.00 rows=1000 width=8)
// A full join costs as an inner one: 1 / max(1000, 1000) lets 100,000 rows through.
// EXPLAIN SELECT * FROM a a1 JOIN a a2 ON a1.x = a2.x;
//   Hash Join  (cost=2791.00..123830.96 rows=10012396 width=32)
//     ->  Hash  (cost=1541.00..1541.00 rows=100000 width=16)   Buckets: 131072
// a.x is skewed: its most common value (frequency 0.0015333333, float4) is 1.53 times
// the average 1/1000, and so is the bucket an outer row probes: 153 rows, half compared.
TEST(JoinCost, HashFullJoinAndSkewedKey) {
  HashJoinInput in{.kind = JoinKind::kFull,
                   .outer = {kSeqA, 16},
                   .inner = {kSeqS, 8},
                   .hash_quals = {0, 0.0025},
                   .join_quals = {0, 0.0025},
                   .hashjoin_tuples = 100000,
                   .rows = 100000};
  HashJoinWorkspace ws = initial_cost_hashjoin(kDefaults, in);
  double bucket = hash_bucket_fraction(1000, ws.virtual_buckets(), 0, 1.0 / 1000);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {.bucket_size = bucket}), 27.50, 2943.50);

  const double mcv_freq = double(0.0015333333f);
  in = {.outer = {kSeqA, 16},
        .inner = {kSeqA, 16},
        .hash_quals = {0, 0.0025},
        .join_quals = {0, 0.0025},
        .hashjoin_tuples = 10012396,
        .rows = 10012396};
  ws = initial_cost_hashjoin(kDefaults, in);
  EXPECT_EQ(ws.table.buckets, 131072);
  bucket = hash_bucket_fraction(1000, ws.virtual_buckets(), mcv_freq, 1.0 / 1000);
  EXPECT_NEAR(bucket, mcv_freq, 1e-12);
  expect_cost(final_cost_hashjoin(kDefaults, in, ws, {bucket, mcv_freq}), 2791.00, 123830.96);
  // Past the clamps: more distinct values than buckets, and never below 1e-6.
  EXPECT_DOUBLE_EQ(hash_bucket_fraction(1e6, 1024, 0, 1e-6), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(hash_bucket_fraction(1e8, 1e7, 0, 1e-8), 1e-6);
}

}  // namespace
}  // namespace tp
