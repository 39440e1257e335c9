#include "engine/plan/typed_index_qual.h"

#include <cfloat>
#include <cmath>
#include <string>

#include "engine/core/datetime.h"
#include "engine/plan/pattern_prefix.h"
#include "engine/plan/pseudo_constant.h"
#include "engine/sql/expr_ops.h"

namespace tp {
namespace {

// The column under binary-compatible casts (`(v)::text`), or null.
const TypedExpr* indexed_column(const TypedExpr& e) {
  const TypedExpr* x = &e;
  while (x->kind == TypedExpr::Kind::kCall && x->form == TypedExpr::Form::kRelabel) x = &x->args[0];
  return x->kind == TypedExpr::Kind::kColumn ? x : nullptr;
}

bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}

bool is_float(TypeId t) {
  return t == TypeId::kFloat4 || t == TypeId::kFloat8;
}

bool is_datetime(TypeId t) {
  return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
}

// Whether the column's btree operator family compares it with a constant of type `c`
// (integer_ops, float_ops, datetime_ops, text_ops).
bool same_family(TypeId column, TypeId c) {
  if (column == c) return true;
  if (is_integer(column) && is_integer(c)) return true;
  if (is_float(column) && is_float(c)) return true;
  if (is_datetime(column) && is_datetime(c)) return true;
  return (column == TypeId::kVarchar || column == TypeId::kText) &&
         (c == TypeId::kText || c == TypeId::kVarchar);
}

// A constant of the column's family as the column's type: `exact` when a column value
// equals it, else `below` and `above` are the column values next to it.
struct ColumnValue {
  bool exact = true;
  Datum value = 0;  // exact
  Datum below = 0, above = 0;
};

ColumnValue as_column_type(Datum v, TypeId from, TypeId to) {
  if (to == TypeId::kFloat8 && from == TypeId::kFloat4)
    return {true, float8_datum(double(datum_float4(v)))};
  // timestamp and timestamp with time zone hold the same microseconds (TimeZone UTC).
  if (to != TypeId::kDate && from == TypeId::kDate) {
    return {true, Datum(date_to_timestamp(int32_t(v)))};
  }
  if (to == TypeId::kFloat4 && from == TypeId::kFloat8) {
    const double d = datum_float8(v);
    if (std::isnan(d) || std::isinf(d)) return {true, float4_datum(float(d))};
    const float f = d > FLT_MAX ? INFINITY : d < -FLT_MAX ? -INFINITY : float(d);
    if (double(f) == d) return {true, float4_datum(f)};
    const float lo = double(f) < d ? f : std::nextafter(f, -INFINITY);
    const float hi = double(f) > d ? f : std::nextafter(f, INFINITY);
    return {false, 0, float4_datum(lo), float4_datum(hi)};
  }
  if (to == TypeId::kDate && from != TypeId::kDate) {
    if (v == kTimestampNoBegin) return {true, kDateNoBegin};
    if (v == kTimestampNoEnd) return {true, kDateNoEnd};
    const int64_t days = v / kUsecsPerDay - (v % kUsecsPerDay < 0 ? 1 : 0);  // floor
    if (days * kUsecsPerDay == v) return {true, Datum(days)};
    return {false, 0, Datum(days), Datum(days + 1)};
  }
  return {true, v};  // the column's own order already (integers, strings)
}

const char* commuted_name(const std::string& name) {
  if (name == "<") return ">";
  if (name == "<=") return ">=";
  if (name == ">") return "<";
  if (name == ">=") return "<=";
  return "=";
}

// match_boolean_index_clause: a boolean column as a clause is `b = true`; NOT b, and
// b IS TRUE / IS FALSE, are `b = false` / `b = true` / `b = false`. Returns the
// compared value, or none.
std::optional<bool> boolean_index_value(const TypedExpr& e, const TypedExpr*& col) {
  const TypedExpr* arg = &e;
  bool value = true;
  if (e.kind == TypedExpr::Kind::kNot) {
    arg = &e.args[0];
    value = false;
  } else if (e.kind == TypedExpr::Kind::kBoolTest && !e.negated &&
             (e.name == "TRUE" || e.name == "FALSE")) {
    arg = &e.args[0];
    value = e.name == "TRUE";
  }
  if (arg->kind != TypedExpr::Kind::kColumn || arg->type != TypeId::kBool) return std::nullopt;
  col = arg;
  return value;
}

}  // namespace

std::optional<TypedIndexQual> typed_index_qual(const TypedExpr& e) {
  TypedIndexQual q;
  const TypedExpr* bool_col = nullptr;
  if (const std::optional<bool> v = boolean_index_value(e, bool_col)) {
    q.column = int(bool_col->slot);
    q.column_type = TypeId::kBool;
    q.values.push_back(*v ? 1 : 0);
    return q;
  }
  if (e.kind == TypedExpr::Kind::kIsNull) {
    const TypedExpr* col = indexed_column(e.args[0]);
    if (!col) return std::nullopt;
    q.column = int(col->slot);
    q.column_type = col->type;
    q.null_test = true;
    q.negated = e.negated;
    return q;
  }
  if (e.kind == TypedExpr::Kind::kAnyArray) {
    const TypedExpr* col = indexed_column(e.args[0]);
    if (e.negated || e.name != "=" || !col) return std::nullopt;
    for (size_t i = 1; i < e.args.size(); ++i) {
      // An element may be a pseudo-constant held by value (`now() - interval '1 day'`),
      // searched with its value for this statement, as a comparison's.
      const TypedExpr& a = e.args[i];
      if (!same_family(col->type, a.type)) return std::nullopt;
      if (!a.is_const() && !(is_pseudo_constant(a) && type_info(a.type).byval)) return std::nullopt;
      const std::optional<TypedExpr> v = plan_time_value(a);
      if (!v) return std::nullopt;
      q.value_type = a.type;
      // NULL elements match nothing. A constant's bytes live in the expression; a
      // pseudo-constant's value is held by value.
      if (!v->isnull) q.values.push_back(a.is_const() ? a.value.datum() : v->value.datum());
    }
    q.column = int(col->slot);
    q.column_type = col->type;
    q.in_list = true;
    q.elements = e.args.size() - 1;
    return q;
  }
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || e.args.size() != 2)
    return std::nullopt;
  const std::optional<CmpOp> op = cmp_op_of_name(e.name);
  if (!op || *op == CmpOp::kNe) return std::nullopt;
  // The value side may be a pseudo-constant (`d > CURRENT_DATE - 7`): compared with its
  // value for this statement, when that is held by value (no bytes to keep).
  const bool const_left = is_pseudo_constant(e.args[0]);
  const TypedExpr& side = const_left ? e.args[0] : e.args[1];
  const TypedExpr* col = indexed_column(const_left ? e.args[1] : e.args[0]);
  if (!col || !same_family(col->type, side.type)) return std::nullopt;
  if (!side.is_const() && !type_info(side.type).byval) return std::nullopt;
  const std::optional<TypedExpr> constant = plan_time_value(side);
  if (!constant || constant->isnull) return std::nullopt;
  q.column = int(col->slot);
  q.column_type = col->type;
  q.op = const_left ? commute(*op) : *op;
  q.values.push_back(side.is_const() ? side.value.datum() : constant->value.datum());
  q.value_type = constant->type;
  return q;
}

btree::ColumnCondition compare_condition(int pos, CmpOp op, Datum v) {
  switch (op) {
    case CmpOp::kEq:
      return btree::ColumnCondition::eq(pos, v);
    case CmpOp::kLt:
      return btree::ColumnCondition::lt(pos, v);
    case CmpOp::kLe:
      return btree::ColumnCondition::le(pos, v);
    case CmpOp::kGt:
      return btree::ColumnCondition::gt(pos, v);
    case CmpOp::kGe:
      return btree::ColumnCondition::ge(pos, v);
    case CmpOp::kNe:
      break;
  }
  TP_ASSERT(false);  // <> is no index condition
  return {};
}

btree::ColumnCondition typed_condition(const TypedIndexQual& q, int pos) {
  using btree::Bound;
  const ColumnValue v = as_column_type(q.values[0], q.value_type, q.column_type);
  if (v.exact) return compare_condition(pos, q.op, v.value);
  switch (q.op) {
    case CmpOp::kLt:
    case CmpOp::kLe:
      return btree::ColumnCondition::le(pos, v.below);
    case CmpOp::kGt:
    case CmpOp::kGe:
      return btree::ColumnCondition::ge(pos, v.above);
    default:  // equal to no column value: from above to below, an empty range
      return {pos, Bound{v.above, true}, Bound{v.below, true}};
  }
}

std::vector<Datum> typed_in_values(const TypedIndexQual& q) {
  std::vector<Datum> out;
  for (Datum d : q.values) {
    const ColumnValue v = as_column_type(d, q.value_type, q.column_type);
    if (v.exact) out.push_back(v.value);
  }
  return out;
}

bool is_boolean_index_clause(const Clause& c) {
  const TypedExpr* col = nullptr;
  return c.kind == Clause::Kind::kExpr && c.expr && boolean_index_value(*c.expr, col);
}

std::vector<Clause> pattern_index_clauses(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr || !c.expr) return {};
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || (e.name != "~~" && e.name != "~~*") ||
      e.args.size() != 2 || !e.args[1].is_const() || e.args[1].isnull)
    return {};
  // text_ops (text, and varchar read as text) or bpchar_ops: the bounds are of the
  // pattern operator's left type.
  const TypeId as = e.args[0].type;
  const TypedExpr* col = indexed_column(e.args[0]);
  if (!col || (as != TypeId::kText && as != TypeId::kBpchar) ||
      (col->type != TypeId::kText && col->type != TypeId::kVarchar && col->type != as))
    return {};
  size_t rest = 0;
  const LikePrefix prefix = pattern_prefix(varlena_payload(datum_pointer(e.args[1].value.datum())),
                                           e.name == "~~*", rest);
  if (prefix.prefix.empty()) return {};
  const auto origin = std::make_shared<const Clause>(c);
  auto compare = [&](const char* op, const std::string& value) {
    const std::string bytes = make_varlena(value);
    TypedExpr constant = expr::make_const(as, kNoTypmod, pointer_datum(bytes.data()), false);
    Clause derived =
        Clause::expression(expr::resolve_operator(op, e.args[0], std::move(constant), -1));
    derived.derived_from = origin;
    return derived;
  };
  if (prefix.exact) return {compare("=", prefix.prefix)};
  std::vector<Clause> out{compare(">=", prefix.prefix)};
  if (const std::optional<std::string> greater = greater_string(prefix.prefix))
    out.push_back(compare("<", *greater));
  return out;
}

Clause index_cond_form(Clause c, bool index_only) {
  c.constant_left = false;
  if (c.param) c.param_key_bare = index_only;
  if (c.kind != Clause::Kind::kExpr || !c.expr || !typed_index_qual(*c.expr)) return c;
  const TypedExpr& e = *c.expr;
  const TypedExpr* bool_col = nullptr;
  if (const std::optional<bool> v = boolean_index_value(e, bool_col)) {
    TypedExpr shown;  // `b = true`: the operator clause the index applies
    shown.kind = TypedExpr::Kind::kCall;
    shown.form = TypedExpr::Form::kInfix;
    shown.type = TypeId::kBool;
    shown.name = "=";
    TypedExpr constant;
    constant.type = TypeId::kBool;
    constant.value = OwnedDatum::by_value(*v ? 1 : 0);
    shown.args = {*bool_col, std::move(constant)};
    c.expr = std::make_shared<const TypedExpr>(std::move(shown));
    return c;
  }
  const bool turn = e.kind == TypedExpr::Kind::kCall && is_pseudo_constant(e.args[0]) &&
                    !is_pseudo_constant(e.args[1]);
  if (!turn && !index_only) return c;
  TypedExpr shown = e;
  if (turn) {
    std::swap(shown.args[0], shown.args[1]);
    shown.name = commuted_name(e.name);
  }
  if (index_only)
    for (TypedExpr& a : shown.args)
      if (const TypedExpr* col = indexed_column(a)) a = TypedExpr(*col);
  shown.fn = nullptr;  // printed, never evaluated
  shown.negator = nullptr;
  c.expr = std::make_shared<const TypedExpr>(std::move(shown));
  return c;
}

std::vector<Clause> index_cond_form(std::vector<Clause> clauses, bool index_only) {
  for (Clause& c : clauses) c = index_cond_form(std::move(c), index_only);
  return clauses;
}

}  // namespace tp
