// WHERE clauses between the SQL text and the plan: binding a WHERE clause of a query
// over one table to that table's columns (tp::Clause, engine/core/clause.h, which the
// estimator reads and scans/qual.h compiles for the executor), and printing clauses back
// as PostgreSQL's EXPLAIN does ("Filter: ((a >= 1) AND (a <= 10))").
#pragma once

#include <string>
#include <vector>

#include "engine/core/clause.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"

namespace tp {

// The table column a column reference names; throws tp::Error (at its position) if none.
int bind_column(const RelationEntry& rel, const sql::Expr& column_ref);

// A WHERE clause bound to the table's columns. Throws tp::Error, naming the place, for
// what tidepool cannot evaluate (a comparison of two column expressions, an unknown
// operator, a function call, ...).
Clause bind_where(const RelationEntry& rel, const sql::Expr& where);

// Appends the table columns `clause` reads (repeats included).
void clause_columns(const Clause& clause, std::vector<int>& out);

// A clause as PostgreSQL's deparser prints it; clauses_text ANDs a list ("" for none).
std::string deparse(const Clause& clause, const RelationEntry& rel);
std::string clauses_text(const std::vector<Clause>& clauses, const RelationEntry& rel);

// The columns WHERE fixes to one value (`col = const` among the restriction clauses):
// PostgreSQL's equivalence classes with a constant, which make a sort key on them
// redundant (build_index_pathkeys, make_pathkeys_for_sortclauses).
std::vector<int> constant_columns(const std::vector<Clause>& clauses);
// The expressions (other than plain columns) the restrictions fix to a constant
// (`d + 30 = '2020-10-14'`), as deparse prints them: ORDER BY drops a key on one.
std::vector<std::string> constant_expressions(const std::vector<Clause>& clauses);

}  // namespace tp
