// add_paths_to_joinrel (joinpath.c) for inner joins: the merge, nested-loop and hash
// paths of one ordered pair of input relations, costed by join_cost.h.
#include <algorithm>
#include <bit>

#include "engine/plan/incremental_sort.h"
#include "engine/plan/join_removal.h"
#include "engine/plan/join_search.h"
#include "engine/plan/join_selectivity.h"
#include "engine/plan/outer_joins.h"

namespace tp {

namespace {

// What a nested loop pays to scan its inner path again (cost_rescan).
RescanCost rescan_cost(const CostSettings& cs, const JoinPath& p) {
  switch (p.kind) {
    case JoinPath::Kind::kMaterial:
      return cost_rescan_materialized(cs, p.cost.rows, p.width);
    case JoinPath::Kind::kMemoize:
      return p.memo_rescan;
    case JoinPath::Kind::kHashJoin:
      if (p.hash_batches == 1) return {0, p.cost.total - p.cost.startup};
      return rescan_as_first_scan(p.cost);
    default:
      return rescan_as_first_scan(p.cost);
  }
}

// ExecSupportsMarkRestore for an unsorted merge join input: a Materialize or an index
// scan (the Merge Join node keeps its inner group itself, so the plan needs no more).
bool supports_mark_restore(const JoinPath& p) {
  return p.kind == JoinPath::Kind::kMaterial || p.mark_restore;
}

}  // namespace

bool JoinSearch::select_equi_clauses(Pair& p) const {
  const bool outer_join = is_outer_join(p.kind);
  const bool merging = ctx_.settings.enable_mergejoin || p.kind == JoinKind::kFull;
  bool all_mergeable = true;
  for (size_t i = 0; i < p.restrict.clauses.size(); ++i) {
    const RestrictClause& c = p.restrict.clauses[i];
    // A WHERE clause done at an outer join filters its rows: it matches nothing.
    if (outer_join && c.pushed_down) continue;
    if (c.equi && c.hashable) p.hash.push_back(i);
    if (c.equi && c.mergeable) {
      if (merging) p.merge.push_back(i);
    } else {
      all_mergeable = false;
    }
  }
  return p.kind != JoinKind::kFull || all_mergeable;
}

QualCost JoinSearch::quals_cost(const RestrictList& r, const std::vector<size_t>* only) const {
  QualCost q;
  for (size_t i = 0; i < r.clauses.size(); ++i) {
    if (only && std::find(only->begin(), only->end(), i) == only->end()) continue;
    q.per_tuple += cs_.cpu_operator_cost * expr_cost_units(r.clauses[i].expr);
    subplan_costs(r.clauses[i].expr, q.startup, q.per_tuple);  // a SubPlan's run per row
  }
  return q;
}

double JoinSearch::approx_tuple_count(const JoinPath& outer, const JoinPath& inner,
                                      const RestrictList& r,
                                      const std::vector<size_t>& clauses) const {
  double selectivity = 1;
  for (size_t i : clauses) selectivity *= r.clauses[i].selectivity;
  return clamp_row_est(selectivity * outer.cost.rows * inner.cost.rows);
}

// analyzejoins.c's innerrel_is_unique for a base relation: a unique index whose every
// key column the join's class clauses equate to the outer side.
bool JoinSearch::inner_is_unique(const JoinRelation& inner, const RestrictList& r,
                                 JoinKind kind) const {
  if (std::popcount(inner.relids) != 1) return false;
  const int rel = std::countr_zero(inner.relids);
  if (q_.rels[size_t(rel)].lateral) return false;  // no index: innerrel_is_unique's false
  // The restrictions' `column = constant` count too (relation_has_unique_index_for).
  std::vector<int> equated = q_.rels[size_t(rel)].constant_columns;
  for (const RestrictClause& c : r.clauses)
    if (c.equi && (!is_outer_join(kind) || !c.pushed_down))
      if (const TypedExpr& k = side_key(c, inner.relids); k.kind == TypedExpr::Kind::kColumn)
        equated.push_back(q_.vars[k.slot].column);
  return unique_index_on(ctx_, *q_.rels[size_t(rel)].rel, equated);
}

void JoinSearch::add_paths(JoinRelation& join, const JoinRelation& outer, const JoinRelation& inner,
                           const std::shared_ptr<const RestrictList>& restrict, JoinKind kind,
                           UniqueSide unique, JoinPathPtr unique_path) {
  Pair p{outer, inner, *restrict, join, restrict, kind, false, {}, {}, {}, unique,
         outer.cheapest_total, outer.cheapest_startup, inner.cheapest_total, nullptr, nullptr, nullptr};
  if (unique == UniqueSide::kOuter) p.outer_total = p.outer_startup = unique_path;
  if (unique == UniqueSide::kInner) p.inner_total = unique_path;
  // A semi or anti join's inner side is not proven unique (PostgreSQL 15 does not try);
  // a unique-ified one counts as unique only below an outer side that holds the semi
  // join's whole left side (add_paths_to_joinrel's JOIN_UNIQUE_INNER).
  const bool semi_or_anti = kind == JoinKind::kSemi || kind == JoinKind::kAnti;
  p.inner_unique = unique == UniqueSide::kInner
                       ? std::any_of(q_.special_joins.begin(), q_.special_joins.end(),
                                     [&](const SpecialJoin& sj) {
                                       return sj.kind == JoinKind::kSemi &&
                                              sj.syn_righthand == inner.relids &&
                                              (sj.min_lefthand & ~outer.relids) == 0;
                                     })
                       : !semi_or_anti && inner_is_unique(inner, * restrict, kind);
  if (p.inner_unique || semi_or_anti) {
    // compute_semi_anti_join_factors over the clauses that decide matches.
    double jselec = 1, nselec = 1;
    for (const RestrictClause& c : restrict->clauses) {
      if (is_outer_join(kind) && c.pushed_down) continue;
      jselec *= semi_or_anti || unique == UniqueSide::kInner ? c.semi_selectivity : c.selectivity;
      nselec *= c.selectivity;
    }
    p.semi = semi_anti_join_factors(jselec, nselec, inner.rows);
  }
  const bool merge_allowed = select_equi_clauses(p);
  if (!p.outer_total) return;  // a LATERAL subquery is only ever an inner side
  if (!p.inner_total) return lateral_nestloops(p);
  prepare_partial(p);
  if (merge_allowed) sort_inner_and_outer(p);
  if (merge_allowed) match_unsorted_outer(p);
  if (ctx_.settings.enable_hashjoin || kind == JoinKind::kFull) hash_inner_and_outer(p);
  add_param_join_paths(p);
}

// select_outer_pathkeys_for_merge: the classes of the merge clauses, the ORDER BY's
// first when it names them all, each ascending with NULLs last.
std::vector<PathKey> JoinSearch::outer_keys_for_merge(const Pair& p,
                                                      const std::vector<size_t>& clauses) const {
  std::vector<PathKey> keys;
  auto has = [&](uint32_t k) {
    return std::any_of(keys.begin(), keys.end(), [&](const PathKey& x) { return x.key == k; });
  };
  bool all_in_order = !query_pathkeys_.empty();
  for (const PathKey& k : query_pathkeys_) {
    bool found = false;
    for (size_t i : clauses) found = found || outer_key(p, i) == k.key;
    all_in_order = all_in_order && found;
  }
  if (all_in_order)
    for (const PathKey& k : query_pathkeys_)
      if (!has(k.key)) keys.push_back(k);
  for (size_t i : clauses)
    if (!has(outer_key(p, i))) keys.push_back({outer_key(p, i), false, false});
  return keys;
}

// The pathkey of a merge clause's outer side, and of its inner side.
uint32_t JoinSearch::outer_key(const Pair& p, size_t clause) const {
  const RestrictClause& c = p.restrict.clauses[clause];
  return &side_key(c, p.outer.relids) == &c.key1 ? c.key : c.key_b;
}

std::vector<PathKey> JoinSearch::inner_keys_for(const Pair& p, const std::vector<size_t>& merge,
                                                const std::vector<PathKey>& outer_keys) const {
  std::vector<PathKey> keys;
  for (size_t k = 0; k < merge.size() && k < outer_keys.size(); ++k) {
    const RestrictClause& c = p.restrict.clauses[merge[k]];
    PathKey pk = outer_keys[k];
    pk.key = outer_key(p, merge[k]) == c.key ? c.key_b : c.key;
    keys.push_back(pk);
  }
  return keys;
}

// build_join_pathkeys: a join's rows come in its outer side's order, unless it also
// returns unmatched inner rows (a Right or Full join), which come last.
std::vector<PathKey> JoinSearch::join_pathkeys(const Pair& p,
                                               const std::vector<PathKey>& outer) const {
  if (p.kind == JoinKind::kRight || p.kind == JoinKind::kFull) return {};
  return useful_pathkeys(p.join, outer);
}

void JoinSearch::sort_inner_and_outer(Pair& p) {
  if (p.merge.empty()) return;
  const std::vector<PathKey> all = outer_keys_for_merge(p, p.merge);
  for (size_t front = 0; front < all.size(); ++front) {
    std::vector<PathKey> outer_keys = all;
    if (front > 0) {
      outer_keys.erase(outer_keys.begin() + std::ptrdiff_t(front));
      outer_keys.insert(outer_keys.begin(), all[front]);
    }
    std::vector<size_t> merge;
    std::vector<PathKey> outer_sort;
    for (const PathKey& k : outer_keys)
      for (size_t i : p.merge)
        if (outer_key(p, i) == k.key) {
          merge.push_back(i);
          outer_sort.push_back(k);
        }
    try_mergejoin(p, p.outer_total, p.inner_total, join_pathkeys(p, outer_keys), merge, outer_keys,
                  inner_keys_for(p, merge, outer_sort));
    if (p.partial_outer && p.safe_inner)
      try_mergejoin(p, p.partial_outer, p.safe_inner, join_pathkeys(p, outer_keys), merge,
                    outer_keys, inner_keys_for(p, merge, outer_sort), true);
  }
}

// create_material_path over a Nested Loop's inner path (none when enable_material is off
// or the path is a Materialize already).
JoinPathPtr JoinSearch::materialized(const JoinPathPtr& inner) const {
  if (!ctx_.settings.enable_material || inner->kind == JoinPath::Kind::kMaterial) return nullptr;
  auto m = std::make_shared<JoinPath>();
  m->kind = JoinPath::Kind::kMaterial;
  m->relids = inner->relids;
  m->width = inner->width;
  m->cost = cost_material(cs_, inner->cost, inner->width);
  m->outer = inner;
  m->parallel_safe = inner->parallel_safe;
  return m;
}

void JoinSearch::match_unsorted_outer(Pair& p) {
  // Only the outer side of a Nested Loop is preserved: no Right or Full loops.
  const bool nestloop = p.kind != JoinKind::kRight && p.kind != JoinKind::kFull;
  const JoinPathPtr& inner = p.inner_total;
  const JoinPathPtr material =
      nestloop && p.unique != UniqueSide::kInner ? materialized(inner) : nullptr;
  // A unique-ified outer side: its one path, over the cheapest.
  const std::vector<JoinPathPtr> outers =
      p.unique == UniqueSide::kOuter ? std::vector<JoinPathPtr>{p.outer_total} : p.outer.paths;
  for (const JoinPathPtr& outer : outers) {
    std::vector<PathKey> keys = join_pathkeys(p, outer->pathkeys);
    if (p.unique == UniqueSide::kInner) {
      try_nestloop(p, outer, inner, keys);  // with the unique path alone
    } else if (nestloop) {
      try_nestloop(p, outer, inner, keys);
      for (const JoinPathPtr& param : p.inner.param_paths) {
        if ((param->required_outer & ~p.outer.relids) != 0 ||
            (param->param_needs & ~p.join.relids) != 0)
          continue;
        try_nestloop(p, outer, param, keys);
        if (JoinPathPtr memo = memoize_path(p, *outer, param)) try_nestloop(p, outer, memo, keys);
      }
      if (material) try_nestloop(p, outer, material, keys);
    }
    if (!p.merge.empty() && p.unique != UniqueSide::kOuter) {
      merge_paths_for_outer(p, outer, keys);
    } else if (p.kind == JoinKind::kFull && p.restrict.clauses.empty()) {
      // FULL JOIN ... ON TRUE: only a Merge Join runs a full join without a clause.
      try_mergejoin(p, outer, p.inner_total, {}, {}, {}, {});
    }
  }
  if (p.partial_outer && nestloop) consider_parallel_nestloop(p);
  if (p.partial_outer) consider_parallel_mergejoin(p);
}

// get_memoize_path: a Memoize over a parameterized inner path, keyed by its parameters,
// for an outer relation of two rows or more; costed by cost_memoize_rescan with the
// distinct outer values estimate_num_groups expects (every call distinct when that
// estimate fell back on a default).
JoinPathPtr JoinSearch::memoize_path(const Pair& p, const JoinPath& outer,
                                     const JoinPathPtr& inner) const {
  if (!ctx_.settings.enable_memoize || p.outer.rows < 2 || inner->param_exprs.empty() ||
      inner->memo_blocked)
    return nullptr;
  if ((p.kind == JoinKind::kAnti || p.kind == JoinKind::kSemi) && !p.inner_unique) return nullptr;
  if (p.inner_unique && inner->param_keys.size() < p.restrict.clauses.size()) return nullptr;
  const double calls = clamp_row_est(outer.cost.rows);
  // estimate_num_groups over the keys: a key that is no column counts as the columns it
  // reads (pull_var_clause; a cast of the outer column as that column), a key that
  // reads none as one value; every call distinct when a column's count is a default.
  double ndistinct = calls;
  const int rel = std::countr_zero(inner->required_outer);
  std::vector<int> columns;
  bool fallback = base_[size_t(rel)].view == nullptr;
  for (const TypedExpr& key : inner->param_keys) {
    std::vector<uint32_t> slots;
    expr_slots(key, slots);
    for (uint32_t v : slots) {
      if (q_.vars[v].rel != rel) fallback = true;
      if (std::find(columns.begin(), columns.end(), q_.vars[v].column) == columns.end())
        columns.push_back(q_.vars[v].column);
    }
  }
  if (columns.empty()) fallback = true;
  if (!fallback) {
    for (int c : columns) {
      bool is_default = false;
      get_variable_numdistinct(*base_[size_t(rel)].view, c, &is_default);
      fallback = fallback || is_default;
    }
    if (!fallback)
      ndistinct =
          estimate_num_groups(*base_[size_t(rel)].view, columns, calls, base_[size_t(rel)].rows);
  }
  const MemoizeCost mc = cost_memoize(cs_, {inner->cost, inner->width, calls, ndistinct});
  auto m = std::make_shared<JoinPath>(*inner);
  m->kind = JoinPath::Kind::kMemoize;
  m->cost = mc.path;
  m->outer = inner;
  m->param_build = nullptr;
  m->memo_rescan = mc.rescan;
  m->memo_entries = mc.est_entries;
  m->memo_singlerow = p.inner_unique;
  return m;
}

// generate_mergejoin_paths over an outer path already in some classes' order: the merge
// clauses its leading pathkeys give, the cheapest inner path sorted to match, and inner
// paths already in that order (or a prefix of it).
void JoinSearch::merge_paths_for_outer(Pair& p, const JoinPathPtr& outer,
                                       const std::vector<PathKey>& keys, bool partial) {
  std::vector<size_t> merge;
  std::vector<PathKey> outer_order;
  for (const PathKey& k : outer->pathkeys) {
    bool found = false;
    for (size_t i : p.merge)
      if (outer_key(p, i) == k.key) {
        merge.push_back(i);
        outer_order.push_back(k);
        found = true;
      }
    if (!found) break;
  }
  if (merge.empty()) return;
  // A Right or Full merge join must merge on every clause: none may be a Join Filter.
  const bool use_all = p.kind == JoinKind::kRight || p.kind == JoinKind::kFull;
  if (use_all && merge.size() != p.merge.size()) return;
  const std::vector<PathKey> inner_keys = inner_keys_for(p, merge, outer_order);
  const JoinPathPtr& sorted_inner = partial ? p.safe_inner : p.inner_total;
  try_mergejoin(p, outer, sorted_inner, keys, merge, {}, inner_keys, partial);
  if (p.unique == UniqueSide::kInner) return;  // no presorted unique paths
  JoinPathPtr cheapest_total, cheapest_startup;
  for (size_t n = inner_keys.size(); n > 0; --n) {
    const std::vector<PathKey> trial(inner_keys.begin(), inner_keys.begin() + std::ptrdiff_t(n));
    JoinPathPtr by_total, by_startup;
    for (const JoinPathPtr& ip : p.inner.paths) {
      if (!pathkeys_contained_in(trial, ip->pathkeys) || (partial && !ip->parallel_safe)) continue;
      if (!by_total || ip->cost.total < by_total->cost.total) by_total = ip;
      if (!by_startup || ip->cost.startup < by_startup->cost.startup) by_startup = ip;
    }
    std::vector<size_t> trimmed;
    for (size_t m = 0; m < merge.size(); ++m)
      for (size_t k = 0; k < n; ++k)
        if (inner_keys[m].key == trial[k].key) trimmed.push_back(merge[m]);
    if (by_total && (!cheapest_total || by_total->cost.total < cheapest_total->cost.total)) {
      try_mergejoin(p, outer, by_total, keys, trimmed, {}, {}, partial);
      cheapest_total = by_total;
    }
    if (by_startup &&
        (!cheapest_startup || by_startup->cost.startup < cheapest_startup->cost.startup)) {
      if (by_startup != cheapest_total)
        try_mergejoin(p, outer, by_startup, keys, trimmed, {}, {}, partial);
      cheapest_startup = by_startup;
    }
    if (use_all) break;
  }
}

void JoinSearch::hash_inner_and_outer(Pair& p) {
  if (p.hash.empty()) return;
  const JoinPathPtr& startup = p.outer_startup;
  const JoinPathPtr& total = p.outer_total;
  if (p.unique == UniqueSide::kInner) {
    try_hashjoin(p, total, p.inner_total);
    if (startup != total) try_hashjoin(p, startup, p.inner_total);
    if (p.partial_outer && p.safe_inner) try_hashjoin(p, p.partial_outer, p.safe_inner, true);
    return;
  }
  try_hashjoin(p, startup, p.inner_total);
  if (total != startup) try_hashjoin(p, total, p.inner_total);
  // A partial hash join: each participant builds the whole table (no Parallel Hash).
  if (p.partial_outer && p.safe_inner) try_hashjoin(p, p.partial_outer, p.safe_inner, true);
}

void JoinSearch::try_nestloop(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                              std::vector<PathKey> pathkeys, bool partial) {
  // A parameterized inner side applies its own clauses, and a class's other clauses
  // between the same relations (join_clause_is_movable_into): they leave the Join Filter.
  // A clause that also reads a third relation stays, as in PostgreSQL.
  std::vector<size_t> applied, checked;
  const Relids movable = inner->relids | inner->required_outer;
  for (size_t i = 0; i < p.restrict.clauses.size(); ++i) {
    const RestrictClause& c = p.restrict.clauses[i];
    const bool own = (c.equi && std::find(inner->param_classes.begin(), inner->param_classes.end(),
                                          c.key) != inner->param_classes.end()) ||
                     std::find(inner->param_filters.begin(), inner->param_filters.end(),
                               deparse(c.expr)) != inner->param_filters.end();
    const bool in_inner =
        inner->required_outer != 0 && own && (q_.relids_of(c.expr) & ~movable) == 0;
    (in_inner ? applied : checked).push_back(i);
  }
  NestLoopInput in;
  in.kind = p.kind;
  in.inner_unique = p.inner_unique;
  in.outer = outer->cost;
  in.inner = inner->cost;
  in.inner_rescan = rescan_cost(cs_, *inner);
  in.semi = p.semi;
  // has_indexed_join_quals: an index scan applying every join clause as an index
  // condition (not a Memoize, no join clause in its Filter).
  in.indexed_join_quals = inner->kind == JoinPath::Kind::kScan && inner->required_outer != 0 &&
                          (inner->required_outer & ~outer->relids) == 0 && checked.empty() &&
                          !inner->param_moved;
  in.join_quals = quals_cost(p.restrict, &checked);
  in.rows = path_rows(p, *outer, partial);
  const bool batch = nestloop_batch(p, *inner, in);
  const NestLoopWorkspace ws = initial_cost_nestloop(cs_, in);
  if (partial && !keep_partial(p, ws.total, pathkeys)) return;
  PathCost cost = final_cost_nestloop(cs_, in, ws);
  cost = disabled_if(!ctx_.settings.enable_nestloop, cost);
  // The disable cost goes on the startup and total, as initial_cost_nestloop adds it.
  auto path = std::make_shared<JoinPath>();
  path->kind = JoinPath::Kind::kNestLoop;
  path->join_kind = p.kind;
  path->cost = {cost.startup, cost.total, in.rows};
  path->relids = p.join.relids;
  path->width = p.join.width;
  path->pathkeys = std::move(pathkeys);
  path->outer = outer;
  path->inner = inner;
  path->restrict = p.shared;
  path->join_keys = std::move(applied);
  path->nestloop_batch = batch;
  add_join_path(p, std::move(path), partial);
}

// nestloop_prefetch: with PostgreSQL 15's costs every nested loop looks its inner index
// up ahead (the executor batches what it can); prefetch_aware batches one whose inner
// index scan's loops save more than the look-ups ahead cost, and takes that saving off
// the inner side's runs.
bool JoinSearch::nestloop_batch(const Pair& p, const JoinPath& inner, NestLoopInput& in) const {
  if (ctx_.settings.nestloop_prefetch_rows <= 0) return false;
  if (!cs_.prefetch.enabled) return true;
  const double gain =
      stops_at_first_match(p.kind, p.inner_unique) ? inner.batch_gain_first_page : inner.batch_gain;
  if (inner.kind != JoinPath::Kind::kScan || inner.required_outer == 0 || gain <= 0) return false;
  in.inner.total -= gain;
  in.inner_rescan.total -= gain;
  return true;
}

void JoinSearch::try_mergejoin(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                               std::vector<PathKey> pathkeys, const std::vector<size_t>& clauses,
                               std::vector<PathKey> outer_sort, std::vector<PathKey> inner_sort,
                               bool partial) {
  if (!outer_sort.empty() && pathkeys_contained_in(outer_sort, outer->pathkeys)) outer_sort.clear();
  if (!inner_sort.empty() && pathkeys_contained_in(inner_sort, inner->pathkeys)) inner_sort.clear();
  MergeJoinInput in;
  in.kind = p.kind;
  in.inner_unique = p.inner_unique;
  in.outer = {outer->cost, outer->width};
  in.inner = {inner->cost, inner->width};
  in.sort_outer = !outer_sort.empty();
  in.sort_inner = !inner_sort.empty();
  // (A FULL JOIN ... ON TRUE merges on no clause: every pair matches.)
  if (!clauses.empty())
    in.scan = scan_fractions(p.restrict.clauses[clauses[0]], *outer,
                             outer_sort.empty() ? outer->pathkeys : outer_sort);
  in.merge_quals = quals_cost(p.restrict, &clauses);
  in.join_quals = quals_cost(p.restrict);
  in.only_merge_quals = clauses.size() == p.restrict.clauses.size();
  in.mergejoin_tuples = approx_tuple_count(*outer, *inner, p.restrict, clauses);
  in.inner_supports_mark_restore = supports_mark_restore(*inner);
  in.enable_material = ctx_.settings.enable_material;
  in.rows = path_rows(p, *outer, partial);
  const MergeJoinWorkspace ws = initial_cost_mergejoin(cs_, in);
  if (partial && !keep_partial(p, ws.total, pathkeys)) return;
  const MergeJoinCost mc = final_cost_mergejoin(cs_, in, ws);
  auto path = std::make_shared<JoinPath>();
  path->kind = JoinPath::Kind::kMergeJoin;
  path->join_kind = p.kind;
  path->cost = disabled_if(!ctx_.settings.enable_mergejoin, mc.path);
  path->cost.rows = in.rows;
  path->relids = p.join.relids;
  path->width = p.join.width;
  path->pathkeys = std::move(pathkeys);
  path->outer = outer;
  path->inner = inner;
  path->restrict = p.shared;
  path->join_keys = clauses;
  path->outer_sort = std::move(outer_sort);
  path->inner_sort = std::move(inner_sort);
  path->outer_sort_cost = ws.outer_sort;
  path->inner_sort_cost = ws.inner_sort;
  path->materialize_inner = mc.materialize_inner;
  if (mc.materialize_inner) {
    const PathCost inner_plan = path->inner_sort.empty() ? inner->cost : ws.inner_sort;
    path->inner_material_cost = mergejoin_inner_material(cs_, inner_plan);
  }
  add_join_path(p, std::move(path), partial);
}

// mergejoinscansel for the first merge clause, over two columns in its sort direction.
MergeScanFractions JoinSearch::scan_fractions(const RestrictClause& c, const JoinPath& outer,
                                              const std::vector<PathKey>& order) const {
  const TypedExpr& outer_side = side_key(c, outer.relids);
  const TypedExpr& ok = strip_relabel(outer_side);
  const TypedExpr& ik = strip_relabel(&outer_side == &c.key1 ? c.key2 : c.key1);
  if (ok.kind != TypedExpr::Kind::kColumn || ik.kind != TypedExpr::Kind::kColumn) return {};
  const QueryVar& o = q_.vars[ok.slot];
  const QueryVar& i = q_.vars[ik.slot];
  // Bounds compare within one type, integers alike, text and varchar alike, reals as
  // doubles, or as timestamps (a date's midnight).
  const auto integer = [](TypeId t) {
    return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
  };
  const auto datetime = [](TypeId t) {
    return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
  };
  const auto string = [](TypeId t) { return t == TypeId::kText || t == TypeId::kVarchar; };
  const auto real = [](TypeId t) { return t == TypeId::kFloat4 || t == TypeId::kFloat8; };
  if (o.type != i.type && !(integer(o.type) && integer(i.type)) &&
      !(datetime(o.type) && datetime(i.type)) && !(string(o.type) && string(i.type)) &&
      !(real(o.type) && real(i.type)))
    return {};
  const RelationStatsView* ov = base_[size_t(o.rel)].view;
  const RelationStatsView* iv = base_[size_t(i.rel)].view;
  if (!ov || !iv) return {};
  return mergejoinscansel(*ov, o.column, *iv, i.column, !order.empty() && order[0].descending,
                          !order.empty() && order[0].nulls_first);
}

HashBucketStats JoinSearch::bucket_stats(const RestrictClause& c, const TypedExpr& inner_key,
                                         double buckets) {
  // Cached on the clause for its inner side, as PostgreSQL's RestrictInfo caches it.
  const auto key = std::pair{deparse(c.expr), deparse(inner_key)};
  if (auto it = bucket_cache_.find(key); it != bucket_cache_.end()) return it->second;
  ::tp::JoinVar v;
  v.type = inner_key.type;
  if (const TypedExpr& col = strip_relabel(inner_key); col.kind == TypedExpr::Kind::kColumn)
    v = join_var(col.slot);
  HashBucketStats s;
  s.mcv_freq = 0;
  if (v.stats && v.stats->valid && !v.stats->mcv_freqs.empty()) s.mcv_freq = v.stats->mcv_freqs[0];
  bool is_default = false;
  double nd = join_var_numdistinct(v, &is_default);
  if (is_default) {
    s.bucket_size = std::max(0.1, 1.0 / buckets);
  } else {
    const double nullfrac = v.stats && v.stats->valid ? v.stats->null_frac : 0;
    const double avgfreq = (1.0 - nullfrac) / nd;
    if (v.tuples > 0) nd = clamp_row_est(nd * v.rows / v.tuples);
    s.bucket_size = hash_bucket_fraction(nd, buckets, s.mcv_freq, avgfreq);
  }
  bucket_cache_[key] = s;
  return s;
}

void JoinSearch::try_hashjoin(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                              bool partial) {
  const std::vector<size_t>& clauses = p.hash;
  HashJoinInput in;
  in.kind = p.kind;
  in.inner_unique = p.inner_unique;
  in.outer = {outer->cost, outer->width};
  in.inner = {inner->cost, inner->width};
  in.hash_clauses = int(clauses.size());
  in.hash_quals = quals_cost(p.restrict, &clauses);
  in.join_quals = quals_cost(p.restrict);
  in.semi = p.semi;
  in.hashjoin_tuples = approx_tuple_count(*outer, *inner, p.restrict, clauses);
  in.rows = path_rows(p, *outer, partial);
  const HashJoinWorkspace ws = initial_cost_hashjoin(cs_, in);
  if (partial && !keep_partial(p, ws.total, {})) return;
  HashBucketStats bucket{1, 1};
  // final_cost_hashjoin: a unique-ified inner side is taken as good for hashing, one
  // row per bucket and no common value (even where a unique index made it a no-op).
  if (p.unique == UniqueSide::kInner) bucket = {1.0 / ws.virtual_buckets(), 0};
  for (size_t i : clauses) {
    if (p.unique == UniqueSide::kInner) break;
    const RestrictClause& c = p.restrict.clauses[i];
    const HashBucketStats s = bucket_stats(c, side_key(c, inner->relids), ws.virtual_buckets());
    bucket.bucket_size = std::min(bucket.bucket_size, s.bucket_size);
    bucket.mcv_freq = std::min(bucket.mcv_freq, s.mcv_freq);
  }
  auto path = std::make_shared<JoinPath>();
  path->kind = JoinPath::Kind::kHashJoin;
  path->join_kind = p.kind;
  path->cost =
      disabled_if(!ctx_.settings.enable_hashjoin, final_cost_hashjoin(cs_, in, ws, bucket));
  path->cost.rows = in.rows;
  path->relids = p.join.relids;
  path->width = p.join.width;
  path->outer = outer;
  path->inner = inner;
  path->restrict = p.shared;
  path->join_keys = clauses;
  path->hash_buckets = ws.table.buckets;
  path->hash_batches = ws.table.batches;
  add_join_path(p, std::move(path), partial);
}

}  // namespace tp
