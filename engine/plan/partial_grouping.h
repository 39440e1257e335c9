// GROUP BY's partially grouped relation, as PostgreSQL 15 makes it over a table's partial
// paths (planner.c create_partial_grouping_paths, gather_grouping_paths): in each
// participant a Partial GroupAggregate over every partial path in the keys' order (the
// cheapest one sorted first, one in a leading part of the order under an Incremental
// Sort) and a Partial HashAggregate over the cheapest, kept by add_partial_path; then a
// Gather over the cheapest, a Gather Merge over each one in the keys' order, and a Gather
// Merge over the cheapest sorted in each participant. A Finalize GroupAggregate or
// HashAggregate above one of them (engine/plan/grouping.h) combines the participants'
// states.
//
//   std::vector<PartialGroupedPath> rel = partial_grouped_paths(cs, query, partials);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/plan/grouping.h"
#include "engine/plan/parallel_paths.h"

namespace tp {

struct PartialGroupingQuery {
  size_t pathkeys = 0;  // group_pathkeys
  int group_columns = 0;
  bool has_aggs = true;
  AggClauseCosts aggs{};  // AGGSPLIT_INITIAL_SERIAL
  AggStates states{};
  double groups = 1;       // per participant, over the cheapest partial path's rows
  double output_cost = 0;  // the partial target's per group (the keys' expressions)
  int width = 0;           // the partial rows' (keys and states)
  bool enable_hashagg = true;
  bool enable_sort = true;
  bool enable_incremental_sort = true;
  bool enable_gathermerge = true;
  // An Incremental Sort over a partial path ordered by its first `presorted` keys.
  std::function<PathCost(const PathCost&, size_t presorted)> incremental_sort;
};

// What each participant runs over its copy of partial path `scan`.
struct ParticipantGrouping {
  size_t scan = 0;
  AggStrategy strategy = AggStrategy::kHashed;
  InputSort input_sort = InputSort::kNone;
  PathCost sort{};  // the participant's Sort or Incremental Sort under the grouping
  PathCost agg{};
  int planned_partitions = 0;
  size_t presorted = 0;  // the partial path's leading keys in order
};

// One path of the partially grouped relation: a Gather or Gather Merge over the
// participants' grouping (over their Sort of it for `sorted_above`).
struct PartialGroupedPath {
  PathCost cost;
  size_t keys = 0;  // the grouping keys its rows come in (a Gather Merge's: all)
  bool merge = false;
  bool sorted_above = false;
  PathCost sort_above{};  // per participant
  ParticipantGrouping participant;
};

std::vector<PartialGroupedPath> partial_grouped_paths(const CostSettings& cs,
                                                      const PartialGroupingQuery& q,
                                                      const std::vector<PartialScan>& partials);

// The table's Gather Merges in the grouping keys' order when some key is an expression
// (apply_scanjoin_target_to_paths' second generate_useful_gather_paths, once the
// participants compute it): over the cheapest partial path sorted in each participant,
// over each one in a leading part of the order under an Incremental Sort. Each
// participant projects `computed` after its scan's slots, then sorts on `sort_keys`
// (EXPLAIN's `sort_text`; `key_texts`: each key as a Presorted Key prints it); the Gather
// Merge estimates the table's rows.
struct SortedGather {
  PathCost cost;
  std::function<std::unique_ptr<scans::ExecNode>()> build;
};
std::vector<SortedGather> sorted_gathers(
    PlanContext& ctx, const std::vector<PartialScan>& partials,
    std::vector<std::shared_ptr<const TypedExpr>> computed, std::vector<scans::SortKey> sort_keys,
    const std::string& sort_text, const std::vector<std::string>& key_texts, double rel_rows,
    int width, const std::function<PathCost(const PathCost&, size_t)>& incremental_sort);

}  // namespace tp
