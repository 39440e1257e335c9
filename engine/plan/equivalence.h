// PostgreSQL's equivalence classes, as far as they shape one table's restrictions
// (equivclass.c). Every top-level `x = k` (x a column or an expression over columns, k a
// constant or a pseudo-constant: a generic plan's `$n`, `CURRENT_DATE - 7`) joins a
// class: a member already in one brings the other in, and a restriction whose members
// are in two classes merges them (process_equivalence). Once the other restrictions are
// placed, each class gives its restrictions back (generate_base_implied_equalities), so
// equalities come last, classes in the order they were created:
//
//   b = 1 AND c < 5 AND b = 2 AND d = 4 AND c = 7
//     -> c < 5, b = 1, d = 4, c = 7   and a contradiction (1 <> 2)
//   a = 5 AND b = 6 AND c = 5     -> a = 5, c = 5, b = 6   (a and c share 5)
//   a = $1 AND a = $2             -> a = $2, and $1 = $2 gating the scan
//
// A class of one restriction gives it as written. Otherwise the class's constant is its
// first real constant, else its last pseudo-constant, and every other member is equated
// to it in the order the members joined: two different constants make the restriction
// false (PostgreSQL's gating Result with `One-Time Filter: false` above the scan, and an
// estimate of one row); a pseudo-constant equated to it is a clause without columns,
// which gates the scan. A typed `x = y` of two expressions is a class without a constant
// (written again, `y = x`, it counts once); `x = x` is `x IS NOT NULL`.
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
