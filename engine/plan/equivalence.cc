#include "engine/plan/equivalence.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "engine/plan/equivalence_members.h"

namespace tp {

namespace {

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

// A class: of a constant (its members and the restrictions that made it), or of a pair
// of expressions without one (`first` its first source).
struct EquivalenceClass {
  bool pair = false;
  Clause first;
  int sources = 1;
  std::string family;
  std::vector<ClassMember> members;
  std::vector<Clause> source_clauses;
  bool merged = false;  // merged into an earlier class
};

ClassMember* find_member(EquivalenceClass& e, const std::string& key) {
  for (ClassMember& m : e.members)
    if (m.key == key) return &m;
  return nullptr;
}

// What a member seen again adds (an integer column's typed form).
void absorb(ClassMember& m, const ClassMember& again) {
  if (!m.expr) m.expr = again.expr;
  if (!m.column) m.column = again.column;
  if (!m.value) m.value = again.value;
}

// `c` with its column (or expression) on the left, as PostgreSQL makes a class's
// equality again.
Clause column_first(Clause c) {
  c.constant_left = false;
  if (c.kind == Clause::Kind::kExpr) {
    const std::optional<ClassSource> s = class_source(c);
    if (s && s->first.konst) {
      TypedExpr flipped = *c.expr;
      std::swap(flipped.args[0], flipped.args[1]);
      c = Clause::expression(std::move(flipped));
    }
  }
  return c;
}

// generate_base_implied_equalities_const: the class's constant is its first real
// constant, else its last parameter; every other member is equated to it, in the
// order the members joined. Two different constants make the class false; a
// parameter equated to a constant or another parameter is a clause without columns,
// which gates the scan. Returns false when an equality cannot be made here (the class
// then gives its restrictions as written).
bool class_equalities(const EquivalenceClass& e, std::vector<Clause>& out, bool& contradiction) {
  size_t ci = 0;
  bool found = false;
  for (size_t i = 0; i < e.members.size(); ++i) {
    if (!e.members[i].konst) continue;
    ci = i;
    found = true;
    if (e.members[i].real) break;
  }
  if (!found) return false;
  const ClassMember& k = e.members[ci];
  for (size_t i = 0; i < e.members.size(); ++i) {
    const ClassMember& m = e.members[i];
    if (i == ci) continue;
    if (m.konst && m.real && k.real) {
      contradiction = contradiction || !same_constant_value(m, k);
      continue;
    }
    // A restriction written with just these two members is given back as it was.
    auto same =
        std::find_if(e.source_clauses.begin(), e.source_clauses.end(), [&](const Clause& c) {
          const std::optional<ClassSource> s = class_source(c);
          return s && !m.konst &&
                 ((s->first.key == m.key && s->second.key == k.key) ||
                  (s->first.key == k.key && s->second.key == m.key));
        });
    if (same != e.source_clauses.end()) {
      out.push_back(column_first(*same));
      continue;
    }
    std::optional<Clause> made = member_equality(m, k);
    if (!made) return false;
    out.push_back(std::move(*made));
  }
  return true;
}

// A pair source joins the class of the same pair, or starts one.
void add_pair_source(std::vector<EquivalenceClass>& classes, Clause c) {
  auto same = std::find_if(classes.begin(), classes.end(), [&](const EquivalenceClass& e) {
    return e.pair && same_pair(e.first, c);
  });
  if (same != classes.end()) {
    ++same->sources;
    return;
  }
  EquivalenceClass e;
  e.pair = true;
  e.first = std::move(c);
  classes.push_back(std::move(e));
}

// process_equivalence: a member already in a class brings the other into it; when the
// two members are in two classes, the second's class merges into the first's.
void add_constant_source(std::vector<EquivalenceClass>& classes, Clause c, const ClassSource& s) {
  auto class_of = [&](const std::string& key) -> EquivalenceClass* {
    for (EquivalenceClass& e : classes)
      if (!e.pair && !e.merged && e.family == s.family && find_member(e, key)) return &e;
    return nullptr;
  };
  EquivalenceClass* e1 = class_of(s.first.key);
  EquivalenceClass* e2 = class_of(s.second.key);
  if (!e1 && !e2) {
    EquivalenceClass e;
    e.family = s.family;
    e.members = {s.first, s.second};
    e.source_clauses.push_back(std::move(c));
    classes.push_back(std::move(e));
    return;
  }
  if (e1 && e2 && e1 != e2) {
    for (ClassMember& m : e2->members) e1->members.push_back(std::move(m));
    for (Clause& m : e2->source_clauses) e1->source_clauses.push_back(std::move(m));
    e2->merged = true;
  }
  EquivalenceClass* e = e1 ? e1 : e2;
  for (const ClassMember* m : {&s.first, &s.second}) {
    if (ClassMember* have = find_member(*e, m->key))
      absorb(*have, *m);
    else
      e->members.push_back(*m);
  }
  e->source_clauses.push_back(std::move(c));
}

// The class's restrictions, appended to `out`.
void give_back(EquivalenceClass& e, EquivalenceResult& out) {
  // A pair's equality is its first source's: the members in the order they joined.
  if (e.pair) {
    out.clauses.push_back(std::move(e.first));
    return;
  }
  // A class of one restriction keeps it as written (generate_base_implied_
  // equalities_const's trivial case).
  if (e.members.size() == 2 && e.source_clauses.size() == 1) {
    out.clauses.push_back(std::move(e.source_clauses[0]));
    return;
  }
  std::vector<Clause> made;
  bool contradiction = false;
  if (!class_equalities(e, made, contradiction)) {
    for (Clause& c : e.source_clauses) out.clauses.push_back(std::move(c));
    return;
  }
  for (Clause& c : made) out.clauses.push_back(std::move(c));
  out.contradiction = out.contradiction || contradiction;
}

}  // namespace

EquivalenceResult apply_equivalence_classes(std::vector<Clause> clauses) {
  EquivalenceResult out;
  std::vector<EquivalenceClass> classes;
  // Expressions that are in a class with a constant: pairs over them stay as written.
  std::set<std::string> constant_sides;
  for (const Clause& c : clauses)
    if (const std::optional<ClassSource> s = class_source(c); s && c.kind == Clause::Kind::kExpr)
      constant_sides.insert(deparse(*(s->first.konst ? s->second : s->first).expr));
  auto pair_class = [&](const Clause& c) {
    if (!is_pair_source(c)) return false;
    const auto [l, r] = pair_sides(c);
    return !constant_sides.contains(l) && !constant_sides.contains(r);
  };
  for (Clause& c : clauses) {
    if (is_self_equality(c)) {
      out.clauses.push_back(not_null(c));
    } else if (pair_class(c)) {
      add_pair_source(classes, std::move(c));
    } else if (const std::optional<ClassSource> s = class_source(c)) {
      add_constant_source(classes, std::move(c), *s);
    } else {
      out.clauses.push_back(std::move(c));
    }
  }
  out.class_start = out.clauses.size();
  for (EquivalenceClass& e : classes)
    if (!e.merged) give_back(e, out);
  return out;
}

}  // namespace tp
