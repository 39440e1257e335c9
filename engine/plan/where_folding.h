// Whether a WHERE clause is false before the planner looks at it: PostgreSQL's
// eval_const_expressions folds constants (an operator over a NULL constant is NULL), then
// canonicalize_qual reads the qual (an AND with a FALSE or NULL arm is FALSE, an OR of
// nothing else too). A WHERE that folds so loses its subqueries before they are planned:
// no InitPlan of theirs is made.
#pragma once

#include "engine/sql/ast.h"

namespace tp {

bool where_folds_to_false(const sql::Expr& e);

}  // namespace tp
