// PostgreSQL's equivalence classes, as far as they shape one table's restrictions
// (equivclass.c). Every top-level `column = constant` joins its column's class; once
// the other restrictions are placed, each class gives its restriction back
// (generate_base_implied_equalities), so equalities come last, classes in the order
// they were created:
//
//   b = 1 AND c < 5 AND b = 2 AND d = 4 AND c = 7
//     -> c < 5, b = 1, d = 4, c = 7   and a contradiction (1 <> 2)
//
// A class of one clause gives that clause; of more, one `column = c` for its first
// constant c (a repeated `a = 5` counts once), and a constant that differs from c
// makes the restriction false: PostgreSQL's gating Result with `One-Time Filter:
// false` above the scan, and an estimate of one row. A typed `x = y` of two expressions
// is a class without a constant (written again, `y = x`, it counts once); `x = x` is
// `x IS NOT NULL`.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/core/clause.h"

namespace tp {

struct EquivalenceResult {
  std::vector<Clause> clauses;  // the restrictions in PostgreSQL's order
  bool contradiction = false;   // two different constants in one class
  size_t class_start = 0;       // where the classes' equalities begin in `clauses`
};

EquivalenceResult apply_equivalence_classes(std::vector<Clause> clauses);

}  // namespace tp
