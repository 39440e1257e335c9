// Small helpers over written expressions that the join binder's parts share
// (join_query.cc, join_sublinks.cc).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/sql/ast.h"

namespace tp {

std::string quoted(const std::string& s);
// "<what> is not supported yet" (0A000) at `position`.
Error not_supported(const std::string& what, int position);
// A literal, a cast or sign of one, or an expression of them and stable functions.
bool is_constant(const sql::Expr& e);
// The conjuncts of `e` (its top-level ANDs taken apart).
void split_and(const sql::Expr* e, std::vector<const sql::Expr*>& out);
// A deep copy of `e`; with `qualify`, each column reference gets the name of the table
// it resolves to (how a subquery's names keep their scope once it is pulled up).
std::unique_ptr<sql::Expr> copy_expr(
    const sql::Expr& e, const std::function<std::string(const sql::Expr& ref)>* qualify = nullptr);
// Whether a WHERE conjunct is a subquery the join planner pulls up: EXISTS (...),
// NOT EXISTS (...), x IN (SELECT ...).
bool is_sublink_conjunct(const sql::Expr& e);

}  // namespace tp
