// WHERE clauses between the SQL text and the executor: binding a WHERE clause of a query
// over one table to that table's columns (the estimator's tp::Expr, engine/plan/selectivity.h),
// compiling clauses to the per-row form the scans evaluate (scans/qual.h), and printing
// them back as PostgreSQL's EXPLAIN does ("Filter: ((a >= 1) AND (a <= 10))").
#pragma once

#include <string>
#include <vector>

#include "engine/core/heap_tuple.h"
#include "engine/plan/selectivity.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"
#include "scans/qual.h"

namespace tp {

// The table column a column reference names; throws tp::Error (at its position) if none.
int bind_column(const RelationEntry& rel, const sql::Expr& column_ref);

// A WHERE clause as the estimator's expression. Throws tp::Error, naming the place, for
// what tidepool cannot evaluate (a comparison of two column expressions, an unknown
// operator, a function call, ...).
Expr bind_where(const RelationEntry& rel, const sql::Expr& where);

// Clauses (columns resolved to tuple offsets) as one per-row qual, ANDed.
scans::Qual compile_clauses(const std::vector<Expr>& clauses, const TupleLayout& layout);

// A clause as PostgreSQL's deparser prints it; clauses_text ANDs a list ("" for none).
std::string deparse(const Expr& clause, const RelationEntry& rel);
std::string clauses_text(const std::vector<Expr>& clauses, const RelationEntry& rel);

}  // namespace tp
