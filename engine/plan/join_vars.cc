// JoinQuery's questions about its vars: their classes' keys, which a relation returns,
// how EXPLAIN names them, the equality of two, the relations an expression reads.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>

#include "engine/plan/join_query.h"
#include "engine/plan/lateral.h"

#include "engine/plan/outer_joins.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/expr_ops.h"
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

namespace {

// The one var `e` reads, if it reads exactly one (estimate_num_groups pulls it out).
std::optional<uint32_t> only_var(const TypedExpr& e) {
  std::vector<uint32_t> read;
  expr_slots(e, read);
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  if (read.size() != 1) return std::nullopt;
  return read[0];
}

}  // namespace

uint32_t JoinQuery::first_member_var(uint32_t key) const {
  const JoinClass& c = classes[key];
  if (c.expr_first && !c.exprs.empty())
    if (const std::optional<uint32_t> v = only_var(c.exprs[0].expr)) return *v;
  return c.members[0];
}

// The var whose statistics count the groups of `var`'s class when that class, to
// PostgreSQL, was made by a WHERE's `f(x) = var` with f(x) written first (its first
// member): x, the one var f reads; else `var` itself.
uint32_t JoinQuery::expression_class_var(uint32_t var) const {
  for (const JoinFilterClause& f : filters) {
    const TypedExpr& e = f.expr;
    if (!f.pushed_down || e.kind != TypedExpr::Kind::kCall || e.name != "=" ||
        e.form != TypedExpr::Form::kInfix || e.args.size() != 2)
      continue;
    const TypedExpr& right = strip_relabel(e.args[1]);
    if (right.kind != TypedExpr::Kind::kColumn || right.slot != var ||
        strip_relabel(e.args[0]).kind == TypedExpr::Kind::kColumn)
      continue;
    if (const std::optional<uint32_t> v = only_var(e.args[0])) return *v;
  }
  return var;
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

TypedExpr JoinQuery::var_expr(uint32_t var) const {
  return column_expr(var, vars[var].type, vars[var].typmod, var_name(var));
}

TypedExpr JoinQuery::member_equality(TypedExpr a, TypedExpr b) const {
  return expr::resolve_operator("=", std::move(a), std::move(b), 0);
}

void JoinQuery::unqualify(int rel) {
  rels[size_t(rel)].prefix.clear();
  // Its attr_widths were never set: 0 in a join's width.
  for (QueryVar& v : vars)
    if (v.rel == rel) v.width = 0;
  const std::function<void(TypedExpr&)> rename = [&](TypedExpr& e) {
    if (e.kind == TypedExpr::Kind::kColumn && vars[e.slot].rel == rel) e.name = var_name(e.slot);
    for (TypedExpr& a : e.args) rename(a);
  };
  for (JoinFilterClause& f : filters) rename(f.expr);
  for (const std::shared_ptr<TypedExpr>& t : targets) rename(*t);
  for (JoinOrderItem& o : order) rename(*o.expr);
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
    if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) continue;
    const TypedExpr& a = strip_order_keeping_relabel(e.args[0]);
    const TypedExpr& b = strip_order_keeping_relabel(e.args[1]);
    // A column equal to an expression of one var of another relation (`s1.n =
    // (s3.a)::numeric`, `s0.k + 1 = s1.k`): the column's order serves a merge join too.
    if ((a.kind == TypedExpr::Kind::kColumn) != (b.kind == TypedExpr::Kind::kColumn)) {
      const TypedExpr& col = a.kind == TypedExpr::Kind::kColumn ? a : b;
      std::vector<uint32_t> other;
      expr_slots(a.kind == TypedExpr::Kind::kColumn ? e.args[1] : e.args[0], other);
      std::sort(other.begin(), other.end());
      other.erase(std::unique(other.begin(), other.end()), other.end());
      if (other.size() == 1 && vars[other[0]].rel != vars[col.slot].rel &&
          e.args[0].type == e.args[1].type)
        out.push_back({col.slot, other[0]});
      continue;
    }
    // A pushed-down one of two types (no class holds it) sorts its sides the same way.
    if (f.pushed_down && e.args[0].type == e.args[1].type) continue;
    if (a.kind != TypedExpr::Kind::kColumn || b.kind != TypedExpr::Kind::kColumn ||
        !same_merge_family(a.type, b.type))
      continue;
    out.push_back({a.slot, b.slot});
    out.push_back({b.slot, a.slot});
  }
  return out;
}

// A key on a column WHERE fixes to a constant orders nothing, nor does one whose
// equivalence class an earlier key sorts already (`ORDER BY a.x, b.x` over `a.x =
// b.x`): PostgreSQL's pathkeys leave them out (pathkey_is_redundant), and so does the
// Sort Key.
void drop_redundant_order_keys(JoinQuery& q, bool distinct) {
  std::vector<JoinOrderItem> kept;
  std::vector<uint32_t> sorted_classes;
  for (JoinOrderItem& item : q.order) {
    const TypedExpr& e = *item.expr;
    if (e.kind == TypedExpr::Kind::kColumn &&
        std::find(q.fixed.begin(), q.fixed.end(), e.slot) != q.fixed.end())
      continue;
    if (e.kind == TypedExpr::Kind::kColumn && !distinct) {
      const uint32_t key = q.key_of(e.slot);
      if (key < q.classes.size() &&
          std::find(sorted_classes.begin(), sorted_classes.end(), key) != sorted_classes.end())
        continue;
      sorted_classes.push_back(key);
    }
    const bool odd_nulls = item.nulls_first != item.descending;
    // A computed key prints in parentheses of its own, as show_sort_keys deparses it; a
    // column of a class as the select list's first member of it (prepare_sort_from_pathkeys
    // finds the class in the Sort's input target list).
    const TypedExpr* shown = &e;
    if (e.kind == TypedExpr::Kind::kColumn && q.key_of(e.slot) < q.classes.size())
      for (const std::shared_ptr<TypedExpr>& t : q.targets)
        if (t->kind == TypedExpr::Kind::kColumn && q.key_of(t->slot) == q.key_of(e.slot)) {
          shown = t.get();
          break;
        }
    const std::string text =
        e.kind == TypedExpr::Kind::kColumn ? deparse(*shown) : "(" + deparse(e) + ")";
    item.shown = text;
    q.order_text += (q.order_text.empty() ? "" : ", ") + text + (item.descending ? " DESC" : "") +
                    (odd_nulls ? (item.nulls_first ? " NULLS FIRST" : " NULLS LAST") : "");
    kept.push_back(std::move(item));
  }
  q.order = std::move(kept);
}

}  // namespace tp
