#include "engine/plan/distinct_paths.h"

#include "engine/plan/incremental_sort.h"
#include "engine/plan/parallel_cost.h"
#include "scans/distinct.h"
#include "scans/one_time_false.h"

namespace tp {

size_t cheapest_total(const std::vector<DistinctInput>& inputs) {
  size_t best = 0;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const PathCost &p = inputs[i].cost, &b = inputs[best].cost;
    if (p.total < b.total || (p.total == b.total && p.startup < b.startup)) best = i;
  }
  return best;
}

namespace {

// The table's Gather and Gather Merges that add_path keeps beside its serial paths
// (fuzzily cheaper, or cheaper at startup under a LIMIT, or in more of the order) and
// beside each other. A parallel-unsafe path never drops a serial one.
void add_gather_paths(const ScanQuery& q, const std::vector<DistinctGatherPath>& gathers,
                      std::vector<DistinctScanPath>& paths) {
  const size_t all = q.order.size();
  std::vector<RelPath> kept;
  for (size_t i = 0; i < paths.size(); ++i)
    kept.push_back({paths[i].input.cost, true, -1, paths[i].input.ordered ? int(all) : 0});
  for (size_t i = 0; i < gathers.size(); ++i)
    add_path(kept, {gathers[i].cost, false, int(i), int(gathers[i].keys)}, q.limit.has_value());
  for (const RelPath& k : kept) {
    if (k.id < 0) continue;
    const DistinctGatherPath& g = gathers[size_t(k.id)];
    paths.push_back({{g.cost, g.keys == all, false}, g.build, {}});
  }
}

// One path of the partial distinct relation: each participant's Unique over a partial
// path in the DISTINCT order, or its HashAggregate over the cheapest.
struct PartialDistinct {
  size_t scan = 0;  // which partial path
  bool hash = false;
  int parts = 0;  // the HashAggregate's planned partitions
};

// The participant's node over its copy of the partial path. Called per participant at
// run time: it holds copies, not the query.
ParticipantTop partial_distinct_top(const ScanQuery& q, const PartialDistinct& d,
                                    const PathCost& each, int width) {
  const scans::PlanEstimate estimate{each.startup, each.total, each.rows, width};
  std::vector<uint32_t> keys;
  for (const scans::SortKey& k : q.sort.keys) keys.push_back(k.slot);
  if (q.order.empty()) keys.clear();
  return [slots = q.distinct_group_slots, text = q.distinct_group_text, d, keys,
          max_bytes = q.sort.max_bytes, estimate](std::unique_ptr<scans::ExecNode> scan) {
    std::unique_ptr<scans::ExecNode> n;
    if (d.hash)
      n = std::make_unique<scans::HashAggregateNode>(std::move(scan), slots, text, d.parts,
                                                     max_bytes);
    else
      n = std::make_unique<scans::UniqueNode>(std::move(scan), keys);
    n->estimate = estimate;
    return n;
  };
}

// PostgreSQL 15's partial distinct relation (create_partial_distinct_paths): a Unique
// in each participant over every partial path in the DISTINCT order (all of them when
// WHERE fixes every DISTINCT column) and a HashAggregate over the cheapest, the groups
// per participant estimated from the cheapest's rows; add_partial_path keeps the
// cheapest and those in the order; then generate_gather_paths with its rows overridden
// (groups x workers): a Gather over the cheapest and a Gather Merge over each ordered one.
std::vector<DistinctScanPath> partial_distinct_paths(PlanContext& ctx, const ScanQuery& q,
                                                     const RelationStatsView& view,
                                                     const RelSize& rs,
                                                     const std::vector<PartialScan>& partials,
                                                     const DistinctQuery& dq) {
  const CostSettings& cs = ctx.settings.costs;
  const double per = estimate_num_groups(view, q.distinct_columns, partials[0].path.rows, rs.rows,
                                         q.distinct_boolean_exprs, q.distinct_expr_vars);
  const size_t all = q.order.size();
  std::vector<PartialScan> each;  // the participants' paths, as add_partial_path weighs them
  std::vector<PartialDistinct> shape;
  std::vector<size_t> kept;
  auto add = [&](const PartialScan& scan, PathCost cost, size_t keys, PartialDistinct d) {
    PartialScan p = scan;
    p.path = cost;
    p.keys = keys;
    p.width = dq.width;
    each.push_back(std::move(p));
    shape.push_back(d);
    add_partial_path(kept, each, each.size() - 1);
  };
  const bool keys_known = all == 0 || q.sort.keys.size() == all;
  for (size_t i = 0; i < partials.size() && keys_known; ++i)
    if (all == 0 || partials[i].keys == all)
      add(partials[i], cost_unique(cs, partials[i].path, dq.unique_columns, per), all, {i});
  if (dq.enable_hashagg && all > 0) {
    PartialDistinct d{0, true, 0};
    const PathCost c =
        cost_hash_distinct(cs, partials[0].path, dq.group_columns, per, dq.width, &d.parts);
    add(partials[0], c, 0, d);
  }
  std::vector<DistinctScanPath> out;
  if (kept.empty()) return out;
  const PartialScan& cheapest = each[kept[0]];
  const GatherPath g{cost_gather(cs, cheapest.path, per * cheapest.workers), dq.width};
  ParticipantTop top = partial_distinct_top(q, shape[kept[0]], cheapest.path, dq.width);
  out.push_back({{g.path, all == 0, false},
                 [&ctx, scan = partials[shape[kept[0]].scan], g, top] {
                   return build_gather_over(ctx, scan, g, top);
                 },
                 {}});
  if (all == 0) return out;
  for (size_t k : kept) {
    if (each[k].keys != all) continue;
    const PathCost gm = cost_gather_merge(cs, each[k].path, per * each[k].workers, each[k].workers,
                                          !ctx.settings.enable_gathermerge);
    ParticipantTop t = partial_distinct_top(q, shape[k], each[k].path, dq.width);
    out.push_back({{gm, true, false},
                   [&ctx, &q, scan = partials[shape[k].scan], gm, t, width = dq.width] {
                     return build_gather_merge_over(ctx, scan, gm, width, q.sort, t);
                   },
                   {}});
  }
  return out;
}

}  // namespace

ChosenScan choose_distinct_scan(PlanContext& ctx, const ScanQuery& q, const RelationStatsView& view,
                                const RelSize& rs, int width, std::vector<DistinctScanPath> paths,
                                const std::vector<DistinctGatherPath>& gathers,
                                const std::vector<PartialScan>& partials) {
  const CostSettings& cs = ctx.settings.costs;
  DistinctQuery dq = *q.distinct;
  if (dq.width == 0) dq.width = width;
  add_gather_paths(q, gathers, paths);
  // The table's paths as add_path keeps them: a path fuzzily as cheap in total as
  // another that starts sooner, with no better order, is gone (an Index Scan of
  // 0.29..42.29 drops a Bitmap Heap Scan of 17.20..42.21).
  DistinctInputRel table;
  std::vector<size_t> table_paths;
  std::vector<RelPath> kept;
  for (size_t i = 0; i < paths.size(); ++i)
    add_path(
        kept,
        {paths[i].input.cost, paths[i].input.parallel_safe, int(i), paths[i].input.ordered ? 1 : 0},
        q.limit.has_value());
  for (const RelPath& k : kept) {
    table.inputs.push_back(paths[size_t(k.id)].input);
    table_paths.push_back(size_t(k.id));
  }
  table.cheapest = cheapest_total(table.inputs);
  table.num_groups =
      estimate_num_groups(view, q.distinct_columns, table.inputs[table.cheapest].cost.rows, rs.rows,
                          q.distinct_boolean_exprs, q.distinct_expr_vars);
  // create_partial_distinct_paths runs first: its relation's paths come first.
  std::vector<DistinctInputRel> rels;
  std::vector<std::vector<size_t>> path_of;  // which of `paths` each relation's input is
  if (!partials.empty() && dq.partial) {
    std::vector<DistinctScanPath> partial_rel =
        partial_distinct_paths(ctx, q, view, rs, partials, dq);
    if (!partial_rel.empty()) {
      DistinctInputRel rel;
      std::vector<RelPath> kept;
      for (size_t i = 0; i < partial_rel.size(); ++i)
        add_path(kept,
                 {partial_rel[i].input.cost, false, int(i), partial_rel[i].input.ordered ? 1 : 0},
                 q.limit.has_value());
      std::vector<size_t> ids;
      for (const RelPath& k : kept) {
        rel.inputs.push_back(partial_rel[size_t(k.id)].input);
        ids.push_back(paths.size());
        paths.push_back(std::move(partial_rel[size_t(k.id)]));
      }
      rel.cheapest = cheapest_total(rel.inputs);
      rel.num_groups =
          estimate_num_groups(view, q.distinct_columns, rel.inputs[rel.cheapest].cost.rows, rs.rows,
                              q.distinct_boolean_exprs, q.distinct_expr_vars);
      rels.push_back(std::move(rel));
      path_of.push_back(std::move(ids));
    }
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
