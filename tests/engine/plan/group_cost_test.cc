// GROUP BY (group_cost.cc: cost_agg, cost_group, the hash aggregate's spill estimate)
// against PostgreSQL 15's EXPLAIN over join_cost_fixture.h's tables.
#include <gtest/gtest.h>

#include <vector>

#include "engine/core/error.h"
#include "engine/plan/join_cost.h"
#include "tests/engine/plan/join_cost_fixture.h"

namespace tp {
namespace {

using namespace join_cost_fixture;  // NOLINT(google-build-using-namespace)

// --- Grouping -----------------------------------------------------------------------

AggClauseCosts agg_costs(const std::vector<AggCall>& calls) {
  return agg_clause_costs(kDefaults, calls, AggSplit::kSimple);
}
const AggCall kCountStar{};
const AggCall kSumX{.kind = scans::AggKind::kSum, .column = 1, .input = ColumnType::kInt4};

// EXPLAIN SELECT g, count(*) FROM b GROUP BY g;
//   HashAggregate  (cost=195.00..196.00 rows=100 width=12)
//     ->  Seq Scan on b  (cost=0.00..145.00 rows=10000 width=4)
// ... count(*), avg(id), sum(id): three transition states, avg's final function per
// group, avg's int8[] state 32 bytes:  HashAggregate  (cost=245.00..246.25 rows=100)
// ... HAVING count(*) > 5 (one operator per group, DEFAULT_INEQ_SEL 1/3):
//   HashAggregate  (cost=195.00..196.25 rows=33 width=12)
TEST(GroupCost, HashAggregateInMemory) {
  GroupAggInput in{.aggs = agg_costs({kCountStar}),
                   .states = {1, 0},
                   .groups = 100,
                   .input = kSeqB,
                   .input_width = 4};
  GroupAggCost c = cost_agg(kDefaults, in);
  expect_cost(c.path, 195.00, 196.00);
  EXPECT_EQ(c.path.rows, 100);
  EXPECT_EQ(c.spill.depth, 0);
  EXPECT_EQ(c.spill.limits.partitions, 0);

  in.having = HavingQual{{0, 0.0025}, 1.0 / 3};
  c = cost_agg(kDefaults, in);
  expect_cost(c.path, 195.00, 196.25);
  EXPECT_EQ(c.path.rows, 33);

  const AggCall avg_id{.kind = scans::AggKind::kAvg, .column = 0, .input = ColumnType::kInt4};
  const AggCall sum_id{.kind = scans::AggKind::kSum, .column = 0, .input = ColumnType::kInt4};
  in = {.aggs = agg_costs({kCountStar, avg_id, sum_id}),
        .states = {3, 32},
        .groups = 100,
        .input = kSeqB,
        .input_width = 8};
  expect_cost(cost_agg(kDefaults, in).path, 245.00, 246.25);
}

// SET work_mem = '64kB'; SET enable_sort = off;
// EXPLAIN SELECT y, count(*) FROM a GROUP BY y;
//   HashAggregate  (cost=17416.00..19959.38 rows=19963 width=12)
//     Planned Partitions: 4
//     ->  Seq Scan on a  (cost=0.00..1541.00 rows=100000 width=4)
// An entry is 24 (hash entry) + 16 + 16 + 4 (the tuple in its chunk) + 16 + 16 (the
// count's state in its chunk) = 92 bytes; 19,963 of them need 19 batches of 3/4 of
// 128 kB, three levels of 4 partitions.
// ... SELECT y, avg(x): 144-byte entries (avg's 32-byte state in a chunk), 30 batches:
//   HashAggregate  (cost=17416.00..20009.29 rows=19963 width=36)   Planned Partitions: 4
// SET work_mem = '1MB'; SELECT y, count(*), sum(x): 112-byte entries, 2 batches, depth 1:
//   HashAggregate  (cost=7416.00..8396.88 rows=19963 width=20)
// (its EXPLAIN shows no Planned Partitions: the executor sizes its entries before it
// counts the transition states, so it expects them to fit.)
TEST(GroupCost, HashAggregateSpills) {
  const CostSettings cs = with_work_mem(64);
  GroupAggInput in{.aggs = agg_costs({kCountStar}),
                   .states = {1, 0},
                   .groups = 19963,
                   .input = kSeqA,
                   .input_width = 4};
  GroupAggCost c = cost_agg(cs, in);
  EXPECT_DOUBLE_EQ(c.spill.entry_size, 92);
  EXPECT_EQ(c.spill.limits.partitions, 4);
  EXPECT_DOUBLE_EQ(c.spill.limits.mem_limit, 98304);
  EXPECT_DOUBLE_EQ(c.spill.limits.ngroups_limit, 1068);
  EXPECT_DOUBLE_EQ(c.spill.batches, 19);
  EXPECT_EQ(c.spill.depth, 3);
  expect_cost(c.path, 17416.00, 19959.38);

  const AggCall avg_x{.kind = scans::AggKind::kAvg, .column = 1, .input = ColumnType::kInt4};
  in = {.aggs = agg_costs({avg_x}),
        .states = {1, 32},
        .groups = 19963,
        .input = kSeqA,
        .input_width = 8};
  c = cost_agg(cs, in);
  EXPECT_DOUBLE_EQ(c.spill.entry_size, 144);
  EXPECT_DOUBLE_EQ(c.spill.batches, 30);
  expect_cost(c.path, 17416.00, 20009.29);

  in = {.aggs = agg_costs({kCountStar, kSumX}),
        .states = {2, 0},
        .groups = 19963,
        .input = kSeqA,
        .input_width = 8};
  c = cost_agg(with_work_mem(1024), in);
  EXPECT_DOUBLE_EQ(c.spill.entry_size, 112);
  EXPECT_EQ(c.spill.depth, 1);
  expect_cost(c.path, 7416.00, 8396.88);
  // What the executor sized for EXPLAIN's line: no states in the entry, so it fits.
  EXPECT_EQ(
      hash_agg_set_limits(with_work_mem(1024), hash_agg_entry_size(0, 8, 0), 19963).partitions, 0);
}

// The limits alone: a quarter of hash_mem buffers the partitions.
TEST(GroupCost, HashAggLimits) {
  // Fits: all of hash_mem.
  HashAggLimits l = hash_agg_set_limits(kDefaults, 60, 1000);
  EXPECT_EQ(l.partitions, 0);
  EXPECT_DOUBLE_EQ(l.mem_limit, 8388608);
  EXPECT_DOUBLE_EQ(l.ngroups_limit, 139810);
  // 1e6 groups of 100 bytes in 8 MB: 1 + 1.5e8 / 8 MB = 18.9 partitions, so 32; their
  // 33 buffers (264 kB) come out of hash_mem.
  l = hash_agg_set_limits(kDefaults, 100, 1e6);
  EXPECT_EQ(l.partitions, 32);
  EXPECT_DOUBLE_EQ(l.mem_limit, 8388608 - 33 * 8192);
  // hash_mem_multiplier 1 halves the table's memory.
  CostSettings cs;
  cs.hash_mem_multiplier = 1;
  EXPECT_DOUBLE_EQ(hash_memory_limit(cs), 4194304);
  EXPECT_EQ(hash_agg_set_limits(cs, 100, 1e6).partitions, 64);
  EXPECT_EQ(choose_hash_table_size(cs, 100000, 4).batches, 2);
  cs.hash_mem_multiplier = 0.5;
  EXPECT_THROW(cs.validate(), Error);
}

// SET enable_hashagg = off;
// EXPLAIN SELECT g, count(*) FROM b GROUP BY g;
//   GroupAggregate  (cost=809.39..885.39 rows=100 width=12)
//     ->  Sort  (cost=809.39..834.39 rows=10000 width=4)
// EXPLAIN SELECT y, count(*), sum(x) FROM a GROUP BY y;
//   GroupAggregate  (cost=9845.82..11045.45 rows=19963 width=20)
//     ->  Sort  (cost=9845.82..10095.82 rows=100000 width=8)
// EXPLAIN SELECT id, count(*) FROM b GROUP BY id;   (and a, with enable_sort = off)
//   GroupAggregate  (cost=0.29..420.29 rows=10000 width=12)
//     ->  Index Only Scan using b_pkey on b  (cost=0.29..270.29 rows=10000 width=4)
//   GroupAggregate  (cost=0.29..4104.29 rows=100000 width=12)
//     ->  Index Only Scan using a_pkey on a  (cost=0.29..2604.29 rows=100000 width=4)
TEST(GroupCost, GroupAggregateOverSortedInput) {
  const PathCost sort_b = cost_sort(kDefaults, kSeqB, 10000, 4);
  GroupAggInput in{.strategy = AggStrategy::kSorted,
                   .aggs = agg_costs({kCountStar}),
                   .groups = 100,
                   .input = sort_b,
                   .input_width = 4};
  expect_cost(cost_agg(kDefaults, in).path, 809.39, 885.39);
  // Over the same input hashing costs exactly as much in total, from a later startup:
  // PostgreSQL forms the same sums so that a sorted input prefers the GroupAggregate.
  const PathCost sorted = cost_agg(kDefaults, in).path;
  in.strategy = AggStrategy::kHashed;
  const PathCost hashed = cost_agg(kDefaults, in).path;
  EXPECT_EQ(hashed.total, sorted.total);
  EXPECT_GT(hashed.startup, sorted.startup);

  const PathCost sort_a = cost_sort(kDefaults, kSeqA, 100000, 8);
  in = {.strategy = AggStrategy::kSorted,
        .aggs = agg_costs({kCountStar, kSumX}),
        .groups = 19963,
        .input = sort_a,
        .input_width = 8};
  expect_cost(cost_agg(kDefaults, in).path, 9845.82, 11045.45);

  in = {.strategy = AggStrategy::kSorted,
        .aggs = agg_costs({kCountStar}),
        .groups = 10000,
        .input = {0.285, 270.285, 10000},
        .input_width = 4};
  expect_cost(cost_agg(kDefaults, in).path, 0.29, 420.29);
  in.groups = 100000;
  in.input = {0.2925, 2604.2925, 100000};
  expect_cost(cost_agg(kDefaults, in).path, 0.29, 4104.29);
}

// SET enable_hashagg = off;
// EXPLAIN SELECT g FROM b GROUP BY g;
//   Group  (cost=809.39..859.39 rows=100 width=4)
//     ->  Sort  (cost=809.39..834.39 rows=10000 width=4)
// EXPLAIN SELECT x, y FROM a GROUP BY x, y;
//   Group  (cost=9845.82..10595.82 rows=19963 width=8)
//     ->  Sort  (cost=9845.82..10095.82 rows=100000 width=8)
// Without enable_hashagg = off the second is hashed:
//   HashAggregate  (cost=2041.00..2240.63 rows=19963 width=8)
TEST(GroupCost, GroupOverSortedInput) {
  const PathCost g = cost_group(kDefaults, cost_sort(kDefaults, kSeqB, 10000, 4), 1, 100);
  expect_cost(g, 809.39, 859.39);
  EXPECT_EQ(g.rows, 100);
  expect_cost(cost_group(kDefaults, cost_sort(kDefaults, kSeqA, 100000, 8), 2, 19963), 9845.82,
              10595.82);
  const GroupAggInput in{.group_columns = 2, .groups = 19963, .input = kSeqA, .input_width = 8};
  expect_cost(cost_agg(kDefaults, in).path, 2041.00, 2240.63);
  // HAVING on a Group: its quals per group, and the rows they keep.
  const PathCost h = cost_group(kDefaults, kSeqB, 1, 100, HavingQual{{0, 0.0025}, 0.5});
  EXPECT_DOUBLE_EQ(h.total, 145 + 25 + 0.25);
  EXPECT_EQ(h.rows, 50);
}

}  // namespace
}  // namespace tp
