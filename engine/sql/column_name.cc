// The name a select-list item gets without an alias, as PostgreSQL's FigureColname.
#include <string>

#include "engine/sql/ast.h"
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
      const int strength = figure_column_name(*e.args[0], name);
      if (strength > 1) return strength;
      name = e.sval;  // pg_type's name: int4, float8, ...
      return 1;
    }
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

std::string default_column_name(const Expr& e) {
  std::string name;
  return figure_column_name(e, name) > 0 ? name : "?column?";
}

}  // namespace tp::sql
