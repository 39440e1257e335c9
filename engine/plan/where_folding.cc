#include "engine/plan/where_folding.h"

#include <algorithm>

#include "engine/sql/params.h"

namespace tp {

namespace {

// What eval_const_expressions makes of a boolean expression: a constant, or unknown.
// An operator over a NULL constant is NULL (they are strict); AND is false with one
// false arm and NULL with only true and NULL ones, OR the other way round.
enum class Folded { kTrue, kFalse, kNull, kUnknown };

Folded fold_constant(const sql::Expr& e) {
  using K = sql::ExprKind;
  switch (e.kind) {
    case K::kBoolConst:
      return e.ival != 0 ? Folded::kTrue : Folded::kFalse;
    case K::kNullConst:
      return sql::param_value_unknown(e.param) ? Folded::kUnknown : Folded::kNull;
    case K::kAnd:
    case K::kOr: {
      const Folded absorbing = e.kind == K::kAnd ? Folded::kFalse : Folded::kTrue;
      bool all_known = true, any_null = false;
      for (const sql::ExprPtr& a : e.args) {
        const Folded f = fold_constant(*a);
        if (f == absorbing) return absorbing;
        any_null = any_null || f == Folded::kNull;
        all_known = all_known && f != Folded::kUnknown;
      }
      if (!all_known) return Folded::kUnknown;
      if (any_null) return Folded::kNull;
      return e.kind == K::kAnd ? Folded::kTrue : Folded::kFalse;
    }
    case K::kNot: {
      const Folded f = fold_constant(*e.args[0]);
      return f == Folded::kTrue ? Folded::kFalse : f == Folded::kFalse ? Folded::kTrue : f;
    }
    case K::kIsNull:
      if (fold_constant(*e.args[0]) != Folded::kNull) return Folded::kUnknown;
      return e.negated ? Folded::kFalse : Folded::kTrue;
    case K::kCompare:
    case K::kBinary:
    case K::kUnary:
    case K::kCast:
    case K::kLike:
      return std::any_of(e.args.begin(), e.args.end(),
                         [](const sql::ExprPtr& a) { return fold_constant(*a) == Folded::kNull; })
                 ? Folded::kNull
                 : Folded::kUnknown;
    case K::kInList:
      return fold_constant(*e.args[0]) == Folded::kNull ? Folded::kNull : Folded::kUnknown;
    default:
      return Folded::kUnknown;
  }
}

}  // namespace

bool where_folds_to_false(const sql::Expr& e) {
  using K = sql::ExprKind;
  const Folded f = fold_constant(e);
  if (f == Folded::kFalse || f == Folded::kNull) return true;
  const auto arm = [](const sql::ExprPtr& a) { return where_folds_to_false(*a); };
  const auto null_arm = [](const sql::ExprPtr& a) { return fold_constant(*a) == Folded::kNull; };
  switch (e.kind) {
    case K::kAnd:
      return std::any_of(e.args.begin(), e.args.end(), arm);
    case K::kOr:
      return std::all_of(e.args.begin(), e.args.end(), arm);
    case K::kBetween:
      // x >= a AND x <= b; NOT BETWEEN: x < a OR x > b.
      if (null_arm(e.args[0])) return true;
      return e.negated ? null_arm(e.args[1]) && null_arm(e.args[2])
                       : null_arm(e.args[1]) || null_arm(e.args[2]);
    default:
      return false;
  }
}

}  // namespace tp
