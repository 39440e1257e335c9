// JoinSearch's parameterized join paths (join_search.h): PostgreSQL 15's join relations
// parameterized by a relation outside them. A relation on the nullable side of an outer
// join (or the right side of a semi or anti join) cannot be joined to the outer side's
// relations before the rest of its side is built; so that its index may still be keyed
// on an outer row, the join of its side is made over its parameterized path and is
// itself parameterized by the outer relation, and the Nested Loop above rescans the whole
// join per outer row:
//
//   Nested Loop Left Join
//     ->  Seq Scan on a
//     ->  Hash Join                      parameterized by a
//           ->  Seq Scan on b
//           ->  Hash
//                 ->  Index Scan on c    Index Cond: (d = a.tz)
//
// add_paths_to_joinrel's param_source_rels decides where: a join relation holding part of
// an outer join's right side and none of its left side may be parameterized by the rest.
// Here one input's parameterized path is joined to the other input's cheapest path by a
// Nested Loop or a Hash Join, either way round, when that path applies every clause
// linking the join to its parameter's relation (get_joinrel_parampathinfo then has no
// clause left to add); its rows are the pair's join size over the parameterized path's
// rows, from the first pair that made the parameterization (get_parameterized_joinrel_size).
#include <algorithm>

#include "engine/plan/join_search.h"

namespace tp {

Relids JoinSearch::param_source_rels(Relids joinrelids) const {
  Relids sources = 0;
  const Relids all = q_.all_rels();
  for (const SpecialJoin& sj : q_.special_joins) {
    if ((joinrelids & sj.min_righthand) && !(joinrelids & sj.min_lefthand))
      sources |= all & ~sj.min_righthand;
    // A full join constrains both sides alike.
    if (sj.kind == JoinKind::kFull && (joinrelids & sj.min_lefthand) &&
        !(joinrelids & sj.min_righthand))
      sources |= all & ~sj.min_lefthand;
  }
  return sources;
}

// Whether `child` applies every clause between the relations of `join` and those of
// `outside` (get_joinrel_parampathinfo's movable clauses): each class with members on
// both sides, each Join Filter reading both.
bool JoinSearch::links_enforced(const JoinPath& child, Relids join, Relids outside) const {
  const Relids both = join | outside;
  for (size_t c = 0; c < q_.classes.size(); ++c) {
    Relids members = q_.classes[c].expression_rels;
    for (uint32_t v : q_.classes[c].members) members |= Relids(1) << q_.vars[v].rel;
    if (!(members & join) || !(members & outside)) continue;
    if (std::find(child.param_classes.begin(), child.param_classes.end(), uint32_t(c)) ==
        child.param_classes.end())
      return false;
  }
  for (const JoinFilterClause& f : q_.filters) {
    // A clause reading both (one waiting for a join above is checked there, as is one
    // over the join's relations alone that an outer join below delays).
    const Relids reads = q_.relids_of(f.expr);
    if ((f.relids & ~both) || !(reads & join) || !(reads & outside)) continue;
    if (std::find(child.param_filters.begin(), child.param_filters.end(), deparse(f.expr)) ==
        child.param_filters.end())
      return false;
  }
  return true;
}

void JoinSearch::add_param_join_paths(Pair& p) {
  if (p.unique != UniqueSide::kNone || p.kind == JoinKind::kFull || !p.outer_total ||
      !p.inner_total)
    return;
  // A Right join returns its inner side's unmatched rows: no Nested Loop runs one.
  const bool nestloop = p.kind != JoinKind::kRight;
  const Relids sources = param_source_rels(p.join.relids);
  if (sources == 0) return;
  for (const bool inner_side : {true, false}) {
    const JoinRelation& rel = inner_side ? p.inner : p.outer;
    for (const JoinPathPtr& child : rel.param_paths) {
      const Relids by = child->required_outer;
      if ((by & p.join.relids) || !(by & sources) || child->kind == JoinPath::Kind::kMemoize ||
          child->lateral || !links_enforced(*child, p.join.relids, by))
        continue;
      p.param_child = child;
      if (inner_side) {
        if (nestloop) try_nestloop(p, p.outer_total, child, {});
        if (!p.hash.empty()) try_hashjoin(p, p.outer_total, child);
      } else {
        if (nestloop) param_outer_nestloops(p, child);
        if (!p.hash.empty()) try_hashjoin(p, child, p.inner_total);
      }
      p.param_child = nullptr;
    }
  }
}

// Nested Loops over a parameterized outer path: the inner side's cheapest path, its
// Materialize, and its scans keyed on the outer side's rows (with a Memoize over them).
void JoinSearch::param_outer_nestloops(Pair& p, const JoinPathPtr& child) {
  try_nestloop(p, child, p.inner_total, {});
  if (JoinPathPtr material = materialized(p.inner_total)) try_nestloop(p, child, material, {});
  for (const JoinPathPtr& keyed : p.inner.param_paths) {
    if ((keyed->required_outer & ~p.outer.relids) || (keyed->param_needs & ~p.join.relids) ||
        keyed->lateral)
      continue;
    try_nestloop(p, child, keyed, {});
    if (JoinPathPtr memo = memoize_path(p, *child, keyed)) try_nestloop(p, child, memo, {});
  }
}

void JoinSearch::keep_param_join_path(Pair& p, std::shared_ptr<JoinPath> path) {
  const JoinPath& child = *p.param_child;
  path->required_outer = child.required_outer;
  path->param_exprs = child.param_exprs;
  path->param_keys = child.param_keys;
  path->param_classes = child.param_classes;
  path->param_filters = child.param_filters;
  path->param_needs = child.param_needs;
  path->param_binary = child.param_binary;
  path->memo_blocked = true;  // no Memoize over a join here
  path->pathkeys.clear();
  // get_parameterized_joinrel_size: the pair's join size over its paths' rows, no more
  // than the relation's own.
  auto known = std::find_if(p.join.param_rows.begin(), p.join.param_rows.end(),
                            [&](const auto& r) { return r.first == path->required_outer; });
  if (known == p.join.param_rows.end()) {
    const double rows =
        pair_rows(p.kind, p.restrict, path->outer->cost.rows, path->inner->cost.rows);
    p.join.param_rows.emplace_back(path->required_outer, std::min(rows, p.join.rows));
    known = p.join.param_rows.end() - 1;
  }
  path->cost.rows = known->second;
  for (JoinPathPtr& kept : p.join.param_paths) {
    if (kept->required_outer != path->required_outer) continue;
    if (path->cost.total < kept->cost.total) kept = std::move(path);
    return;
  }
  p.join.param_paths.push_back(std::move(path));
}

}  // namespace tp
