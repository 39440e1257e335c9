#include "engine/plan/equivalence.h"

namespace tp {

namespace {

// A class member of `column = constant`: an integer comparison, or a numeric one
// (`(a)::numeric = 2.5`), whose class is separate (another operator family).
bool is_class_source(const Clause& c) {
  return c.kind == Clause::Kind::kCompare && c.op == CmpOp::kEq && !c.negated &&
         c.value.has_value() && (!c.numeric || !c.numeric->array);
}

bool same_class(const Clause& a, const Clause& b) {
  return a.column == b.column && a.numeric.has_value() == b.numeric.has_value();
}

bool same_constant(const Clause& a, const Clause& b) {
  if (a.numeric) return a.numeric->text == b.numeric->text;
  return *a.value == *b.value;
}

struct EquivalenceClass {
  Clause first;  // its first source: the constant the class keeps
  bool differs = false;
};

}  // namespace

EquivalenceResult apply_equivalence_classes(std::vector<Clause> clauses) {
  EquivalenceResult out;
  std::vector<EquivalenceClass> classes;
  for (Clause& c : clauses) {
    if (!is_class_source(c)) {
      out.clauses.push_back(std::move(c));
      continue;
    }
    EquivalenceClass* ec = nullptr;
    for (EquivalenceClass& e : classes)
      if (same_class(e.first, c)) ec = &e;
    if (!ec) {
      classes.push_back({std::move(c), false});
      continue;
    }
    ec->differs = ec->differs || !same_constant(ec->first, c);
  }
  for (EquivalenceClass& e : classes) {
    out.contradiction = out.contradiction || e.differs;
    out.clauses.push_back(std::move(e.first));
  }
  return out;
}

}  // namespace tp
