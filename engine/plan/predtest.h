// PostgreSQL's predicate_implied_by (predtest.c) for what a scan node drops from its
// Filter: a restriction clause that the index conditions prove true for every row they
// return (`a <> 3` beside `a = 7`, `b <> 5` beside `b = ANY ('{3,4}')`, `a <> 20` beside
// `a BETWEEN 5 AND 10`) is not checked again. The estimate is not changed: PostgreSQL
// costs every restriction clause and drops the implied ones only when it makes the plan.
//
//   drop_implied({a <> 3, d < 5}, {a = 7})   // {d < 5}
//
// The proofs are PostgreSQL's: an AND implies what any of its parts implies, an OR (and
// an IN list of at most 100 elements, an OR of equalities) what all its arms imply; a
// clause to prove that is an AND needs every part proven, an OR one; two comparisons of
// one column with constants by set inclusion over the operators' order (so `a < 10` does
// not prove `a <= 9`: PostgreSQL's btree proof does not count integers), or the same
// clause. Numeric comparisons and NULL constants prove nothing.
#pragma once

#include <vector>

#include "engine/core/clause.h"

namespace tp {

// Whether `clause` holds on every row on which all of `conditions` hold.
bool implied_by(const Clause& clause, const std::vector<Clause>& conditions);

// `filter` without the clauses `conditions` imply.
std::vector<Clause> drop_implied(std::vector<Clause> filter, const std::vector<Clause>& conditions);

}  // namespace tp
