// SELECT DISTINCT as PostgreSQL 15 plans it (planner.c's create_distinct_paths and
// create_ordered_paths, pathnode.c's add_path, costsize.c's cost_agg for AGG_HASHED):
//
//   sorted:  Unique over each input path already ordered by the DISTINCT keys, and over a
//            Sort (no LIMIT bound) of the cheapest input path;
//   hashed:  HashAggregate over the cheapest input path (no order);
//
// then, for an ORDER BY, each Unique as it is (its keys start with ORDER BY's) and a Sort
// bounded by the LIMIT over the distinct relation's cheapest path; then the Limit. Each
// step keeps its paths as add_path does (fuzzily dominated ones are dropped), and the
// final relation's cheapest total wins. The input relations (the table's paths, the
// partial distinct relation) are engine/plan/distinct_paths.h's.
//
//   DistinctChoice c = choose_distinct(query, inputs);   // which input, which shape
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/plan/cost_model.h"
#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"

namespace tp {

// What create_distinct_paths needs to know of the query.
struct DistinctQuery {
  size_t unique_columns = 0;          // DISTINCT pathkeys (columns WHERE fixes left out)
  size_t group_columns = 0;           // the DISTINCT clause: every select-list entry
  int width = 0;                      // the input rows' width (0: the scan's)
  bool has_order_by = false;          // an ORDER BY was written (it may have no keys left)
  size_t order_keys = 0;              // ORDER BY keys left once the fixed columns are dropped
  std::optional<double> limit_count;  // LIMIT's count, as written
  double offset = 0;
  double limit_tuples = -1;  // LIMIT + OFFSET (LIMIT 0 counted as 1); -1: no LIMIT
  bool enable_sort = true;
  bool enable_hashagg = true;
  // create_partial_distinct_paths runs (not for DISTINCT ON).
  bool partial = true;
  // What a HashAggregate pays per group to compute its output (create_agg_path adds its
  // target's cost): the operators of a select list over aggregates (`sum(b) + 1`).
  double hash_output_cost = 0;
};

// One input path (a scan, a Gather): its cost, whether it returns rows in the DISTINCT
// keys' order, and whether it is parallel-safe (a Gather is not).
struct DistinctInput {
  PathCost cost;
  bool ordered = false;
  bool parallel_safe = true;
};

// A relation the distinct paths are made over: the table's paths, or (PostgreSQL 15's
// partial distinct relation) the Gather over each participant's HashAggregate. Its
// DISTINCT groups are estimated from its cheapest path's rows.
struct DistinctInputRel {
  std::vector<DistinctInput> inputs;
  size_t cheapest = 0;  // set_cheapest's pick
  double num_groups = 1;
};

enum class DistinctKind { kUnique, kSortUnique, kHashAggregate };

struct DistinctChoice {
  size_t rel = 0;    // the input relation
  size_t input = 0;  // the path of that relation under the chosen plan
  DistinctKind kind = DistinctKind::kUnique;
  PathCost sort;      // kSortUnique: the Sort under the Unique
  PathCost distinct;  // the Unique or HashAggregate
  // The HashAggregate's output sorted for ORDER BY (bounded by LIMIT + OFFSET).
  std::optional<PathCost> order_sort;
  int planned_partitions = 0;  // HashAggregate: the batches it expects to spill into
};

// Unique over `input`: one comparison per column per input row (create_upper_unique_path).
PathCost cost_unique(const CostSettings& cs, const PathCost& input, size_t columns,
                     double num_groups);

// HashAggregate with no aggregates (cost_agg, AGG_HASHED): hashing each input row's
// group columns, a tuple per group, and, when the groups outgrow hash_mem (work_mem *
// hash_mem_multiplier 2.0), PostgreSQL's spill estimate. `partitions` gets the
// partitions the executor would plan (0 when it fits).
PathCost cost_hash_distinct(const CostSettings& cs, const PathCost& input, size_t group_columns,
                            double num_groups, int input_width, int* partitions = nullptr);

// set_cheapest's cheapest total path of `inputs`: the lowest total, then startup, then
// the first.
size_t cheapest_total(const std::vector<DistinctInput>& inputs);

// The plan PostgreSQL would pick over `rels` (each with at least one path, in the order
// PostgreSQL adds their distinct paths).
DistinctChoice choose_distinct(const CostSettings& cs, const DistinctQuery& q,
                               const std::vector<DistinctInputRel>& rels);

// What the nodes of a distinct plan take, over the scan's slots.
struct DistinctNodeSpec {
  std::vector<scans::SortKey> keys;  // the DISTINCT keys: the Sort's and the Unique's
  // DISTINCT ON: what the Unique compares instead (none: every row equals the first)
  std::optional<std::vector<uint32_t>> unique_slots;
  std::string key_text;                    // "Sort Key: b DESC, c" of the Sort under the Unique
  std::vector<uint32_t> group_slots;       // the HashAggregate's group
  std::string group_text;                  // "Group Key: c, b"
  std::vector<scans::SortKey> order_keys;  // ORDER BY's, for the Sort above a HashAggregate
  std::string order_text;
  int64_t order_bound = 0;  // LIMIT + OFFSET (0: none)
  bool result = false;      // a Result above the Unique (PostgreSQL's projection)
  int width = 0;
  // The Sort under a Unique and a HashAggregate: PostgreSQL sizes them by their input,
  // which over a dummy relation (WHERE folded to FALSE) is 0 bytes wide; -1: `width`.
  int input_width = -1;
  uint64_t max_bytes = 0;  // the in-memory bound of a Sort or the hash table
  // Over the one row of a plain Aggregate: the nodes pass it on (scans::OneRowNode).
  bool one_row = false;
};

// `scan` (the chosen input, its estimate set) under the nodes of `choice`: Sort ->
// Unique, Unique, or HashAggregate [-> Sort], each with its EXPLAIN estimate.
std::unique_ptr<scans::ExecNode> build_distinct(std::unique_ptr<scans::ExecNode> scan,
                                                const DistinctChoice& choice,
                                                const DistinctNodeSpec& spec);

}  // namespace tp
