// JoinQuery's questions about its vars: their classes' keys, which a relation returns,
// how EXPLAIN names them, the equality of two, the relations an expression reads.
#include <memory>

#include "engine/plan/join_query.h"
#include "engine/plan/lateral.h"

#include "engine/plan/outer_joins.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"

namespace tp {
namespace {

void relids_in(const JoinQuery& q, const TypedExpr& e, Relids& out) {
  if (e.kind == TypedExpr::Kind::kColumn) out |= Relids(1) << q.vars[e.slot].rel;
  for (const TypedExpr& a : e.args) relids_in(q, a, out);
}

}  // namespace

uint32_t JoinQuery::key_of(uint32_t var) const {
  for (size_t c = 0; c < classes.size(); ++c)
    for (uint32_t v : classes[c].members)
      if (v == var) return uint32_t(c);
  return uint32_t(classes.size()) + var;
}

std::vector<uint32_t> JoinQuery::output_vars(Relids relids) const {
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < vars.size(); ++v)
    if ((relids & (Relids(1) << vars[v].rel)) && (vars[v].where_needed & ~relids) != 0)
      out.push_back(v);
  return out;
}

std::string JoinQuery::var_name(uint32_t var) const {
  return column_name(vars[var].rel, vars[var].column);
}

std::string JoinQuery::column_name(int rel, int column) const {
  const JoinBaseRel& r = rels[size_t(rel)];
  if (r.lateral && !r.lateral->shown[size_t(column)].empty())
    return r.lateral->shown[size_t(column)];
  return r.prefix + sql::quote_identifier(r.rel->columns[size_t(column)].name);
}

TypedExpr JoinQuery::var_equality(uint32_t a, uint32_t b) const {
  // Bound as the parser's `a = b` would be: the operator PostgreSQL resolves for the two
  // types (int4 = int8 compares as int8).
  sql::Expr eq(sql::ExprKind::kCompare, 0);
  eq.name = "=";
  for (uint32_t v : {a, b}) {
    auto ref = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, 0);
    ref->ival = v;
    eq.args.push_back(std::move(ref));
  }
  const ColumnLookup lookup = [this](const sql::Expr& ref) {
    const uint32_t v = uint32_t(ref.ival);
    return BoundColumnRef{v, vars[v].type, vars[v].typmod, var_name(v)};
  };
  return bind_condition(eq, lookup, "JOIN");
}

Relids JoinQuery::relids_of(const TypedExpr& e) const {
  Relids r = 0;
  relids_in(*this, e, r);
  return r;
}

std::vector<std::pair<uint32_t, uint32_t>> JoinQuery::outer_join_merge_pairs() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const JoinFilterClause& f : filters) {
    const TypedExpr& e = f.expr;
    if (f.pushed_down || e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2)
      continue;
    const TypedExpr& a = strip_relabel(e.args[0]);
    const TypedExpr& b = strip_relabel(e.args[1]);
    if (a.kind != TypedExpr::Kind::kColumn || b.kind != TypedExpr::Kind::kColumn ||
        !same_btree_family(a.type, b.type))
      continue;
    out.push_back({a.slot, b.slot});
    out.push_back({b.slot, a.slot});
  }
  return out;
}

}  // namespace tp
