// The columns `*` and `t.*` stand for over a join, in PostgreSQL's order: each FROM
// item's columns left to right, a USING join's merged columns first and once (the left
// side's, a RIGHT join's right side's); and the relation a reference name names.
#pragma once

#include <string>
#include <vector>

#include "engine/plan/join_query.h"
#include "engine/sql/ast.h"

namespace tp {

// A column of one of the query's relations.
struct RelColumn {
  int rel = -1;
  int column = -1;
};

// The relation whose reference name (alias, else table name) is `refname`; -1: none.
int rel_named(const JoinQuery& q, const std::string& refname);

// The columns `e` (`*`, or `t.*` with e.qualifier) stands for over the FROM clause
// `from`. Throws PostgreSQL's 42P01 for an unknown `t`.
std::vector<RelColumn> star_of(const JoinQuery& q, const sql::FromItem& from, const sql::Expr& e);

}  // namespace tp
