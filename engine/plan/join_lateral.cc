// The join search's part for LATERAL subqueries planned on their own (lateral.h):
// set_subquery_pathlist's one path parameterized by lateral_relids, join_is_legal's
// lateral checks, have_join_order_restriction's direct lateral reference, and
// match_unsorted_outer's Nested Loops over that path (and a Memoize over it).
#include <bit>

#include "engine/plan/join_search.h"
#include "engine/plan/lateral.h"

namespace tp {

void JoinSearch::add_lateral_path(JoinRelation& inner, size_t rel) {
  const JoinBaseRel& r = q_.rels[rel];
  std::shared_ptr<LateralSubquery> l = r.lateral;
  auto path = std::make_shared<JoinPath>();
  path->relids = inner.relids;
  path->width = inner.width;
  path->lateral = true;
  // cost_subqueryscan: the subquery's plan and a cpu_tuple_cost per row it returns.
  path->cost = {l->cost.startup, l->cost.total + cs_.cpu_tuple_cost * l->cost.rows, inner.rows};
  path->required_outer = Relids(1) << r.lateral_outer;
  for (int c : l->outer_columns) {
    const uint32_t v = q_.var_of(r.lateral_outer, c);
    TypedExpr e;
    e.kind = TypedExpr::Kind::kColumn;
    e.slot = v;
    e.type = q_.vars[v].type;
    e.typmod = q_.vars[v].typmod;
    e.name = q_.var_name(v);
    path->param_exprs.push_back(e);
  }
  path->param_keys = path->param_exprs;
  std::vector<int> columns;
  for (uint32_t v : output_vars(inner.relids)) columns.push_back(q_.vars[v].column);
  path->param_build = [l, columns](const scans::ExecParams* params) {
    return lateral_scan(*l, params, columns);
  };
  inner.param_paths.push_back(std::move(path));
}

// A join relation holding a LATERAL subquery holds the relation it reads (PostgreSQL
// could make one parameterized by it; not built).
bool JoinSearch::lateral_legal(Relids joined) const {
  for (size_t i = 0; i < q_.rels.size(); ++i)
    if (q_.rels[i].lateral && (joined >> i & 1) && !(joined >> q_.rels[i].lateral_outer & 1))
      return false;
  return true;
}

// One side holds a LATERAL subquery the other's relation is read by.
bool JoinSearch::lateral_link(Relids a, Relids b) const {
  for (size_t i = 0; i < q_.rels.size(); ++i) {
    if (!q_.rels[i].lateral) continue;
    const Relids sub = Relids(1) << i, outer = Relids(1) << q_.rels[i].lateral_outer;
    if (((a & sub) && (b & outer)) || ((b & sub) && (a & outer))) return true;
  }
  return false;
}

// has_join_restriction: a base relation with lateral_relids or lateral_referencers.
bool JoinSearch::lateral_restricted(Relids r) const {
  if (std::popcount(r) != 1) return false;
  const size_t rel = size_t(std::countr_zero(r));
  for (const JoinBaseRel& b : q_.rels)
    if (b.lateral && size_t(b.lateral_outer) == rel) return true;
  return q_.rels[rel].lateral != nullptr;
}

void JoinSearch::lateral_nestloops(Pair& p) {
  if (p.kind == JoinKind::kRight || p.kind == JoinKind::kFull || p.unique != UniqueSide::kNone)
    return;
  for (const JoinPathPtr& outer : p.outer.paths) {
    const std::vector<PathKey> keys = join_pathkeys(p, outer->pathkeys);
    for (const JoinPathPtr& param : p.inner.param_paths) {
      if ((param->required_outer & ~p.outer.relids) != 0) continue;
      try_nestloop(p, outer, param, keys);
      if (JoinPathPtr memo = memoize_path(p, *outer, param)) try_nestloop(p, outer, memo, keys);
    }
  }
}

}  // namespace tp
