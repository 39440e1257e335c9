#include "engine/plan/grouping_planner.h"

namespace tp::grouping_detail {

// With a key that is an expression the table has Gather Merges in the keys' order too,
// their participants computing it (sorted_gathers); a grouping over one computes
// nothing more.
void GroupingPlanner::add_sorted_gathers(TablePaths& t) {
  first_sorted_gather_ = t.paths.size();
  if (computed_keys_ == 0 || t.partials.empty() || dummy_ || gated_ ||
      sorted_prefix_ == pathkeys_.size())
    return;
  std::vector<PartialScan> partials = t.partials;
  for (PartialScan& p : partials) p.path.total += projection_cost_ * p.path.rows;
  std::vector<std::string> texts;
  for (size_t i : pathkeys_) texts.push_back(g_.keys[i].text);
  for (SortedGather& g :
       sorted_gathers(ctx_, partials, computed_, key_sort(key_slots_), sort_text_, texts,
                      t.size.rows, t.width, [&t](const PathCost&p, size_t presorted) {
                        return t.incremental_sort(p, presorted, -1);
                      })) {
    t.paths.push_back({g.cost, pathkeys_.size(), false, {}});
    t.builders.push_back(std::move(g.build));
  }
}

// create_partial_grouping_paths runs when the aggregates have partial forms (no
// DISTINCT one), the table has partial paths, and nothing above is parallel-restricted
// (a volatile call).
bool GroupingPlanner::can_partial(const TablePaths& t) const {
  if (t.partials.empty() || dummy_ || gated_) return false;
  if (std::any_of(g_.aggs.begin(), g_.aggs.end(), [](const BoundAgg& a) { return a.distinct; }))
    return false;
  auto volatile_expr = [](const std::shared_ptr<const TypedExpr>& e) {
    return e && expr_is_volatile(*e);
  };
  return std::none_of(computed_.begin(), computed_.end(), volatile_expr) &&
         !volatile_expr(g_.having) &&
         std::none_of(g_.outputs.begin(), g_.outputs.end(), volatile_expr);
}

// The partially grouped relation's paths as add_path keeps them, for the Finalize.
GroupingInputRel GroupingPlanner::partial_relation(const TablePaths& t, const GroupingQuery& q,
                                                   bool startup, std::vector<size_t>& ids) {
  partials_ = t.partials;
  for (PartialScan& p : partials_) p.path.total += projection_cost_ * p.path.rows;
  PartialGroupingQuery pq;
  pq.pathkeys = pathkeys_.size();
  pq.group_columns = int(g_.keys.size());
  pq.has_aggs = !g_.aggs.empty();
  pq.aggs = agg_clause_costs(cs_, calls_, AggSplit::kInitialSerial);
  pq.states = q.states;
  pq.groups = groups_over(*t.view, partials_[0].path.rows, t.size.rows);
  pq.output_cost = projection_cost_;
  for (size_t i = 0; i < g_.keys.size(); ++i)
    pq.width += g_.keys[i].column >= 0
                    ? column_width_of(g_.keys[i].column)
                    : type_avg_width(g_.keys[i].expr->type, g_.keys[i].expr->typmod);
  pq.width += partial_agg_width(calls_);
  partial_width_ = pq.width;
  const PlannerSettings& ps = ctx_.settings;
  pq.enable_hashagg = ps.enable_hashagg;
  pq.enable_sort = ps.enable_sort;
  pq.enable_incremental_sort = ps.enable_incremental_sort;
  pq.enable_gathermerge = ps.enable_gathermerge;
  pq.incremental_sort = [&t](const PathCost& p, size_t presorted) {
    return t.incremental_sort(p, presorted, -1);
  };
  partial_paths_ = partial_grouped_paths(cs_, pq, partials_);
  std::vector<RelPath> kept;
  for (size_t i = 0; i < partial_paths_.size(); ++i)
    add_path(kept, {partial_paths_[i].cost, false, int(i), int(partial_paths_[i].keys)}, startup);
  GroupingInputRel rel;
  rel.finalize = true;
  rel.input_width = pq.width;
  for (const RelPath& k : kept) {
    rel.inputs.push_back({k.cost, partial_paths_[size_t(k.id)].keys, false});
    ids.push_back(size_t(k.id));
  }
  rel.cheapest = cheapest_total_input(rel.inputs);
  rel.num_groups = num_groups_;
  return rel;
}

// The Gather or Gather Merge over the participants' partial grouping.
std::unique_ptr<scans::ExecNode> GroupingPlanner::gather_node(const PartialGroupedPath& p) {
  const ParticipantGrouping& part = p.participant;
  const PartialScan& scan = partials_[part.scan];
  GroupingNodes n;
  n.computed = computed_;
  n.input_sort = part.input_sort;
  n.sort_keys = key_sort(key_slots_);
  n.sort_text = sort_text_;
  n.presorted = part.presorted;
  n.presorted_text = presorted_text(part.presorted);
  n.sort_estimate = {part.sort.startup, part.sort.total, part.sort.rows, scan.width};
  n.spec = grouping_spec(part.strategy, scans::AggMode::kPartial, key_slots_, specs_,
                         part.input_sort != InputSort::kNone, part.planned_partitions);
  n.agg_estimate = {part.agg.startup, part.agg.total, part.agg.rows, partial_width_};
  std::vector<uint32_t> own(g_.keys.size());  // the keys in a partial row
  for (size_t i = 0; i < own.size(); ++i) own[i] = uint32_t(i);
  SortSpec merge{key_sort(own), sort_text_, 0, kSortMemoryLimitBytes};
  if (p.sorted_above) {
    n.sort_above = true;
    n.above_keys = merge.keys;
    n.above_text = sort_text_;
    n.above_estimate = {p.sort_above.startup, p.sort_above.total, p.sort_above.rows,
                        partial_width_};
  }
  ParticipantTop top = [n](std::unique_ptr<scans::ExecNode> node) {
    return n.build(std::move(node));
  };
  if (p.merge) return build_gather_merge_over(ctx_, scan, p.cost, partial_width_, merge, top);
  return build_gather_over(ctx_, scan, GatherPath{p.cost, partial_width_}, top);
}

}  // namespace tp::grouping_detail
