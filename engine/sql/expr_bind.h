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
#include <optional>
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

// A function call its caller resolves (a row source's generate_series as a column,
// random() where a generator is given); std::nullopt leaves it to the built-in functions.
using CallLookup = std::function<std::optional<TypedExpr>(const sql::Expr& call)>;

TypedExpr bind_expr(const sql::Expr& e, const ColumnLookup& columns, const CallLookup& calls = {});
// The subqueries (kSubLink) the planner planned: which (`planned`), and each as the
// expression that reads its value (`bind`): an InitPlan's kParam, a SubPlan's kSubPlan
// (its arguments bound through `columns`). While a ScopedSubLinks is alive on a thread,
// bind_expr binds subqueries with it; otherwise they are refused.
struct SubLinkBinding {
  std::function<bool(const sql::Expr& sublink)> planned;
  std::function<TypedExpr(const sql::Expr& sublink, const ColumnLookup& columns)> bind;
  // A correlated SubPlan's references to the outer query's columns, as qualified column
  // references (none for an InitPlan): the tables a clause with it reads.
  std::function<std::vector<sql::Expr>(const sql::Expr& sublink)> outer_refs;
};
const SubLinkBinding*& current_sublinks();
// Whether the running plan made an InitPlan or SubPlan of `sublink`.
bool sublink_planned(const sql::Expr& sublink);
// While a correlated subquery is planned: a column reference its own tables do not
// resolve, as the parameter that carries the outer row's value (nullopt: not the outer
// query's either, the error stands).
// `outer_only`: whether a qualifier names an outer query's table and none of the
// subquery's (`t.k` inside a subquery over u), so that the subquery's tables, which
// resolve names alone, do not take it.
struct OuterRefs {
  std::function<std::optional<TypedExpr>(const sql::Expr& ref)> resolve;
  std::function<bool(const std::string& qualifier)> outer_only;
};
// Whether `ref` is written qualified by an outer query's table only (OuterRefs).
bool names_outer_table(const sql::Expr& ref);
const OuterRefs*& current_outer_refs();

class ScopedSubLinks {
 public:
  explicit ScopedSubLinks(const SubLinkBinding* b) : saved_(current_sublinks()) {
    current_sublinks() = b;
  }
  ~ScopedSubLinks() { current_sublinks() = saved_; }
  ScopedSubLinks(const ScopedSubLinks&) = delete;
  ScopedSubLinks& operator=(const ScopedSubLinks&) = delete;

 private:
  const SubLinkBinding* saved_;
};

// A boolean context (WHERE, CASE WHEN): `e` must be boolean (an unknown literal is read
// as one); `context` names it in the error ("argument of WHERE must be type boolean").
TypedExpr bind_condition(const sql::Expr& e, const ColumnLookup& columns, const char* context,
                         const CallLookup& calls = {});

// select_common_type over `exprs` (the rows of a VALUES column), each then coerced to
// it; a column of untyped literals is text. `context` names it in errors ("VALUES").
void coerce_to_common_type(const std::vector<TypedExpr*>& exprs, const char* context, int position);

// random(): the session's generator (EvalState::random must be set), volatile.
TypedExpr random_call();

// An expression stored into `column` (INSERT's targets): coerced in assignment context
// as PostgreSQL's transformAssignedExpr does (numeric rounds into integers, any type
// into text, varchar(n) too long fails), else 42804 "column ... is of type ...".
TypedExpr assign_to_column(TypedExpr e, const std::string& column, TypeId type, int32_t typmod,
                           int position);

// An expression whose value is returned (a select-list entry): an untyped literal is text.
TypedExpr finish_output(TypedExpr e);
// An untyped literal or NULL read as `to` (its input function); any other `e` unchanged.
TypedExpr read_unknown_as(TypedExpr e, TypeId to, int position);

// Whether a parsed expression calls an aggregate (count, sum, avg, min, max).
bool calls_aggregate(const sql::Expr& e);

}  // namespace tp
