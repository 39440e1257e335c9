#include "engine/plan/distinct_paths.h"

#include "engine/plan/incremental_sort.h"
#include "engine/plan/parallel_cost.h"
#include "scans/distinct.h"
#include "scans/one_time_false.h"

namespace tp {
namespace {

// set_cheapest's cheapest total path: the lowest total, then startup, then the first.
size_t cheapest_total(const std::vector<DistinctInput>& inputs) {
  size_t best = 0;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const PathCost &p = inputs[i].cost, &b = inputs[best].cost;
    if (p.total < b.total || (p.total == b.total && p.startup < b.startup)) best = i;
  }
  return best;
}

// The table's parallel paths that add_path keeps beside the serial ones (fuzzily
// cheaper, or cheaper at startup under a LIMIT): the Gather, and for DISTINCT keys the
// Gather Merge over each participant's Sort (generate_useful_gather_paths, no bound).
void add_gather_paths(PlanContext& ctx, const ScanQuery& q, const RelSize& rs,
                      const PartialScan& partial, std::vector<DistinctScanPath>& paths) {
  const bool startup = q.limit.has_value();
  const size_t serial = paths.size();
  const GatherPath g = gather_rows(ctx.settings.costs, partial, rs.rows);
  bool kept = true;
  for (size_t i = 0; i < serial; ++i)
    kept = kept && parallel_path_survives(g.path, paths[i].input.cost, startup);
  if (kept)
    paths.push_back({{g.path, q.order.empty(), false},
                     [&ctx, partial, g] { return build_gather(ctx, partial, g, nullptr); },
                     {}});
  if (q.order.empty() || q.sort.keys.empty()) return;
  const GatherMergePath gm = gather_merge_sorted(ctx.settings, partial, -1, rs.rows);
  kept = true;
  for (size_t i = 0; i < serial; ++i)
    if (paths[i].input.ordered)
      kept = kept && parallel_path_survives(gm.path, paths[i].input.cost, startup);
  if (kept)
    paths.push_back(
        {{gm.path, true, false},
         [&ctx, &q, partial, gm] { return build_gather_merge(ctx, partial, gm, q.sort, q.sort); },
         {}});
}

// The partial distinct relation's path: Gather over each participant's HashAggregate
// of its share (rows: the groups per participant times the workers, as
// generate_gather_paths with override_rows). The participants' paths have no order a
// Unique could use, unless there are no DISTINCT keys (every column fixed by WHERE):
// then a Unique of no keys, cheaper than any HashAggregate, returns each one's first row.
DistinctScanPath partial_hash_path(PlanContext& ctx, const ScanQuery& q,
                                   const RelationStatsView& view, const RelSize& rs,
                                   const PartialScan& partial, const DistinctQuery& dq) {
  const CostSettings& cs = ctx.settings.costs;
  const double per = estimate_num_groups(view, q.distinct_columns, partial.path.rows, rs.rows);
  int parts = 0;
  const bool unique = q.order.empty();
  const PathCost each =
      unique ? cost_unique(cs, partial.path, 0, per)
             : cost_hash_distinct(cs, partial.path, dq.group_columns, per, dq.width, &parts);
  const GatherPath g{cost_gather(cs, each, per * partial.workers), dq.width};
  const scans::PlanEstimate estimate{each.startup, each.total, each.rows, dq.width};
  // Called per participant at run time: it holds copies, not the query.
  auto top = [slots = q.distinct_group_slots, text = q.distinct_group_text, parts,
              max_bytes = q.sort.max_bytes, estimate,
              unique](std::unique_ptr<scans::ExecNode> scan) {
    std::unique_ptr<scans::ExecNode> n;
    if (unique)
      n = std::make_unique<scans::UniqueNode>(std::move(scan), std::vector<uint32_t>{});
    else
      n = std::make_unique<scans::HashAggregateNode>(std::move(scan), slots, text, parts,
                                                     max_bytes);
    n->estimate = estimate;
    return n;
  };
  return {{g.path, unique, false},
          [&ctx, partial, g, top] { return build_gather_over(ctx, partial, g, top); },
          {}};
}

}  // namespace

ChosenScan choose_distinct_scan(PlanContext& ctx, const ScanQuery& q, const RelationStatsView& view,
                                const RelSize& rs, int width, std::vector<DistinctScanPath> paths,
                                const std::optional<PartialScan>& partial) {
  const CostSettings& cs = ctx.settings.costs;
  DistinctQuery dq = *q.distinct;
  if (dq.width == 0) dq.width = width;
  if (partial) add_gather_paths(ctx, q, rs, *partial, paths);
  DistinctInputRel table;
  std::vector<size_t> table_paths;
  for (size_t i = 0; i < paths.size(); ++i) {
    table.inputs.push_back(paths[i].input);
    table_paths.push_back(i);
  }
  table.cheapest = cheapest_total(table.inputs);
  table.num_groups = estimate_num_groups(view, q.distinct_columns,
                                         table.inputs[table.cheapest].cost.rows, rs.rows);
  // create_partial_distinct_paths runs first: its relation's paths come first.
  std::vector<DistinctInputRel> rels;
  std::vector<std::vector<size_t>> path_of;  // which of `paths` each relation's input is
  if (partial && (dq.enable_hashagg || q.order.empty())) {
    paths.push_back(partial_hash_path(ctx, q, view, rs, *partial, dq));
    rels.push_back(
        {{paths.back().input},
         0,
         estimate_num_groups(view, q.distinct_columns, paths.back().input.cost.rows, rs.rows)});
    path_of.push_back({paths.size() - 1});
  }
  rels.push_back(std::move(table));
  path_of.push_back(std::move(table_paths));
  ChosenScan chosen;
  chosen.distinct = choose_distinct(cs, dq, rels);
  const DistinctScanPath& in = paths[path_of[chosen.distinct->rel][chosen.distinct->input]];
  chosen.node = in.build();
  chosen.node->estimate = {in.input.cost.startup, in.input.cost.total, in.input.cost.rows,
                           dq.width};
  // Restrictions proven false: PostgreSQL's gating Result over the scan.
  if (q.one_time_false) {
    chosen.node = std::make_unique<scans::OneTimeFalseNode>(std::move(chosen.node));
    chosen.node->estimate = {in.input.cost.startup, in.input.cost.total, in.input.cost.rows,
                             dq.width};
  }
  chosen.path = in.input.cost;
  chosen.ordered = in.input.ordered;
  chosen.parallel_safe = in.input.parallel_safe;
  chosen.width = width;
  chosen.physical_columns = in.physical;
  return chosen;
}

}  // namespace tp
