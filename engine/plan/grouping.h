// GROUP BY as PostgreSQL 15 plans it over one relation's paths (planner.c
// add_paths_to_grouping_rel, create_ordered_paths, pathnode.c add_path):
//
//   sorted:  over the cheapest path (Sort on the grouping keys first unless it is
//            ordered) and over every path already ordered by them, a GroupAggregate
//            (or a Group without aggregates); over a path ordered by a leading part
//            of the keys, an Incremental Sort then the GroupAggregate;
//   hashed:  a HashAggregate over the cheapest path (not with DISTINCT aggregates);
//
// then, for ORDER BY, each grouped path already in its order as it is, the cheapest
// under a Sort bounded by the LIMIT, and those in a leading part of its order under an
// Incremental Sort; then the Limit. Each step keeps its paths as add_path does, and
// the final relation's cheapest total wins.
//
//   GroupingChoice c = choose_grouping(cs, query, input);
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "engine/plan/agg_cost.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/join_cost.h"

namespace tp {

struct GroupingQuery {
  size_t pathkeys = 0;          // group_pathkeys (keys WHERE fixes left out)
  int group_columns = 0;        // numGroupCols: the GROUP BY clause's keys
  bool has_aggs = true;         // an Agg; else a Group node for the sorted strategy
  bool can_hash = true;         // no DISTINCT aggregate
  AggClauseCosts aggs{};        // AGGSPLIT_SIMPLE
  AggClauseCosts final_aggs{};  // AGGSPLIT_FINAL_DESERIAL, over a partially grouped relation
  AggStates states{};
  std::optional<HavingQual> having;
  double output_cost = 0;  // the grouped target list's cost per group
  int input_width = 0;     // the input rows' width
  int width = 0;           // the grouped rows' width
  bool enable_hashagg = true;
  bool enable_sort = true;
  bool enable_incremental_sort = true;
  // ORDER BY over the grouped rows: its pathkeys, and how many of them lead the
  // grouping keys (all of them: a sorted grouping is already in ORDER BY's order).
  bool has_order_by = false;
  size_t order_pathkeys = 0;
  size_t order_in_group = 0;
  std::optional<double> limit_count;
  double offset = 0;
  double limit_tuples = -1;  // LIMIT + OFFSET; -1: none
  // Incremental Sort over `input`, ordered by its first `presorted` keys (grouping keys
  // for the input, ORDER BY keys for the grouped rows), `limit` rows wanted (-1: all).
  std::function<PathCost(const PathCost& input, size_t presorted, double limit)> incremental_sort;
  std::function<PathCost(const PathCost& grouped, size_t presorted, double limit)>
      order_incremental_sort;
};

// One path of the input relation: `presorted` leading grouping keys in order.
struct GroupingInput {
  PathCost cost;
  size_t presorted = 0;
  bool parallel_safe = true;
};

// The table's relation, or the partially grouped one (`finalize`: its paths are Gathers
// of participants' states, which a Finalize node combines).
struct GroupingInputRel {
  std::vector<GroupingInput> inputs;
  size_t cheapest = 0;
  double num_groups = 1;
  bool finalize = false;
  int input_width = 0;
};

enum class InputSort { kNone, kSort, kIncrementalSort };

struct GroupingChoice {
  size_t rel = 0;  // which input relation
  size_t input = 0;
  AggStrategy strategy = AggStrategy::kHashed;
  InputSort input_sort = InputSort::kNone;
  PathCost sort{};  // the Sort or Incremental Sort under a GroupAggregate
  PathCost agg{};   // the grouping node, its output cost included
  int planned_partitions = 0;
  // ORDER BY's Sort or Incremental Sort above (presorted: its leading keys in order).
  InputSort order_sort = InputSort::kNone;
  PathCost order{};
  size_t order_presorted = 0;
};

// set_cheapest's cheapest total path of `inputs`.
size_t cheapest_total_input(const std::vector<GroupingInput>& inputs);

// `rels`: the table's relation, then (when made) the partially grouped one.
GroupingChoice choose_grouping(const CostSettings& cs, const GroupingQuery& q,
                               const std::vector<GroupingInputRel>& rels);

}  // namespace tp
