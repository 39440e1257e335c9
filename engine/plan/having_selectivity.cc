#include "engine/plan/having_selectivity.h"

#include <string>
#include <vector>

namespace tp {
namespace {

constexpr double kDefaultIneqSel = 0.3333333333333333;  // DEFAULT_INEQ_SEL
constexpr double kDefaultEqSel = 0.005;                 // DEFAULT_EQ_SEL
constexpr double kDefaultRangeSel = 0.005;              // DEFAULT_RANGE_INEQ_SEL

// A HAVING conjunct's selectivity: no statistics describe an aggregate's values, so
// each comparison takes PostgreSQL's default (an inequality a third, an equality
// 0.005); a pair of bounds on one expression is a range (0.005).
double clause_selectivity(const TypedExpr& e) {
  switch (e.kind) {
    case TypedExpr::Kind::kAnd: {
      double s = 1;
      for (const TypedExpr& a : e.args) s *= clause_selectivity(a);
      return s;
    }
    case TypedExpr::Kind::kOr: {
      double s = 0;
      for (const TypedExpr& a : e.args) s = s + clause_selectivity(a) - s * clause_selectivity(a);
      return s;
    }
    case TypedExpr::Kind::kNot:
      return 1 - clause_selectivity(e.args[0]);
    case TypedExpr::Kind::kCall:
      if (e.form != TypedExpr::Form::kInfix) break;
      if (e.name == "=") return kDefaultEqSel;
      if (e.name == "<>") return 1 - kDefaultEqSel;
      if (e.name == "<" || e.name == "<=" || e.name == ">" || e.name == ">=")
        return kDefaultIneqSel;
      break;
    default:
      break;
  }
  return 0.5;
}

// Whether `e` is a bound (`x < c`, `x >= c`) on an expression that reads a column (a
// key, an aggregate of one: clauselist_selectivity pairs only clauses of one relation):
// the expression's text, and whether it is an upper bound.
bool range_bound(const TypedExpr& e, const std::function<bool(const TypedExpr&)>& reads_column,
                 std::string& var, bool& upper) {
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || e.args.size() != 2)
    return false;
  const bool less = e.name == "<" || e.name == "<=";
  if (!less && e.name != ">" && e.name != ">=") return false;
  const bool const_right = e.args[1].is_const(), const_left = e.args[0].is_const();
  if (const_right == const_left) return false;
  const TypedExpr& side = e.args[const_right ? 0 : 1];
  if (!reads_column(side)) return false;
  var = deparse(side);
  upper = less == const_right;
  return true;
}

}  // namespace

double having_selectivity(const TypedExpr& having,
                          const std::function<bool(const TypedExpr&)>& reads_column) {
  std::vector<const TypedExpr*> parts;
  if (having.kind == TypedExpr::Kind::kAnd)
    for (const TypedExpr& a : having.args) parts.push_back(&a);
  else
    parts.push_back(&having);
  // clauselist_selectivity: a lower and an upper bound on one expression, both at the
  // default, make a range.
  double s = 1;
  std::vector<bool> used(parts.size(), false);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (used[i]) continue;
    std::string var, other;
    bool upper = false, other_upper = false;
    if (range_bound(*parts[i], reads_column, var, upper))
      for (size_t j = i + 1; j < parts.size(); ++j)
        if (!used[j] && range_bound(*parts[j], reads_column, other, other_upper) && other == var &&
            other_upper != upper) {
          used[j] = true;
          used[i] = true;
          s *= kDefaultRangeSel;
          break;
        }
    if (!used[i]) s *= clause_selectivity(*parts[i]);
  }
  return s;
}

}  // namespace tp
