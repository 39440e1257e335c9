// bind_expr: a parsed expression (sql::Expr) as a TypedExpr, resolved as PostgreSQL 15's
// parser does: constants typed (integers int4 or int8, decimals numeric, strings unknown
// until their context types them), operators and functions chosen by their arguments'
// types with implicit casts, BETWEEN as two comparisons, IN lists as `= ANY`, CASE and
// COALESCE over a common type, immutable calls over constants folded.
//
//   auto columns = [&](const sql::Expr& ref) { return BoundColumnRef{slot, type, typmod, "a"}; };
//   TypedExpr e = bind_expr(*parsed, columns);
//   e = finish_output(std::move(e));   // a bare 'abc' in a select list is text
#pragma once

#include <functional>
#include <string>

#include "engine/core/typed_expr.h"
#include "engine/sql/ast.h"

namespace tp {

struct BoundColumnRef {
  uint32_t slot = 0;
  TypeId type = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  std::string printed;  // as EXPLAIN names it: "a", "t.a"
};

// Resolves a column reference (throws 42703 for an unknown name).
using ColumnLookup = std::function<BoundColumnRef(const sql::Expr& ref)>;

TypedExpr bind_expr(const sql::Expr& e, const ColumnLookup& columns);

// A boolean context (WHERE, CASE WHEN): `e` must be boolean (an unknown literal is read
// as one); `context` names it in the error ("argument of WHERE must be type boolean").
TypedExpr bind_condition(const sql::Expr& e, const ColumnLookup& columns, const char* context);

// An expression whose value is returned (a select-list entry): an untyped literal is text.
TypedExpr finish_output(TypedExpr e);

// Whether a parsed expression calls an aggregate (count, sum, avg, min, max).
bool calls_aggregate(const sql::Expr& e);

}  // namespace tp
