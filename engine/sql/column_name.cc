// Columns of a select list: the name an item gets without an alias (PostgreSQL's
// FigureColname), and qualified references checked against FROM as its
// refnameNamespaceItem does.
#include <string>

#include "engine/core/error.h"
#include "engine/sql/ast.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/parser.h"

namespace tp::sql {

namespace {

// PostgreSQL's FigureColnameInternal: the name, and how strong it is (2: a column's or
// function's name, 1: a type's name or "case", 0: none). A weak name gives way to a
// stronger one below it: `CASE ... ELSE t END` is named t.
int figure_column_name(const Expr& e, std::string& name) {
  switch (e.kind) {
    case ExprKind::kColumnRef:
    case ExprKind::kFuncCall:
      name = e.name;
      return 2;
    case ExprKind::kCast: {
      if (e.param != 0) return 0;  // a typed parameter is a Param, not a cast
      const int strength = figure_column_name(*e.args[0], name);
      if (strength > 1) return strength;
      name = e.sval;  // pg_type's name: int4, float8, ...
      return 1;
    }
    case ExprKind::kSubLink:
      // A scalar subquery is named after its one column, EXISTS "exists".
      if (e.name == "exists") {
        name = "exists";
        return 2;
      }
      if (e.name == "expr" && e.subselect && !e.subselect->targets.empty()) {
        const Target& t = e.subselect->targets[0];
        if (!t.alias.empty()) {
          name = t.alias;
          return 2;
        }
        return figure_column_name(*t.expr, name);
      }
      return 0;
    case ExprKind::kCase: {
      const int strength = e.case_else ? figure_column_name(*e.args.back(), name) : 0;
      if (strength > 1) return strength;
      name = "case";
      return 1;
    }
    default:
      return 0;
  }
}

}  // namespace

namespace {

[[noreturn]] void bad_reference(const Expr& ref, const std::string& hint) {
  throw Error("invalid reference to FROM-clause entry for table \"" + ref.qualifier + "\"", "",
              hint)
      .at_position(ref.position)
      .with_sqlstate(sqlstate::kUndefinedTable);
}

// A qualified `t.a` / `s.t.a` / `t.*` names the FROM item by its alias, or by its table's
// name when it has none; the schema, when written, must be the table's.
void check_reference(const Expr& ref, const FromItem* from) {
  // A correlated subquery's reference to the outer query's table.
  if (names_outer_table(ref)) return;
  if (from) {
    const bool aliased = !from->alias.empty() && from->alias != from->name;
    const std::string& refname = from->alias.empty() ? from->name : from->alias;
    const bool schema = !ref.sval.empty();
    if (!schema && ref.qualifier == refname) return;
    if (aliased && ref.qualifier == from->name)
      bad_reference(ref, "Perhaps you meant to reference the table alias \"" + from->alias + "\".");
    if (schema && !aliased && ref.qualifier == from->name) {
      const bool same_schema = from->schema.empty()
                                   ? ref.sval == "public" || ref.sval == "pg_catalog"
                                   : ref.sval == from->schema;
      if (same_schema) return;
      bad_reference(ref, "There is an entry for table \"" + ref.qualifier +
                             "\", but it cannot be referenced from this part of the query.");
    }
  }
  throw Error("missing FROM-clause entry for table \"" + ref.qualifier + "\"")
      .at_position(ref.position)
      .with_sqlstate(sqlstate::kUndefinedTable);
}

void check_expr(const Expr* e, const FromItem* from) {
  if (!e) return;
  if ((e->kind == ExprKind::kColumnRef || e->kind == ExprKind::kStar) && !e->qualifier.empty())
    check_reference(*e, from);
  for (const ExprPtr& a : e->args) check_expr(a.get(), from);
}

}  // namespace

void check_column_qualifiers(const Select& s) {
  const FromItem* from = s.from ? &*s.from : nullptr;
  for (const Target& t : s.targets) check_expr(t.expr.get(), from);
  for (const ExprPtr& e : s.distinct_on) check_expr(e.get(), from);
  check_expr(s.where.get(), from);
  for (const OrderItem& o : s.order_by) check_expr(o.expr.get(), from);
  if (from)
    for (const ExprPtr& e : from->func_args) check_expr(e.get(), nullptr);
  for (const auto& row : s.values)
    for (const ExprPtr& e : row) check_expr(e.get(), nullptr);
}

std::string default_column_name(const Expr& e) {
  std::string name;
  return figure_column_name(e, name) > 0 ? name : "?column?";
}

}  // namespace tp::sql
