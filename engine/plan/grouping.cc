#include "engine/plan/grouping.h"

#include <algorithm>

#include "engine/plan/parallel_cost.h"

namespace tp {
namespace {

// A relation's paths as add_path keeps them, with each path's plan in `shapes`.
struct UpperRel {
  std::vector<GroupingChoice> shapes;
  std::vector<RelPath> paths;

  void add(const GroupingChoice& c, const PathCost& cost, int keys, bool safe, bool startup) {
    shapes.push_back(c);
    add_path(paths, {cost, safe, int(shapes.size() - 1), keys}, startup);
  }
  // The paths in PostgreSQL's pathlist order: by total cost, the earlier first on a tie.
  std::vector<RelPath> by_total() const {
    std::vector<RelPath> out = paths;
    std::stable_sort(out.begin(), out.end(), [](const RelPath& a, const RelPath& b) {
      return a.cost.total < b.cost.total;
    });
    return out;
  }
  const RelPath& cheapest() const {
    const RelPath* best = &paths.front();
    for (const RelPath& p : paths)
      if (p.cost.total < best->cost.total ||
          (p.cost.total == best->cost.total && p.cost.startup < best->cost.startup))
        best = &p;
    return *best;
  }
};

// The grouping node over `input` (sorted on the keys for kSorted), with the target
// list's cost per group (create_agg_path / create_group_path add it).
GroupAggCost grouping_cost(const CostSettings& cs, const GroupingQuery& q, AggStrategy strategy,
                           const GroupingInputRel& rel, const PathCost& input) {
  const double groups = rel.num_groups;
  GroupAggCost c;
  if (q.group_columns == 0) strategy = AggStrategy::kPlain;  // HAVING without GROUP BY
  if (!q.has_aggs && strategy == AggStrategy::kSorted) {
    c.path = cost_group(cs, input, q.group_columns, groups, q.having);
  } else {
    GroupAggInput in;
    in.strategy = strategy;
    in.aggs = rel.finalize ? q.final_aggs : q.aggs;
    in.states = q.states;
    in.group_columns = q.group_columns;
    in.groups = groups;
    in.input = input;
    in.input_width = rel.finalize ? rel.input_width : q.input_width;
    in.having = q.having;
    c = cost_agg(cs, in);
  }
  c.path.total += q.output_cost * c.path.rows;
  if (strategy == AggStrategy::kHashed && !q.enable_hashagg) c.path = disabled_if(true, c.path);
  return c;
}

// add_paths_to_grouping_rel: the sorted strategy over the table's paths, then over the
// partially grouped relation's; the hashed one over each relation's cheapest.
void add_grouping_paths(const CostSettings& cs, const GroupingQuery& q,
                        const std::vector<GroupingInputRel>& rels, bool startup, UpperRel& out) {
  const int all = int(q.pathkeys);
  for (size_t r = 0; r < rels.size(); ++r) {
    const GroupingInputRel& rel = rels[r];
    std::vector<size_t> order(rel.inputs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return rel.inputs[a].cost.total < rel.inputs[b].cost.total;
    });
    const int width = rel.finalize ? rel.input_width : q.input_width;
    auto sorted_agg = [&](size_t i, InputSort how, const PathCost& sorted) {
      GroupingChoice c;
      c.rel = r;
      c.input = i;
      c.strategy = AggStrategy::kSorted;
      c.input_sort = how;
      c.sort = sorted;
      c.agg = grouping_cost(cs, q, AggStrategy::kSorted, rel, sorted).path;
      out.add(c, c.agg, all, rel.inputs[i].parallel_safe, startup);
    };
    for (size_t i : order) {
      const GroupingInput& in = rel.inputs[i];
      const bool is_sorted = in.presorted == q.pathkeys;
      if (i == rel.cheapest || is_sorted) {
        if (is_sorted)
          sorted_agg(i, InputSort::kNone, in.cost);
        else
          sorted_agg(
              i, InputSort::kSort,
              disabled_if(!q.enable_sort, cost_sort(cs, in.cost, in.cost.rows, width, 0, -1)));
      }
      if (is_sorted || !q.enable_incremental_sort || in.presorted == 0) continue;
      sorted_agg(i, InputSort::kIncrementalSort, q.incremental_sort(in.cost, in.presorted, -1));
    }
  }
  if (!q.can_hash) return;
  for (size_t r = 0; r < rels.size(); ++r) {
    const GroupingInputRel& rel = rels[r];
    GroupingChoice c;
    c.rel = r;
    c.input = rel.cheapest;
    c.strategy = AggStrategy::kHashed;
    const GroupAggCost h =
        grouping_cost(cs, q, AggStrategy::kHashed, rel, rel.inputs[rel.cheapest].cost);
    c.agg = h.path;
    c.planned_partitions =
        executor_planned_partitions(cs, rel.finalize ? rel.input_width : q.input_width,
                                    q.states.transition_space, rel.num_groups);
    out.add(c, c.agg, 0, rel.inputs[rel.cheapest].parallel_safe, startup);
  }
}

}  // namespace

size_t cheapest_total_input(const std::vector<GroupingInput>& inputs) {
  size_t best = 0;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const PathCost &p = inputs[i].cost, &b = inputs[best].cost;
    if (p.total < b.total || (p.total == b.total && p.startup < b.startup)) best = i;
  }
  return best;
}

GroupingChoice choose_grouping(const CostSettings& cs, const GroupingQuery& q,
                               const std::vector<GroupingInputRel>& rels) {
  const bool startup = q.limit_count.has_value();
  UpperRel grouped;
  add_grouping_paths(cs, q, rels, startup, grouped);
  // create_ordered_paths: a grouped path in ORDER BY's order as it is; the cheapest under
  // a Sort; one in a leading part of the order under an Incremental Sort.
  UpperRel ordered;
  if (q.has_order_by && q.order_pathkeys > 0) {
    const int cheapest = grouped.cheapest().id;
    for (const RelPath& p : grouped.by_total()) {
      GroupingChoice c = grouped.shapes[size_t(p.id)];
      const size_t presorted = p.keys > 0 ? q.order_in_group : 0;
      if (presorted == q.order_pathkeys) {
        // Its pathkeys are the grouping's, which ORDER BY's begin: longer than a Sort's.
        ordered.add(c, p.cost, p.keys > 0 ? p.keys : int(q.order_pathkeys), p.parallel_safe,
                    startup);
        continue;
      }
      if (p.id == cheapest) {
        c.order_sort = InputSort::kSort;
        c.order = disabled_if(!q.enable_sort,
                              cost_sort(cs, p.cost, p.cost.rows, q.width, 0, q.limit_tuples));
        ordered.add(c, c.order, int(q.order_pathkeys), p.parallel_safe, startup);
      }
      if (!q.enable_incremental_sort || presorted == 0) continue;
      c = grouped.shapes[size_t(p.id)];
      c.order_sort = InputSort::kIncrementalSort;
      c.order_presorted = presorted;
      c.order = q.order_incremental_sort(p.cost, presorted, q.limit_tuples);
      ordered.add(c, c.order, int(q.order_pathkeys), p.parallel_safe, startup);
    }
  } else {
    ordered = grouped;
  }
  std::vector<RelPath> final_rel;
  for (RelPath p : ordered.paths) {
    if (q.limit_count || q.offset > 0)
      p.cost = cost_limit(p.cost, q.offset, q.limit_count.value_or(-1));
    add_path(final_rel, p, startup);
  }
  UpperRel last;
  last.paths = final_rel;
  return ordered.shapes[size_t(last.cheapest().id)];
}

}  // namespace tp
