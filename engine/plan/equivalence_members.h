// The members of a single table's equivalence classes with a constant, as PostgreSQL 15's
// process_equivalence sees a restriction `x = k`: `x` a column or an expression over
// columns, `k` a constant or a statement parameter `$n` of a generic plan (a
// pseudo-constant), both of one operator family. equivalence.cc merges the classes and
// gives their equalities back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/clause.h"

namespace tp {

struct ClassMember {
  std::string key;     // what tells members apart within the family
  bool konst = false;  // a constant or a $n
  bool real = false;   // a constant (a Const), not a $n
  // What rebuilds an equality over it: an integer column, an integer constant, or the
  // member as a typed expression (unknown for an integer column seen only in the integer
  // form of a comparison).
  std::optional<int> column;
  std::optional<int64_t> value;
  std::optional<TypedExpr> expr;
  std::string numeric;  // an integer column's numeric comparison: the fraction's digits
};

// A restriction that joins a class: its family ("int" for every integer comparison,
// as PostgreSQL's integer_ops; "numeric" for an integer column compared in numeric;
// else the type compared as) and its two members in the order written.
struct ClassSource {
  std::string family;
  ClassMember first, second;
};
std::optional<ClassSource> class_source(const Clause& c);

// Whether two constants are equal (3.0 and 3.00 are, though they are two members).
bool same_constant_value(const ClassMember& a, const ClassMember& b);

// `x = k` as the restriction PostgreSQL makes (process_implied_equality), or nothing when
// the members do not say enough to build it.
std::optional<Clause> member_equality(const ClassMember& x, const ClassMember& k);

}  // namespace tp
