#include "engine/plan/partial_grouping.h"

#include "engine/plan/parallel_cost.h"
#include "engine/plan/plan_steps.h"
#include "scans/incremental_sort.h"
#include "scans/project.h"

namespace tp {
namespace {

// The participant's grouping over `input` (sorted on the keys for kSorted), its partial
// target's cost per group included.
PathCost participant_cost(const CostSettings& cs, const PartialGroupingQuery& q,
                          AggStrategy strategy, const PathCost& input, int input_width,
                          int* partitions) {
  PathCost c;
  if (q.group_columns == 0) strategy = AggStrategy::kPlain;  // HAVING without GROUP BY
  if (!q.has_aggs && strategy == AggStrategy::kSorted) {
    c = cost_group(cs, input, q.group_columns, q.groups);
  } else {
    GroupAggInput in;
    in.strategy = strategy;
    in.aggs = q.aggs;
    in.states = q.states;
    in.group_columns = q.group_columns;
    in.groups = q.groups;
    in.input = input;
    in.input_width = input_width;
    const GroupAggCost g = cost_agg(cs, in);
    c = g.path;
    if (partitions)
      *partitions =
          executor_planned_partitions(cs, input_width, q.states.transition_space, q.groups);
  }
  c.total += q.output_cost * c.rows;
  return disabled_if(strategy == AggStrategy::kHashed && !q.enable_hashagg, c);
}

}  // namespace

std::vector<PartialGroupedPath> partial_grouped_paths(const CostSettings& cs,
                                                      const PartialGroupingQuery& q,
                                                      const std::vector<PartialScan>& partials) {
  // The participants' paths as add_partial_path keeps them (`each` in the order made).
  std::vector<PartialScan> each;
  std::vector<ParticipantGrouping> shapes;
  std::vector<size_t> kept;
  auto add = [&](size_t scan, ParticipantGrouping g, size_t keys) {
    PartialScan p = partials[scan];
    p.path = g.agg;
    p.keys = keys;
    p.width = q.width;
    g.scan = scan;
    g.presorted = partials[scan].keys;
    each.push_back(std::move(p));
    shapes.push_back(g);
    add_partial_path(kept, each, each.size() - 1);
  };
  for (size_t i = 0; i < partials.size(); ++i) {
    const PartialScan& p = partials[i];
    const bool is_sorted = p.keys == q.pathkeys;
    ParticipantGrouping g;
    g.strategy = AggStrategy::kSorted;
    if (i == 0 || is_sorted) {
      PathCost input = p.path;
      if (!is_sorted) {
        g.input_sort = InputSort::kSort;
        g.sort = disabled_if(!q.enable_sort, cost_sort(cs, p.path, p.path.rows, p.width, 0, -1));
        input = g.sort;
      }
      g.agg = participant_cost(cs, q, AggStrategy::kSorted, input, p.width, nullptr);
      add(i, g, q.pathkeys);
    }
    if (is_sorted || !q.enable_incremental_sort || p.keys == 0) continue;
    g.input_sort = InputSort::kIncrementalSort;
    g.sort = q.incremental_sort(p.path, p.keys);
    g.agg = participant_cost(cs, q, AggStrategy::kSorted, g.sort, p.width, nullptr);
    add(i, g, q.pathkeys);
  }
  if (q.group_columns > 0) {
    ParticipantGrouping g;
    g.strategy = AggStrategy::kHashed;
    g.agg = participant_cost(cs, q, AggStrategy::kHashed, partials[0].path, partials[0].width,
                             &g.planned_partitions);
    add(0, g, 0);
  }
  // gather_grouping_paths: a Gather over the cheapest (rows: its groups times the
  // workers), a Gather Merge over each in the keys' order, one over the cheapest sorted.
  std::vector<PartialGroupedPath> out;
  const PartialScan& cheapest = each[kept[0]];
  PartialGroupedPath gather;
  gather.cost = cost_gather(cs, cheapest.path, cheapest.path.rows * cheapest.workers);
  gather.participant = shapes[kept[0]];
  out.push_back(gather);
  for (size_t k : kept) {
    if (each[k].keys == 0) continue;  // no pathkeys: no Gather Merge
    PartialGroupedPath gm;
    gm.cost = cost_gather_merge(cs, each[k].path, each[k].path.rows * each[k].workers,
                                each[k].workers, !q.enable_gathermerge);
    gm.keys = q.pathkeys;
    gm.merge = true;
    gm.participant = shapes[k];
    out.push_back(gm);
  }
  if (cheapest.keys != q.pathkeys) {
    PartialGroupedPath gm;
    gm.sort_above = disabled_if(!q.enable_sort,
                                cost_sort(cs, cheapest.path, cheapest.path.rows, q.width, 0, -1));
    gm.cost = cost_gather_merge(cs, gm.sort_above, gm.sort_above.rows * cheapest.workers,
                                cheapest.workers, !q.enable_gathermerge);
    gm.keys = q.pathkeys;
    gm.merge = true;
    gm.sorted_above = true;
    gm.participant = shapes[kept[0]];
    out.push_back(gm);
  }
  return out;
}

std::vector<SortedGather> sorted_gathers(
    PlanContext& ctx, const std::vector<PartialScan>& partials,
    std::vector<std::shared_ptr<const TypedExpr>> computed, std::vector<scans::SortKey> sort_keys,
    const std::string& sort_text, const std::vector<std::string>& key_texts, double rel_rows,
    int width, const std::function<PathCost(const PathCost&, size_t)>& incremental_sort) {
  const PlannerSettings& ps = ctx.settings;
  const CostSettings& cs = ps.costs;
  std::vector<SortedGather> out;
  const size_t keys = sort_keys.size();
  const SortSpec merge{sort_keys, sort_text, 0, kSortMemoryLimitBytes};
  auto add = [&](const PartialScan& p, InputSort how, const PathCost& sorted) {
    const PathCost gm = cost_gather_merge(cs, sorted, rel_rows, p.workers, !ps.enable_gathermerge);
    // Each participant: its projection, then the sort (no grouping node above).
    std::string presorted_text;
    for (size_t k = 0; k < p.keys; ++k)
      presorted_text += (presorted_text.empty() ? "" : ", ") + key_texts[k];
    auto top = [computed, keys = sort_keys, text = sort_text, how, presorted = p.keys,
                presorted_text,
                estimate = scans::PlanEstimate{sorted.startup, sorted.total, sorted.rows, width}](
                   std::unique_ptr<scans::ExecNode> node) {
      const scans::PlanEstimate e = node->estimate;
      node = std::make_unique<scans::ProjectNode>(std::move(node), computed);
      node->estimate = e;
      if (how == InputSort::kSort)
        node = std::make_unique<scans::SortNode>(std::move(node), keys, text, 0,
                                                 kSortMemoryLimitBytes);
      else
        node = std::make_unique<scans::IncrementalSortNode>(std::move(node), keys, presorted, text,
                                                            presorted_text, kSortMemoryLimitBytes);
      node->estimate = estimate;
      return node;
    };
    out.push_back({gm, [&ctx, p, gm, width, merge, top] {
                     return build_gather_merge_over(ctx, p, gm, width, merge, top);
                   }});
  };
  for (size_t i = 0; i < partials.size(); ++i) {
    const PartialScan& p = partials[i];
    if (p.keys >= keys) continue;
    if (i == 0)
      add(p, InputSort::kSort,
          disabled_if(!ps.enable_sort, cost_sort(cs, p.path, p.path.rows, width, 0, -1)));
    if (ps.enable_incremental_sort && p.keys > 0)
      add(p, InputSort::kIncrementalSort, incremental_sort(p.path, p.keys));
  }
  return out;
}

}  // namespace tp
