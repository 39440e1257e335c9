#include "engine/plan/pseudo_constant.h"

#include <vector>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/value_arena.h"
#include "engine/sql/expr_ops.h"

namespace tp {

bool is_pseudo_constant(const TypedExpr& e) {
  if (e.is_const()) return true;
  if (expr_is_volatile(e)) return false;
  std::vector<uint32_t> slots;
  expr_slots(e, slots);
  return slots.empty();
}

std::optional<TypedExpr> plan_time_value(const TypedExpr& e) {
  if (e.is_const()) return e;
  // An InitPlan's value is not known until the plan runs (PostgreSQL's Param).
  if (!is_pseudo_constant(e) || reads_subquery(e)) return std::nullopt;
  ValueArena arena;
  EvalState st{&arena, timestamp_now()};
  bool isnull = false;
  try {
    const Datum v = evaluate(e, nullptr, nullptr, st, isnull);
    return expr::make_const(e.type, e.typmod, v, isnull);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace tp
