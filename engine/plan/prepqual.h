// PostgreSQL's canonicalize_qual (prepqual.c) over a normalized WHERE clause:
// find_duplicate_ors pulls the sub-clauses every arm of an OR shares out in front of it,
//
//   (v >= 1 AND v <= 3) OR (v >= 1 AND v <= 5)   ->   v >= 1 AND (v <= 3 OR v <= 5)
//   (a >= 2 AND a <= 2) OR (a >= 2 AND a <= 2)   ->   a >= 2 AND a <= 2
//   (A AND B) OR A                                ->   A
//
// within the top-level AND/OR structure, as PostgreSQL does before it plans, so the
// estimates, the index conditions and the printed Filter come out as its.
#pragma once

#include "engine/core/clause.h"

namespace tp {

// `where` must be normalize()d (no NOT, no BETWEEN; ANDs and ORs flattened).
Clause find_duplicate_ors(const Clause& where);

// equal() on two clauses: the same kind, column, operator, constants and arguments.
bool same_clause(const Clause& a, const Clause& b);

}  // namespace tp
