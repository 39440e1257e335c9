// PostgreSQL's pseudo-constants: an expression with no column and no volatile function
// (`CURRENT_DATE - 7`, `LOCALTIMESTAMP - interval '1 day'`). Its value is fixed for the
// statement, so the planner estimates with it (estimate_expression_value) and an index
// scan may compare with it; EXPLAIN still prints the expression.
//
//   if (std::optional<TypedExpr> v = plan_time_value(side)) ... v->value.datum() ...
#pragma once

#include <optional>

#include "engine/core/typed_expr.h"

namespace tp {

// Whether `e` is a pseudo-constant (a constant is one too).
bool is_pseudo_constant(const TypedExpr& e);

// A pseudo-constant's value now, as a constant (a constant as it is); nullopt for
// anything else, or when evaluating it fails (its error is the executor's to raise).
std::optional<TypedExpr> plan_time_value(const TypedExpr& e);

}  // namespace tp
