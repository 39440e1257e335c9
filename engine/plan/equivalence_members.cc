#include "engine/plan/equivalence_members.h"

#include <limits>

#include "engine/core/datum_ops.h"
#include "engine/sql/expr_ops.h"

namespace tp {
namespace {

bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}

// The side `x` of `x = k` that reads columns.
ClassMember var_member(const TypedExpr& e, bool integers) {
  ClassMember m;
  if (integers && e.kind == TypedExpr::Kind::kColumn) {
    m.key = "c" + std::to_string(e.slot);  // the same key as the integer form's column
    if (e.type == TypeId::kInt4 || e.type == TypeId::kInt8) m.column = int(e.slot);
  } else {
    m.key = "e" + deparse(e);
  }
  m.expr = e;
  return m;
}

// The side `k`: a constant, or a pseudo-constant (a statement parameter, an expression
// of no column such as `CURRENT_DATE - 7`); nothing for any other expression.
std::optional<ClassMember> const_member(const TypedExpr& e, bool integers) {
  ClassMember m;
  m.konst = true;
  m.expr = e;
  if (is_extern_param(e)) {
    m.key = "p" + std::to_string(e.param);
    return m;
  }
  if (!e.is_const()) {
    std::vector<uint32_t> slots;
    expr_slots(e, slots);
    // An InitPlan's value gates the scan by itself (take_gating_quals).
    if (!slots.empty() || reads_plan_value(e) || expr_is_volatile(e)) return std::nullopt;
    m.key = "x" + deparse(e);
    return m;
  }
  if (e.isnull) return std::nullopt;
  m.real = true;
  if (integers && is_integer(e.type)) {
    m.value = int64_t(e.value.datum());
    m.key = "i" + std::to_string(*m.value);
  } else {
    m.key = "k" + deparse(e);
  }
  return m;
}

}  // namespace

std::optional<ClassSource> class_source(const Clause& c) {
  if (c.param) return std::nullopt;  // a parameterized scan's join clause
  if (c.numeric) {
    // `(a)::numeric = 3.0`, held as the integer comparison it equals (`a = 2.5` as an
    // empty IN list) for the integer column.
    if (c.numeric->op != CmpOp::kEq || c.numeric->array) return std::nullopt;
    ClassSource s{"numeric", {}, {}};
    s.first.key = "n" + std::to_string(c.column);
    s.second.key = "n" + c.numeric->text;
    s.second.konst = s.second.real = true;
    if (c.kind == Clause::Kind::kCompare) s.second.value = c.value;
    std::string digits = c.numeric->text;  // 2.5, or '-4.5'::numeric
    if (!digits.empty() && digits[0] == '\'') digits = digits.substr(1, digits.find('\'', 1) - 1);
    s.second.numeric = digits;
    return s;
  }
  if (c.kind == Clause::Kind::kCompare) {
    if (c.op != CmpOp::kEq || c.negated || !c.value) return std::nullopt;
    ClassSource s{"int", {}, {}};
    s.first.key = "c" + std::to_string(c.column);
    s.first.column = c.column;
    s.second.key = "i" + std::to_string(*c.value);
    s.second.konst = s.second.real = true;
    s.second.value = *c.value;
    if (c.constant_left) std::swap(s.first, s.second);
    return s;
  }
  if (c.kind != Clause::Kind::kExpr) return std::nullopt;
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) return std::nullopt;
  if (expr_is_volatile(e)) return std::nullopt;
  const bool integers = is_integer(e.compare_as);
  const std::string family = integers ? "int" : "t" + std::to_string(int(e.compare_as));
  for (int k = 0; k < 2; ++k) {
    const TypedExpr& var = e.args[size_t(1 - k)];
    std::vector<uint32_t> slots;
    expr_slots(var, slots);
    if (slots.empty()) continue;
    std::optional<ClassMember> konst = const_member(e.args[size_t(k)], integers);
    if (!konst) continue;
    ClassSource s{family, var_member(var, integers), std::move(*konst)};
    if (k == 0) std::swap(s.first, s.second);
    return s;
  }
  return std::nullopt;
}

bool same_constant_value(const ClassMember& a, const ClassMember& b) {
  if (a.value && b.value) return *a.value == *b.value;
  if (!a.numeric.empty() && !b.numeric.empty()) {
    const OwnedDatum x = datum_in(TypeId::kNumeric, kNoTypmod, a.numeric, 0);
    const OwnedDatum y = datum_in(TypeId::kNumeric, kNoTypmod, b.numeric, 0);
    return compare_datums(TypeId::kNumeric, x.datum(), y.datum()) == 0;
  }
  if (a.expr && b.expr && a.expr->is_const() && b.expr->is_const() && a.expr->type == b.expr->type)
    return compare_datums(a.expr->type, a.expr->value.datum(), b.expr->value.datum()) == 0;
  return a.key == b.key;
}

std::optional<Clause> member_equality(const ClassMember& x, const ClassMember& k) {
  if (x.column && k.value && !x.konst) return Clause::cmp(*x.column, CmpOp::kEq, *k.value);
  auto typed = [](const ClassMember& m) -> std::optional<TypedExpr> {
    if (m.expr) return m.expr;
    if (!m.value) return std::nullopt;
    const bool small = *m.value >= std::numeric_limits<int32_t>::min() &&
                       *m.value <= std::numeric_limits<int32_t>::max();
    return expr::make_const(small ? TypeId::kInt4 : TypeId::kInt8, kNoTypmod, Datum(*m.value),
                            false);
  };
  std::optional<TypedExpr> l = typed(x), r = typed(k);
  if (!l || !r) return std::nullopt;
  return Clause::expression(expr::resolve_operator("=", std::move(*l), std::move(*r), -1));
}

}  // namespace tp
