#include "engine/plan/equivalence.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace tp {

namespace {

// A class member of `column = constant`: an integer comparison, or a numeric one
// (`(a)::numeric = 2.5`), whose class is separate (another operator family).
// A typed `expression = constant` (`(v)::text = 'x'::text`, `lower(t) = 'x'::text`):
// PostgreSQL's mergejoinable equality, whose expression side joins a class too. Returns
// the side's index (or -1).
int typed_equality_side(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr) return -1;
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) return -1;
  const bool l = e.args[0].is_const(), r = e.args[1].is_const();
  if (l == r || (l ? e.args[0].isnull : e.args[1].isnull)) return -1;
  return l ? 1 : 0;
}

std::string typed_side_text(const Clause& c, bool constant) {
  const int side = typed_equality_side(c);
  return deparse(c.expr->args[size_t(constant ? 1 - side : side)]);
}

bool is_class_source(const Clause& c) {
  if (typed_equality_side(c) >= 0) return true;
  // `(a)::numeric = 2.5` is held as the (empty) IN list it equals for the integer column.
  if (c.numeric) return c.numeric->op == CmpOp::kEq && !c.numeric->array;
  return c.kind == Clause::Kind::kCompare && c.op == CmpOp::kEq && !c.negated &&
         c.value.has_value();
}

bool same_class(const Clause& a, const Clause& b) {
  const bool ta = a.kind == Clause::Kind::kExpr, tb = b.kind == Clause::Kind::kExpr;
  if (ta || tb)
    return ta && tb && a.expr->compare_as == b.expr->compare_as &&
           typed_side_text(a, false) == typed_side_text(b, false);
  return a.column == b.column && a.numeric.has_value() == b.numeric.has_value();
}

// Numeric constants that are whole numbers (`a = 3.0`) are held as the integer they
// equal; the others as an empty IN list, which no row passes, so whichever of them a
// class keeps, the result is the same: their text tells them apart.
bool same_constant(const Clause& a, const Clause& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Clause::Kind::kCompare) return a.value == b.value;
  if (a.kind == Clause::Kind::kExpr) return typed_side_text(a, true) == typed_side_text(b, true);
  return a.numeric->text == b.numeric->text;
}

// A typed `expression = expression` over the table's columns (`k = n`, held as
// `(k)::numeric = n`): a class of its two sides and no constant, which
// generate_base_implied_equalities_no_const gives back as one equality however often it
// is written (`k = n AND n = k`). Not for equal sides (PostgreSQL makes those IS NOT
// NULL), volatile ones, or a side that is also in a class with a constant (`n = 5`:
// PostgreSQL merges the classes; kept as written here).
bool is_pair_source(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr) return false;
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) return false;
  if (e.args[0].is_const() || e.args[1].is_const()) return false;
  if (expr_is_volatile(e)) return false;
  return deparse(e.args[0]) != deparse(e.args[1]);
}

// The sides' texts, in order.
std::pair<std::string, std::string> pair_sides(const Clause& c) {
  return {deparse(c.expr->args[0]), deparse(c.expr->args[1])};
}

bool same_pair(const Clause& a, const Clause& b) {
  if (a.expr->compare_as != b.expr->compare_as) return false;
  const auto [a0, a1] = pair_sides(a);
  const auto [b0, b1] = pair_sides(b);
  return (a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0);
}

// The nodes' kinds and the columns and parameters they read: two expressions that print
// alike may still read different things (a column `k` and an outer `k` printed bare).
std::string reads_of(const TypedExpr& e) {
  std::string s = std::to_string(int(e.kind)) + ":" + std::to_string(e.slot) + "(";
  for (const TypedExpr& a : e.args) s += reads_of(a) + ",";
  return s + ")";
}

// A restriction `x = x` over one non-volatile expression: process_equivalence makes it
// `x IS NOT NULL` (every `=` here is strict), in place.
bool is_self_equality(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr) return false;
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) return false;
  if (e.args[0].is_const() || expr_is_volatile(e)) return false;
  return deparse(e.args[0]) == deparse(e.args[1]) && reads_of(e.args[0]) == reads_of(e.args[1]);
}

Clause not_null(const Clause& equality) {
  TypedExpr test;
  test.kind = TypedExpr::Kind::kIsNull;
  test.type = TypeId::kBool;
  test.negated = true;
  test.args.push_back(equality.expr->args[0]);
  return Clause::expression(std::move(test));
}

struct EquivalenceClass {
  Clause first;  // its first source: the constant the class keeps (or the pair's equality)
  bool differs = false;
  int sources = 1;
  bool pair = false;  // sides without a constant (is_pair_source)
};

}  // namespace

EquivalenceResult apply_equivalence_classes(std::vector<Clause> clauses) {
  EquivalenceResult out;
  std::vector<EquivalenceClass> classes;
  // Sides that are in a class with a constant: pairs over them stay as written.
  std::set<std::string> constant_sides;
  for (const Clause& c : clauses)
    if (typed_equality_side(c) >= 0) constant_sides.insert(typed_side_text(c, false));
  auto pair_class = [&](const Clause& c) {
    if (!is_pair_source(c)) return false;
    const auto [l, r] = pair_sides(c);
    return !constant_sides.contains(l) && !constant_sides.contains(r);
  };
  for (Clause& c : clauses) {
    if (is_self_equality(c)) {
      out.clauses.push_back(not_null(c));
      continue;
    }
    if (pair_class(c)) {
      auto same = std::find_if(classes.begin(), classes.end(), [&](const EquivalenceClass& e) {
        return e.pair && same_pair(e.first, c);
      });
      if (same == classes.end())
        classes.push_back({std::move(c), false, 1, true});
      else
        ++same->sources;
      continue;
    }
    if (!is_class_source(c)) {
      out.clauses.push_back(std::move(c));
      continue;
    }
    EquivalenceClass* ec = nullptr;
    for (EquivalenceClass& e : classes)
      if (!e.pair && same_class(e.first, c)) ec = &e;
    if (!ec) {
      classes.push_back({std::move(c), false});
      continue;
    }
    ec->differs = ec->differs || !same_constant(ec->first, c);
    ++ec->sources;
  }
  out.class_start = out.clauses.size();
  for (EquivalenceClass& e : classes) {
    out.contradiction = out.contradiction || e.differs;
    // A class of one source keeps its clause as written (generate_base_implied_
    // equalities_const's trivial case); otherwise PostgreSQL makes the class's equality
    // again, column first.
    // A pair's equality is its first source's: the members in the order they joined.
    if (e.sources == 1 || e.pair) {
      out.clauses.push_back(std::move(e.first));
      continue;
    }
    e.first.constant_left = false;
    if (typed_equality_side(e.first) == 1) {
      TypedExpr flipped = *e.first.expr;
      std::swap(flipped.args[0], flipped.args[1]);
      e.first = Clause::expression(std::move(flipped));
    }
    out.clauses.push_back(std::move(e.first));
  }
  return out;
}

}  // namespace tp
