#include "engine/plan/join_removal.h"

#include <algorithm>
#include <bit>

#include "engine/plan/outer_joins.h"

namespace tp {

namespace {

bool subset(Relids a, Relids b) {
  return (a & ~b) == 0;
}

// The inner table's columns `outer = inner` clauses of the join equate to its preserved
// side; nullopt when a clause done at the join reads the table otherwise.
std::optional<std::vector<int>> equated_columns(const JoinQuery& q, const SpecialJoin& j,
                                                int inner) {
  const Relids joinrelids = j.min_lefthand | j.min_righthand;
  const Relids bit = Relids(1) << inner;
  std::vector<int> out;
  for (const JoinFilterClause& f : q.filters) {
    const Relids reads = q.relids_of(f.expr);
    if (!(reads & bit)) continue;
    if (f.pushed_down || !subset(f.relids, joinrelids)) return std::nullopt;
    const TypedExpr& e = f.expr;
    if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) continue;
    for (size_t side = 0; side < 2; ++side) {
      const TypedExpr& in = strip_relabel(e.args[side]);
      const Relids other = q.relids_of(e.args[1 - side]);
      if (in.kind == TypedExpr::Kind::kColumn && q.vars[in.slot].rel == inner && other != 0 &&
          subset(other, j.min_lefthand) && same_btree_family(in.type, e.args[1 - side].type))
        out.push_back(q.vars[in.slot].column);
    }
  }
  return out;
}

bool removable(const JoinQuery& q, const PlanContext& ctx, const SpecialJoin& j) {
  if (j.kind != JoinKind::kLeft || j.delay_upper_joins || !std::has_single_bit(j.min_righthand))
    return false;
  const int inner = std::countr_zero(j.min_righthand);
  const Relids joinrelids = j.min_lefthand | j.min_righthand;
  const JoinBaseRel& r = q.rels[size_t(inner)];
  for (size_t c = 0; c < r.rel->columns.size(); ++c)
    if (!subset(q.vars[r.first_var + c].where_needed, joinrelids)) return false;
  for (const JoinClass& c : q.classes)
    for (uint32_t v : c.members)
      if (q.vars[v].rel == inner) return false;
  std::optional<std::vector<int>> cols = equated_columns(q, j, inner);
  if (!cols) return false;
  cols->insert(cols->end(), r.constant_columns.begin(), r.constant_columns.end());
  return unique_index_on(ctx, *r.rel, *cols);
}

void remove(JoinQuery& q, size_t join) {
  const SpecialJoin j = q.special_joins[join];
  const Relids bit = j.min_righthand;
  q.removed |= bit;
  q.special_joins.erase(q.special_joins.begin() + std::ptrdiff_t(join));
  for (SpecialJoin& o : q.special_joins) {
    o.min_lefthand &= ~bit;
    o.min_righthand &= ~bit;
    o.syn_lefthand &= ~bit;
    o.syn_righthand &= ~bit;
  }
  std::erase_if(q.filters,
                [&](const JoinFilterClause& f) { return (q.relids_of(f.expr) & bit) != 0; });
  for (JoinFilterClause& f : q.filters) {
    f.relids &= ~bit;
    f.outer_relids &= ~bit;
    f.nullable_relids &= ~bit;
  }
  for (QueryVar& v : q.vars) v.where_needed &= ~bit;
}

}  // namespace

bool unique_index_on(const PlanContext& ctx, const RelationEntry& table,
                     const std::vector<int>& columns) {
  for (const RelationEntry* idx : ctx.catalog.indexes_of(table.oid)) {
    if (!idx->unique || ctx.data_dir.damage(idx->relnumber) || idx->key_columns.empty()) continue;
    if (std::all_of(idx->key_columns.begin(), idx->key_columns.end(), [&](int k) {
          return std::find(columns.begin(), columns.end(), k) != columns.end();
        }))
      return true;
  }
  return false;
}

void remove_useless_joins(JoinQuery& q, const PlanContext& ctx) {
  for (size_t i = 0; i < q.special_joins.size();) {
    if (removable(q, ctx, q.special_joins[i])) {
      remove(q, i);
      i = 0;  // a removal may make an outer join above removable
    } else {
      ++i;
    }
  }
}

}  // namespace tp
