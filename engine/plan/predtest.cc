#include "engine/plan/predtest.h"

#include <algorithm>

#include "engine/core/stack_depth.h"
#include "engine/plan/prepqual.h"

namespace tp {

namespace {

// predtest.c's MAX_SAOP_ARRAY_SIZE: a longer IN list is not expanded into its arms.
constexpr size_t kMaxSaopArraySize = 100;

bool is_simple_compare(const Clause& c) {
  return c.kind == Clause::Kind::kCompare && !c.numeric && c.value.has_value();
}

// Whether every x with `x cond_op a` has `x pred_op b` (over a total order: the set
// of the condition lies inside the predicate's).
bool operator_implies(CmpOp cond_op, int64_t a, CmpOp pred_op, int64_t b) {
  if (cond_op == CmpOp::kEq) return cmp_holds(pred_op, a, b);
  if (cond_op == CmpOp::kNe) return pred_op == CmpOp::kNe && a == b;
  const bool upper = cond_op == CmpOp::kLt || cond_op == CmpOp::kLe;  // x below a
  const bool strict = cond_op == CmpOp::kLt || cond_op == CmpOp::kGt;
  switch (pred_op) {
    case CmpOp::kEq:
      return false;
    case CmpOp::kNe:  // b outside the condition's range
      return upper ? (strict ? b >= a : b > a) : (strict ? b <= a : b < a);
    case CmpOp::kLt:
      return upper && (strict ? a <= b : a < b);
    case CmpOp::kLe:
      return upper && a <= b;
    case CmpOp::kGt:
      return !upper && (strict ? a >= b : a > b);
    case CmpOp::kGe:
      return !upper && a >= b;
  }
  return false;
}

// predtest.c's predicate_classify: an AND, an OR (an IN list of at most 100 constants
// is an OR of equalities, NOT IN an AND of inequalities), or an atom.
enum class Shape { kAnd, kOr, kAtom };

Shape classify(const Clause& c, std::vector<Clause>& items) {
  items.clear();
  if (c.kind == Clause::Kind::kAnd || c.kind == Clause::Kind::kOr) {
    items = c.args;
    return c.kind == Clause::Kind::kAnd ? Shape::kAnd : Shape::kOr;
  }
  if (c.kind == Clause::Kind::kIn && !c.numeric && c.list.size() <= kMaxSaopArraySize) {
    for (const std::optional<int64_t>& v : c.list)
      items.push_back(Clause::cmp(c.column, c.negated ? CmpOp::kNe : CmpOp::kEq, v));
    return c.negated ? Shape::kAnd : Shape::kOr;
  }
  return Shape::kAtom;
}

// predicate_implied_by_simple_clause: the same clause, or two comparisons of one
// column with constants.
bool atom_implies(const Clause& cond, const Clause& pred) {
  if (same_clause(cond, pred)) return true;
  if (is_simple_compare(cond) && is_simple_compare(pred) && cond.column == pred.column)
    return operator_implies(cond.op, *cond.value, pred.op, *pred.value);
  return false;
}

// predicate_implied_by_recurse, case by case.
bool implies(const Clause& cond, const Clause& pred) {
  check_stack_depth();
  std::vector<Clause> a, b;
  const Shape ca = classify(cond, a);
  const Shape cb = classify(pred, b);
  auto cond_implies = [&](const Clause& p) { return implies(cond, p); };
  auto implies_pred = [&](const Clause& c) { return implies(c, pred); };
  switch (ca) {
    case Shape::kAnd:
      if (cb == Shape::kAnd) return std::all_of(b.begin(), b.end(), cond_implies);
      if (cb == Shape::kOr && std::any_of(b.begin(), b.end(), cond_implies)) return true;
      return std::any_of(a.begin(), a.end(), implies_pred);
    case Shape::kOr:
      if (cb == Shape::kOr)
        return std::all_of(a.begin(), a.end(), [&](const Clause& x) {
          return std::any_of(b.begin(), b.end(), [&](const Clause& y) { return implies(x, y); });
        });
      if (cb == Shape::kAnd) return std::all_of(b.begin(), b.end(), cond_implies);
      return std::all_of(a.begin(), a.end(), implies_pred);
    case Shape::kAtom:
      if (cb == Shape::kAnd) return std::all_of(b.begin(), b.end(), cond_implies);
      if (cb == Shape::kOr) return std::any_of(b.begin(), b.end(), cond_implies);
      return atom_implies(cond, pred);
  }
  return false;
}

}  // namespace

bool implied_by(const Clause& clause, const std::vector<Clause>& conditions) {
  if (conditions.empty()) return false;
  // predicate_implied_by: a list of conditions is their AND.
  std::vector<Clause> conds;
  for (const Clause& c : conditions) conds.push_back(normalize(c));
  const Clause cond = conds.size() == 1 ? conds[0] : Clause::and_of(std::move(conds));
  return implies(cond, normalize(clause));
}

std::vector<Clause> drop_implied(std::vector<Clause> filter,
                                 const std::vector<Clause>& conditions) {
  std::erase_if(filter, [&](const Clause& c) { return implied_by(c, conditions); });
  return filter;
}

}  // namespace tp
