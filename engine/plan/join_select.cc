#include "engine/plan/join_select.h"

#include <algorithm>
#include <functional>

#include "engine/core/error.h"
#include "engine/plan/incremental_sort.h"
#include "engine/plan/join_base_scan.h"
#include "engine/plan/join_build.h"
#include "engine/plan/join_distinct.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/join_grouping.h"
#include "engine/plan/join_query.h"
#include "engine/plan/join_search.h"
#include "engine/plan/join_sort_target.h"
#include "engine/plan/lateral.h"
#include "engine/plan/outer_joins.h"
#include "engine/plan/parallel_cost.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/select_list.h"
#include "engine/plan/serial_paths.h"
#include "engine/plan/sort_input_target.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "scans/distinct.h"
#include "scans/incremental_sort.h"
#include "scans/one_time_false.h"
#include "scans/project.h"
#include "scans/sort_limit_agg.h"
#include "scans/subplan_host.h"

namespace tp {
namespace {

class JoinSelectPlanner {
 public:
  JoinSelectPlanner(PlanContext& ctx, const sql::Select& s)
      : ctx_(ctx), s_(s), q_(bind_join_query(ctx, s)) {}

  PlannedQuery plan() {
    if (q_.grouped) {
      grouping_ = std::make_unique<JoinGrouping>(ctx_, s_, q_);
      query_pathkeys_ = grouping_->query_pathkeys();
    } else if (!q_.distinct.empty()) {
      // distinct_pathkeys begin with ORDER BY's and are at least as long.
      distinct_ = std::make_unique<JoinDistinct>(ctx_, s_, q_);
      query_pathkeys_ = distinct_->query_pathkeys();
    }
    for (size_t i = 0; i < q_.order.size() && !distinct_; ++i) {
      const TypedExpr& e = *q_.order[i].expr;
      // A computed key is a class of its own, which no path's order gives.
      const uint32_t key =
          e.kind == TypedExpr::Kind::kColumn ? q_.key_of(e.slot) : 0x80000000u + uint32_t(i);
      query_pathkeys_.push_back({key, q_.order[i].descending, q_.order[i].nulls_first});
    }
    scan_queries();
    inputs_.resize(q_.rels.size());
    builders_.resize(q_.rels.size());
    // A table whose restrictions cannot hold (a constant FALSE, two constants for one
    // column) makes the whole join PostgreSQL's dummy relation.
    Relids nullable = 0;
    for (const SpecialJoin& j : q_.special_joins)
      nullable |= j.syn_righthand | (j.kind == JoinKind::kFull ? j.syn_lefthand : 0);
    for (size_t i = 0; i < queries_.size(); ++i) {
      ScanQuery& sq = queries_[i];
      // Empty on an outer join's nullable side, it empties nothing above the join; a
      // WHERE that folds to FALSE empties everything.
      if (q_.is_removed(i)) continue;
      if ((nullable & (Relids(1) << i)) && !q_.where_false) {
        // A pulled-up subquery's WHERE folded to FALSE, its one restriction: PostgreSQL's
        // dummy relation (relation_excluded_by_constraints: rows 0, width 0) on the
        // nullable side. Beside other restrictions it gates the scan, which then never
        // runs (a pseudo-constant qual: selectivity 0, no cost).
        if (sq.proven_empty && sq.clauses.size() == 1) {
          inputs_[i].dummy = true;
          q_.unqualify(int(i));
        } else if (sq.proven_empty) {
          gate_on_false(sq);
        }
        continue;
      }
      if (sq.proven_empty || sq.one_time_false || q_.where_false) {
        if (grouping_ || distinct_) return upper_over_dummy();
        sq.proven_empty = true;
        return empty_plan(sq);
      }
    }
    ChosenScan top = enter(0);
    if (grouping_ || distinct_) {
      grouped_.root = std::move(top.node);
      return std::move(grouped_);
    }
    PlannedQuery out;
    out.column_names = q_.names;
    out.output_slots = output_slots_;
    for (const auto& t : q_.targets) {
      const Column col{"", t->type, t->typmod};
      out.output_types.push_back(col.type == ColumnType::kInt8 ? OutputType::kInt8
                                                               : OutputType::kInt4);
      out.output_columns.push_back(col);
    }
    out.root = std::move(top.node);
    return out;
  }

 private:
  // Each base relation's scan query (a LATERAL subquery's is empty: the join search
  // plans it), refusing what PostgreSQL does that is not built.
  void scan_queries() {
    for (size_t i = 0; i < q_.rels.size(); ++i) {
      // PostgreSQL pushes such a condition down into the subquery (not built).
      if (q_.rels[i].lateral && !q_.rels[i].restrictions.empty())
        throw not_supported("a WHERE condition over a LATERAL subquery's columns alone", 0);
      // PostgreSQL applies one in a Subquery Scan's Filter, or in a join relation
      // parameterized by the subquery's outer relation (not built).
      const Relids bit = Relids(1) << i;
      if (q_.rels[i].lateral &&
          (std::any_of(q_.filters.begin(), q_.filters.end(),
                       [&](const JoinFilterClause& f) { return (f.relids & bit) != 0; }) ||
           std::any_of(q_.classes.begin(), q_.classes.end(), [&](const JoinClass& c) {
             return std::any_of(c.members.begin(), c.members.end(),
                                [&](uint32_t v) { return size_t(q_.vars[v].rel) == i; });
           })))
        throw not_supported("a join condition over a LATERAL subquery planned on its own", 0);
      queries_.push_back(q_.rels[i].lateral
                             ? ScanQuery{}
                             : base_scan_query(q_.rels[i], int(i), q_, query_pathkeys_));
    }
  }

  // Enters base relation i's scan chooser, which hands its paths to the next one's,
  // until the last plans the join with all of them in reach.
  ChosenScan enter(size_t i) {
    if (q_.is_removed(i)) return i + 1 < q_.rels.size() ? enter(i + 1) : finish();
    if (inputs_[i].dummy) return i + 1 < q_.rels.size() ? enter(i + 1) : finish();
    if (q_.rels[i].lateral) {
      // Its paths are the join search's (join_lateral.cc): no scan to choose.
      JoinBaseInput& in = inputs_[i];
      in.tuples = in.rows = q_.rels[i].lateral->cost.rows;
      for (uint32_t v : q_.output_vars(Relids(1) << i)) in.width += q_.vars[v].width;
      return i + 1 < q_.rels.size() ? enter(i + 1) : finish();
    }
    queries_[i].upper = [this, i](TablePaths t) {
      JoinBaseInput& in = inputs_[i];
      in.tuples = t.size.tuples;
      in.rows = t.size.rows;
      in.width = t.width;
      in.view = t.view;
      for (size_t p = 0; p < t.paths.size(); ++p) {
        auto path = std::make_shared<JoinPath>();
        path->cost = t.paths[p].cost;
        // A Gather over the table's partial path (generate_useful_gather_paths on a
        // base relation of a join) competes with its serial paths.
        path->parallel_safe = t.paths[p].parallel_safe;
        path->relids = Relids(1) << i;
        path->width = t.width;
        path->scan = int(p);
        path->mark_restore = !t.paths[p].index_columns.empty();
        // build_index_pathkeys: the index's columns in order, a column WHERE fixes to a
        // constant skipped (the join search keeps the useful ones).
        const std::vector<int>& fixed = queries_[i].constant_columns;
        const bool backward = t.paths[p].backward;
        for (int c : t.paths[p].index_columns)
          if (std::find(fixed.begin(), fixed.end(), c) == fixed.end())
            path->pathkeys.push_back({q_.key_of(q_.var_of(int(i), c)), backward, backward});
        in.paths.push_back(std::move(path));
      }
      in.param_paths = t.param_paths;
      if (partial_joins_ok())
        for (const PartialScan& ps : t.partials) {
          auto path = std::make_shared<JoinPath>();
          path->cost = ps.path;
          path->relids = Relids(1) << i;
          path->width = t.width;
          path->workers = ps.workers;
          path->partial_scan = std::make_shared<const PartialScan>(ps);
          in.partial_paths.push_back(std::move(path));
        }
      builders_[i] = t.builders;
      // Restrictions proven contradictory on a nullable side: PostgreSQL's gating
      // Result over the scan, which returns nothing.
      if (queries_[i].one_time_false)
        for (size_t p = 0; p < builders_[i].size() && p < t.paths.size(); ++p)
          builders_[i][p] =
              [scan = std::move(builders_[i][p]), cost = t.paths[p].cost, width = t.width,
               null = queries_[i].one_time_null]() -> std::unique_ptr<scans::ExecNode> {
            std::unique_ptr<scans::ExecNode> child = scan();
            child->estimate = {cost.startup, cost.total, cost.rows, width};
            return std::make_unique<scans::OneTimeFalseNode>(std::move(child), null);
          };
      return i + 1 < q_.rels.size() ? enter(i + 1) : finish();
    };
    return choose_scan(ctx_, queries_[i]);
  }

  // Partial join paths run the join below a Gather in every participant; not under a
  // gating Result (its quals would go into the participants).
  bool partial_joins_ok() const {
    return ctx_.settings.max_parallel_workers_per_gather > 0 && q_.gating.empty();
  }

  int final_width() const {
    int w = 0;
    auto width_of = [&](const TypedExpr& e) {
      return e.kind == TypedExpr::Kind::kColumn ? q_.vars[e.slot].width
                                                : int(type_avg_width(e.type, e.typmod));
    };
    for (const auto& t : q_.targets) w += width_of(*t);
    for (const JoinOrderItem& o : q_.order)
      if (std::find(q_.targets.begin(), q_.targets.end(), o.expr) == q_.targets.end())
        w += width_of(*o.expr);
    return w;
  }

  // GROUP BY or DISTINCT over the join's paths (join_grouping.h, join_distinct.h).
  ChosenScan finish_upper(const JoinSearch& search, const JoinRelation& rel,
                          const std::vector<JoinGroupingRel>& stats) {
    JoinPlanBuilder builder(ctx_, q_, search, builders_);
    auto build = [&](const JoinPath& p) {
      std::unique_ptr<scans::ExecNode> node = builder.build(p);
      // The gating Result sits on the join, below the grouping or DISTINCT.
      if (!q_.gating.empty()) node = scans::gating_result(std::move(node), q_.gating);
      return node;
    };
    grouped_ = grouping_ ? grouping_->plan(rel, stats, build) : distinct_->plan(rel, stats, build);
    ChosenScan out;
    out.node = std::move(grouped_.root);
    return out;
  }

  // The select list's computed columns and computed sort keys: a projection the join
  // computes on each of its rows (apply_scanjoin_target_to_paths).
  std::vector<std::shared_ptr<TypedExpr>> computed_columns() const {
    std::vector<std::shared_ptr<TypedExpr>> computed;
    for (const auto& t : q_.targets)
      if (t->kind != TypedExpr::Kind::kColumn) computed.push_back(t);
    for (const JoinOrderItem& o : q_.order)
      if (o.expr->kind != TypedExpr::Kind::kColumn &&
          std::find(computed.begin(), computed.end(), o.expr) == computed.end())
        computed.push_back(o.expr);
    return computed;
  }

  ChosenScan finish() {
    std::vector<JoinGroupingRel> stats;
    for (const JoinBaseInput& in : inputs_) stats.push_back({in.view, in.rows});
    rel_stats_ = stats;  // inputs_ move into the search
    JoinSearch search(ctx_, q_, std::move(inputs_), query_pathkeys_, q_.limit.has_value());
    const JoinRelation& rel = search.run();
    if (grouping_ || distinct_) return finish_upper(search, rel, stats);
    const int width = final_width();
    std::vector<const TypedExpr*> sort_keys;
    for (const JoinOrderItem& o : q_.order) sort_keys.push_back(o.expr.get());
    // A plan with SubPlans is serial (plan_with_subplans): only then is one postponed.
    const SortInputTarget target =
        make_sort_input_target(ctx_.settings.costs, computed_columns(), sort_keys,
                               s_.limit.has_value() && rel.partial_paths.empty());
    const double projection = target.early_cost;
    const int sort_width = target.late.empty() ? width : sort_input_width(q_, target, width);
    std::vector<JoinPathPtr> candidates = rel.paths;
    const std::optional<int64_t> limit = limit_tuples(s_);
    const double limit_rows = limit ? double(*limit) : -1;
    SerialQuery sq;
    // create_ordered_paths' Gather Merge, bounded by the LIMIT.
    const JoinPathPtr limited_merge =
        add_top_gathers(rel, projection, width, limit_rows, candidates, sq);
    std::vector<TablePath> paths;
    const bool serial =
        !limited_merge && std::none_of(candidates.begin(), candidates.end(), [](const auto& p) {
          return p->kind == JoinPath::Kind::kGather;
        });
    for (const JoinPathPtr& p : candidates) {
      PathCost c = p->cost;
      // A Gather's participants computed the target below it.
      const size_t keys = common_pathkeys(p->pathkeys, query_pathkeys_);
      const PathCost unprojected = c;
      // A path in order computes the whole list (apply_projection_to_path).
      if (p->kind != JoinPath::Kind::kGather)
        c.total += (keys == q_.order.size() ? target.full_cost : projection) * c.rows;
      // add_path kept the join relation's paths before its target was costed on them;
      // a Gather above it comes after (generate_useful_gather_paths), weighed projected.
      paths.push_back({serial ? unprojected : c, keys, p->parallel_safe, {}});
      sq.projected.push_back(c);
    }
    sq.order_keys = q_.order.size();
    if (limit) sq.limit_rows = limit_rows;
    // With columns postponed, the Result above the sort computes the list.
    const auto above = [&](const PathCost& c) {
      return target.late.empty() ? c : result_over_sort(ctx_.settings.costs, c, target.full_cost);
    };
    sq.sort = [&](const PathCost& p) { return above(order_sort(p, 0, sort_width)); };
    if (ctx_.settings.enable_incremental_sort)
      sq.incremental_sort = [&](const PathCost& p, size_t keys) {
        return above(order_sort(p, keys, sort_width));
      };
    const std::optional<SerialChoice> choice = choose_serial_path(paths, sq);
    if (!choice) throw Error("could not devise a query plan for the given query");
    const bool extra = choice->kind == SerialChoice::Kind::kOrderedExtra;
    const JoinPath& chosen = extra ? *limited_merge : *candidates[choice->path];
    const PathCost chosen_cost = extra ? choice->top : sq.projected[choice->path];
    const size_t presorted =
        choice->kind == SerialChoice::Kind::kIncrementalSort ? paths[choice->path].keys : 0;
    return build_ordered(search, rel, target, *choice, chosen, chosen_cost, presorted, sort_width);
  }

  // The ORDER BY's Sort (or, `presorted` keys in order, Incremental Sort) over a path.
  PathCost order_sort(const PathCost& p, size_t presorted, int width) const {
    const std::optional<int64_t> limit = limit_tuples(s_);
    const double limit_rows = limit ? double(*limit) : -1;
    if (presorted > 0)
      return cost_incremental_sort(ctx_.settings.costs, p, presorted_groups(presorted, p.rows),
                                   width, limit_rows);
    return disabled_if(!ctx_.settings.enable_sort,
                       cost_sort(ctx_.settings.costs, p, p.rows, width, 0, limit_rows));
  }

  // The chosen path built, its select list computed below the sort, or (postponed
  // columns) partly in the Result above it, then the Limit.
  ChosenScan build_ordered(const JoinSearch& search, const JoinRelation& rel,
                           const SortInputTarget& target, const SerialChoice& choice,
                           const JoinPath& chosen, const PathCost& chosen_cost, size_t presorted,
                           int sort_width) {
    const int width = final_width();
    std::vector<std::shared_ptr<TypedExpr>> computed = target.early;
    computed.insert(computed.end(), target.late.begin(), target.late.end());
    const bool sorted = choice.kind == SerialChoice::Kind::kSort ||
                        choice.kind == SerialChoice::Kind::kIncrementalSort;
    JoinPlanBuilder builder(ctx_, q_, search, builders_);
    std::unique_ptr<scans::ExecNode> node = builder.build(chosen);
    node->estimate.width = sorted ? sort_width : width;  // the sort input target's
    node->estimate.total_cost = chosen_cost.total;
    if (!q_.gating.empty()) node = scans::gating_result(std::move(node), q_.gating);
    PlanTop top{std::move(node), chosen_cost};
    std::vector<uint32_t> layout = rel.vars;
    const std::vector<std::shared_ptr<TypedExpr>>& below = sorted ? target.early : computed;
    top.node = project_join_columns(std::move(top.node), below, layout);
    if (sorted) {
      add_sort(
          top, order_sort(chosen_cost, presorted, sort_width),
          [&](const TypedExpr& e) { return slot_of(e, below, layout); }, presorted, sort_width);
      if (!target.late.empty()) {
        top.node = project_join_columns(std::move(top.node), target.late, layout);
        top.node = std::make_unique<scans::ResultNode>(std::move(top.node), true);
        top.node->estimate = {choice.top.startup, choice.top.total, choice.top.rows, width};
        top.path = choice.top;
      }
    }
    for (const auto& t : q_.targets) output_slots_.push_back(slot_of(*t, computed, layout));
    if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), top);
    ChosenScan out;
    out.node = std::move(top.node);
    out.path = top.path;
    out.width = width;
    return out;
  }

  // The top relation's Gather (apply_scanjoin_target_to_paths, then
  // generate_useful_gather_paths): over the cheapest partial path with the select list's
  // cost on each participant's rows, returning the relation's rows.
  JoinPathPtr top_gather(const JoinRelation& rel, double projection, int width) const {
    if (rel.partial_paths.empty()) return nullptr;
    auto sub = std::make_shared<JoinPath>(*rel.partial_paths.front());
    sub->cost.total += projection * sub->cost.rows;
    sub->width = width;
    auto g = std::make_shared<JoinPath>();
    g->kind = JoinPath::Kind::kGather;
    g->cost = cost_gather(ctx_.settings.costs, sub->cost, rel.rows);
    g->relids = rel.relids;
    g->width = width;
    g->workers = sub->workers;
    g->outer = std::move(sub);
    g->parallel_safe = false;
    return g;
  }

  // The top relation's Gather, and with an ORDER BY its Gather Merges: generate_useful_
  // gather_paths' among the candidates, create_ordered_paths' (returned) as `sq`'s extra
  // ordered path.
  JoinPathPtr add_top_gathers(const JoinRelation& rel, double projection, int width,
                              double limit_rows, std::vector<JoinPathPtr>& candidates,
                              SerialQuery& sq) const {
    const JoinPathPtr g = top_gather(rel, projection, width);
    if (!g) return nullptr;
    candidates.push_back(g);
    if (!participants_can_sort()) return nullptr;
    candidates.push_back(top_gather_merge(*g, rel, rel.rows, -1));
    const JoinPath& sub = *g->outer;
    JoinPathPtr limited = top_gather_merge(*g, rel, sub.cost.rows * sub.workers, limit_rows);
    sq.ordered_extra.push_back(limited->cost);
    return limited;
  }

  // Each participant can sort the join's rows itself: every ORDER BY key is a column (a
  // computed one is projected above the Gather Merge).
  bool participants_can_sort() const {
    return !q_.order.empty() &&
           std::all_of(q_.order.begin(), q_.order.end(), [](const JoinOrderItem& o) {
             return o.expr->kind == TypedExpr::Kind::kColumn;
           });
  }

  // A Gather Merge over each participant's Sort of the top Gather's partial path:
  // generate_useful_gather_paths' (`rows` the relation's, no bound) and
  // create_ordered_paths' (`rows` a participant's times the workers, the LIMIT's bound).
  JoinPathPtr top_gather_merge(const JoinPath& gather, const JoinRelation& rel, double rows,
                               double limit_rows) const {
    const PlannerSettings& st = ctx_.settings;
    const JoinPath& sub = *gather.outer;
    auto gm = std::make_shared<JoinPath>(gather);
    gm->gather_merge = true;
    gm->merge_sort_cost = disabled_if(
        !st.enable_sort, cost_sort(st.costs, sub.cost, sub.cost.rows, sub.width, 0, limit_rows));
    gm->cost =
        cost_gather_merge(st.costs, gm->merge_sort_cost, rows, sub.workers, !st.enable_gathermerge);
    gm->pathkeys = query_pathkeys_;
    for (const JoinOrderItem& o : q_.order) {
      const auto at = std::find(rel.vars.begin(), rel.vars.end(), o.expr->slot);
      gm->merge_keys.push_back({uint32_t(at - rel.vars.begin()), o.descending, o.nulls_first});
    }
    gm->merge_text = q_.order_text;
    gm->merge_bound = limit_rows >= 0 ? int64_t(limit_rows) : -1;
    return gm;
  }

  // The ORDER BY's Sort, or an Incremental Sort over `presorted` leading keys the path
  // already gives.
  void add_sort(PlanTop& top, const PathCost& cost,
                const std::function<uint32_t(const TypedExpr&)>& slot, size_t presorted,
                int width) const {
    std::vector<scans::SortKey> keys;
    for (const JoinOrderItem& o : q_.order)
      keys.push_back({slot(*o.expr), o.descending, o.nulls_first});
    const std::optional<int64_t> limit = limit_tuples(s_);
    std::unique_ptr<scans::ExecNode> sort;
    if (presorted > 0) {
      std::string presorted_text;
      for (size_t i = 0; i < presorted; ++i) presorted_text += (i ? ", " : "") + q_.order[i].shown;
      sort = std::make_unique<scans::IncrementalSortNode>(std::move(top.node), std::move(keys),
                                                          presorted, q_.order_text, presorted_text,
                                                          kSortMemoryLimitBytes);
    } else {
      sort = std::make_unique<scans::SortNode>(std::move(top.node), std::move(keys), q_.order_text,
                                               limit ? *limit : -1, kSortMemoryLimitBytes);
    }
    sort->estimate = {cost.startup, cost.total, cost.rows, width};
    top = {std::move(sort), cost};
  }

  double presorted_groups(size_t keys, double rows) const {
    return presorted_order_groups(q_, rel_stats_, keys, rows);
  }

  uint32_t slot_of(const TypedExpr& e, const std::vector<std::shared_ptr<TypedExpr>>& computed,
                   const std::vector<uint32_t>& layout) const {
    if (e.kind == TypedExpr::Kind::kColumn)
      return uint32_t(std::find(layout.begin(), layout.end(), e.slot) - layout.begin());
    for (size_t i = 0; i < computed.size(); ++i)
      if (computed[i].get() == &e) return uint32_t(layout.size() - computed.size() + i);
    throw Error("internal error: an output column the join does not compute");
  }

  // The grouping or DISTINCT over PostgreSQL's dummy join relation: its one path a
  // Result that returns nothing (One-Time Filter: false), costing nothing.
  PlannedQuery upper_over_dummy() {
    JoinRelation rel;
    rel.relids = q_.all_rels();
    rel.vars = q_.output_vars(rel.relids);
    for (uint32_t v : rel.vars) rel.width += q_.vars[v].width;
    auto dummy = std::make_shared<JoinPath>();
    dummy->kind = JoinPath::Kind::kDummy;
    dummy->relids = rel.relids;
    dummy->width = rel.width;
    rel.paths.push_back(dummy);
    rel.cheapest_total = rel.cheapest_startup = dummy;
    // No statistics needed: at most one row makes one group (estimate_num_groups).
    const std::vector<JoinGroupingRel> stats(q_.rels.size());
    auto build = [](const JoinPath& p) -> std::unique_ptr<scans::ExecNode> {
      auto node = std::make_unique<scans::OneTimeFalseNode>(nullptr);
      node->estimate = {0, 0, 0, p.width};
      return node;
    };
    return grouping_ ? grouping_->plan(rel, stats, build) : distinct_->plan(rel, stats, build);
  }

  // PostgreSQL's dummy relation: a Result that returns nothing, still sorted and limited
  // as the query asks.
  PlannedQuery empty_plan(const ScanQuery& sq) const {
    ChosenScan c = choose_scan(ctx_, sq);
    const int width = final_width();
    c.node->estimate.width = width;
    PlanTop top{std::move(c.node), PathCost{0, 0, 0}};
    if (!q_.order.empty()) {
      const std::optional<int64_t> limit = limit_tuples(s_);
      const PathCost sorted =
          cost_sort(ctx_.settings.costs, top.path, 0, width, 0, limit ? double(*limit) : -1);
      // The sort reads no row: every key names slot 0.
      add_sort(
          top, {sorted.startup, sorted.total, 0}, [](const TypedExpr&) { return 0u; }, 0, width);
    }
    if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), top);
    PlannedQuery out;
    out.column_names = q_.names;
    for (const auto& t : q_.targets) {
      out.output_slots.push_back(0);
      out.output_types.push_back(OutputType::kInt4);
      out.output_columns.push_back({"", t->type, t->typmod});
    }
    out.root = std::move(top.node);
    return out;
  }

  PlanContext& ctx_;
  const sql::Select& s_;
  JoinQuery q_;
  std::vector<PathKey> query_pathkeys_;
  std::vector<ScanQuery> queries_;
  std::vector<JoinBaseInput> inputs_;
  std::vector<JoinGroupingRel> rel_stats_;  // each base relation's statistics and rows
  std::vector<ScanBuilders> builders_;
  std::vector<uint32_t> output_slots_;
  std::unique_ptr<JoinGrouping> grouping_;  // GROUP BY, HAVING or aggregates
  std::unique_ptr<JoinDistinct> distinct_;  // SELECT DISTINCT
  PlannedQuery grouped_;                    // the plan of either
};

}  // namespace

PlannedQuery plan_join_select(PlanContext& ctx, const sql::Select& s) {
  return JoinSelectPlanner(ctx, s).plan();
}

}  // namespace tp
