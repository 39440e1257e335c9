// Operators as PostgreSQL 15 resolves and runs them: arithmetic over the numeric types
// (integers across widths without casts, numeric when a numeric is involved, float8
// when a float is), comparisons of any two compatible types, ||, LIKE / ILIKE, and the
// date, timestamp and interval arithmetic.
#include "engine/core/clause.h"
#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/numeric.h"
#include "engine/core/string_types.h"
#include "engine/core/type_io.h"
#include "engine/sql/expr_ops.h"

namespace tp::expr {
namespace {

// ---- arithmetic ----
template <typename T>
Datum int_arith(char op, Datum a, Datum b) {
  const T x = T(a), y = T(b);
  switch (op) {
    case '+':
      return int_add(x, y);
    case '-':
      return int_sub(x, y);
    case '*':
      return int_mul(x, y);
    case '/':
      return int_div(x, y);
    default:
      return int_mod(x, y);
  }
}

template <char Op>
Datum arith_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  switch (self.type) {
    case TypeId::kInt2:
      return int_arith<int16_t>(Op, a[0], a[1]);
    case TypeId::kInt4:
      return int_arith<int32_t>(Op, a[0], a[1]);
    case TypeId::kInt8:
      return int_arith<int64_t>(Op, a[0], a[1]);
    case TypeId::kFloat4: {
      const float x = datum_float4(a[0]), y = datum_float4(a[1]);
      return float4_datum(Op == '+'   ? float_add(x, y)
                          : Op == '-' ? float_sub(x, y)
                          : Op == '*' ? float_mul(x, y)
                                      : float_div(x, y));
    }
    case TypeId::kFloat8: {
      const double x = float_arg(a[0], self.args[0].type), y = float_arg(a[1], self.args[1].type);
      return float8_datum(Op == '+'   ? float_add(x, y)
                          : Op == '-' ? float_sub(x, y)
                          : Op == '*' ? float_mul(x, y)
                                      : float_div(x, y));
    }
    default: {
      const char *x = datum_pointer(a[0]), *y = datum_pointer(a[1]);
      if constexpr (Op == '+' || Op == '-' || Op == '*') {
        // Most values: no digit arithmetic, the result written in place.
        char* out = st.arena->allocate(kScaledNumericMaxBytes);
        if (numeric_scaled_arith(Op, x, y, out) != 0) return pointer_datum(out);
      }
      return varlena_result(st, Op == '+'   ? numeric_add(x, y)
                                : Op == '-' ? numeric_sub(x, y)
                                : Op == '*' ? numeric_mul(x, y)
                                : Op == '/' ? numeric_div(x, y)
                                            : numeric_mod(x, y));
    }
  }
}

Datum negate_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  switch (self.type) {
    case TypeId::kInt2:
      return int_neg(int16_t(a[0]));
    case TypeId::kInt4:
      return int_neg(int32_t(a[0]));
    case TypeId::kInt8:
      return int_neg(int64_t(a[0]));
    case TypeId::kFloat4:
      return float4_datum(-datum_float4(a[0]));
    case TypeId::kFloat8:
      return float8_datum(-datum_float8(a[0]));
    case TypeId::kInterval:
      return interval_result(st, interval_um(interval_arg(a[0])));
    default:
      return varlena_result(st, numeric_neg(datum_pointer(a[0])));
  }
}

// ---- comparisons ----
int compare_as(const TypedExpr& self, Datum a, Datum b) {
  const TypeId lt = self.args[0].type, rt = self.args[1].type;
  switch (self.compare_as) {
    case TypeId::kInt8:  // integers of any width: their Datums are sign-extended
      return a < b ? -1 : a > b ? 1 : 0;
    case TypeId::kFloat8:
      return float_cmp(float_arg(a, lt), float_arg(b, rt));
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz: {
      const int64_t x = lt == TypeId::kDate ? date_to_timestamp(int32_t(a)) : a;
      const int64_t y = rt == TypeId::kDate ? date_to_timestamp(int32_t(b)) : b;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default:
      return compare_datums(self.compare_as, a, b);
  }
}

template <CmpOp Op>
Datum compare_eval(const Datum* a, const TypedExpr& self, EvalState&) {
  const int c = compare_as(self, a[0], a[1]);
  return cmp_holds(Op, c, 0);
}

// ---- strings ----
Datum concat_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  const std::string_view x = text_arg(a[0]), y = text_arg(a[1]);
  char* p = st.arena->allocate(kVarlenaHeader + x.size() + y.size());
  const auto word = uint32_t(kVarlenaHeader + x.size() + y.size()) << 2;
  std::memcpy(p, &word, 4);
  std::memcpy(p + kVarlenaHeader, x.data(), x.size());
  std::memcpy(p + kVarlenaHeader + x.size(), y.data(), y.size());
  return pointer_datum(p);
}

template <bool Insensitive, bool Negated>
Datum like_eval(const Datum* a, const TypedExpr&, EvalState&) {
  const bool m = Insensitive ? text_ilike(text_arg(a[0]), text_arg(a[1]))
                             : text_like(text_arg(a[0]), text_arg(a[1]));
  return m != Negated;
}

// ---- dates and times ----
Datum date_pl_int(const Datum* a, const TypedExpr& self, EvalState&) {
  // date + int, int + date
  return self.args[0].type == TypeId::kDate ? date_pl_days(int32_t(a[0]), int32_t(a[1]))
                                            : date_pl_days(int32_t(a[1]), int32_t(a[0]));
}
Datum date_mi_int(const Datum* a, const TypedExpr&, EvalState&) {
  return date_mi_days(int32_t(a[0]), int32_t(a[1]));
}
Datum date_mi_date(const Datum* a, const TypedExpr&, EvalState&) {
  return date_mi(int32_t(a[0]), int32_t(a[1]));
}
Datum ts_pl_interval(const Datum* a, const TypedExpr& self, EvalState&) {
  const bool left = self.args[0].type != TypeId::kInterval;
  const Datum t = left ? a[0] : a[1];
  const Interval iv = interval_arg(left ? a[1] : a[0]);
  const TypeId tt = left ? self.args[0].type : self.args[1].type;
  return tt == TypeId::kDate ? date_pl_interval(int32_t(t), iv) : timestamp_pl_interval(t, iv);
}
Datum ts_mi_interval(const Datum* a, const TypedExpr& self, EvalState&) {
  const Interval iv = interval_arg(a[1]);
  return self.args[0].type == TypeId::kDate ? date_mi_interval(int32_t(a[0]), iv)
                                            : timestamp_mi_interval(a[0], iv);
}
Datum ts_mi_ts(const Datum* a, const TypedExpr&, EvalState& st) {
  return interval_result(st, timestamp_mi(a[0], a[1]));
}
Datum interval_arith(const Datum* a, const TypedExpr& self, EvalState& st) {
  const TypeId lt = self.args[0].type, rt = self.args[1].type;
  if (lt == TypeId::kInterval && rt == TypeId::kInterval)
    return interval_result(st, self.name == "+"
                                   ? interval_pl(interval_arg(a[0]), interval_arg(a[1]))
                                   : interval_mi(interval_arg(a[0]), interval_arg(a[1])));
  if (self.name == "/")
    return interval_result(st, interval_div(interval_arg(a[0]), datum_float8(a[1])));
  return lt == TypeId::kInterval
             ? interval_result(st, interval_mul(interval_arg(a[0]), datum_float8(a[1])))
             : interval_result(st, interval_mul(interval_arg(a[1]), datum_float8(a[0])));
}

ScalarFn arith_fn(char op) {
  switch (op) {
    case '+':
      return arith_eval<'+'>;
    case '-':
      return arith_eval<'-'>;
    case '*':
      return arith_eval<'*'>;
    case '/':
      return arith_eval<'/'>;
    default:
      return arith_eval<'%'>;
  }
}

TypeId wider_integer(TypeId a, TypeId b) {
  if (a == TypeId::kInt8 || b == TypeId::kInt8) return TypeId::kInt8;
  if (a == TypeId::kInt4 || b == TypeId::kInt4) return TypeId::kInt4;
  return TypeId::kInt2;
}

TypedExpr infix(const std::string& op, ScalarFn fn, TypeId result, TypedExpr l, TypedExpr r,
                bool immutable = true) {
  std::vector<TypedExpr> args;
  args.push_back(std::move(l));
  args.push_back(std::move(r));
  return make_call(op, fn, result, std::move(args), TypedExpr::Form::kInfix, 1, immutable);
}

std::string negated_comparison(const std::string& op) {
  return op == "="    ? "<>"
         : op == "<>" ? "="
         : op == "<"  ? ">="
         : op == ">=" ? "<"
         : op == ">"  ? "<="
                      : ">";
}

bool is_comparison(const std::string& op) {
  return op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

TypedExpr comparison(const std::string& op, TypedExpr l, TypedExpr r, TypeId as) {
  TypedExpr e;
  e.kind = TypedExpr::Kind::kCall;
  e.name = op;
  e.fn = compare_fn(op);
  e.negator = compare_fn(negated_comparison(op));
  e.type = TypeId::kBool;
  e.form = TypedExpr::Form::kInfix;
  e.cost_units = 1;
  e.compare_as = as;
  e.args.push_back(std::move(l));
  e.args.push_back(std::move(r));
  return fold(std::move(e));
}

// simplify_boolean_equality: `x = true` and `x <> false` are x, `x = false` and
// `x <> true` are NOT x (pushed down); other comparisons of booleans stay operators.
TypedExpr boolean_comparison(const std::string& op, TypedExpr l, TypedExpr r) {
  const bool eq = op == "=";
  if ((eq || op == "<>") && l.is_const() != r.is_const()) {
    TypedExpr& constant = l.is_const() ? l : r;
    TypedExpr& other = l.is_const() ? r : l;
    if (!constant.isnull) {
      const bool keep = (constant.value.datum() != 0) == eq;
      return keep ? std::move(other) : negate_expr(std::move(other));
    }
  }
  return comparison(op, std::move(l), std::move(r), TypeId::kBool);
}

// Numbers: integers across widths as they are; a numeric operand makes the others
// numeric; a float makes the non-floats float8 (float4 with float8 has its own
// cross-type operators).
TypedExpr numeric_operator(const std::string& op, TypedExpr l, TypedExpr r, int position) {
  const TypeId lt = l.type, rt = r.type;
  TypeId as;
  if (is_integer(lt) && is_integer(rt)) {
    as = wider_integer(lt, rt);
    // + - * / have operators across integer widths (int24pl, ...); % has not: the
    // narrower side is cast (`(sm)::integer % 7`).
    if (op == "%") {
      l = coerce_implicitly(std::move(l), as, position);
      r = coerce_implicitly(std::move(r), as, position);
    }
  } else if (is_float(lt) || is_float(rt)) {
    if (op == "%") no_operator(op, &l, r, position);
    as = lt == TypeId::kFloat4 && rt == TypeId::kFloat4 ? TypeId::kFloat4 : TypeId::kFloat8;
    if (!is_float(lt)) l = coerce_implicitly(std::move(l), TypeId::kFloat8, position);
    if (!is_float(rt)) r = coerce_implicitly(std::move(r), TypeId::kFloat8, position);
  } else {
    as = TypeId::kNumeric;
    l = coerce_implicitly(std::move(l), TypeId::kNumeric, position);
    r = coerce_implicitly(std::move(r), TypeId::kNumeric, position);
  }
  if (!is_comparison(op)) {
    if (op.size() != 1 || std::string_view("+-*/%").find(op[0]) == std::string_view::npos)
      no_operator(op, &l, r, position);
    TypedExpr e = infix(op, arith_fn(op[0]), as, std::move(l), std::move(r));
    if (as == TypeId::kNumeric && op != "/" && op != "%") e.numeric_op = op[0];
    return e;
  }
  const TypeId cmp = as == TypeId::kNumeric ? as : is_integer(as) ? TypeId::kInt8 : TypeId::kFloat8;
  return comparison(op, std::move(l), std::move(r), cmp);
}

TypedExpr string_comparison(const std::string& op, TypedExpr l, TypedExpr r, int position) {
  const bool bpchar = (l.type == TypeId::kBpchar || r.type == TypeId::kBpchar) &&
                      l.type != TypeId::kText && r.type != TypeId::kText;
  const TypeId as = bpchar ? TypeId::kBpchar : TypeId::kText;
  l = coerce_implicitly(std::move(l), as, position);
  r = coerce_implicitly(std::move(r), as, position);
  return comparison(op, std::move(l), std::move(r), as);
}

TypedExpr like(const std::string& op, TypedExpr l, TypedExpr r, int position) {
  // bpcharlike takes char(n) with its padding; varchar is read as text.
  if (is_unknown(l) || !is_string(l.type) || l.type == TypeId::kVarchar) {
    if (!is_unknown(l) && !is_string(l.type)) no_operator(op, &l, r, position);
    l = coerce_implicitly(std::move(l), TypeId::kText, position);
  }
  if (!is_unknown(r) && !is_string(r.type)) no_operator(op, &l, r, position);
  r = coerce_implicitly(std::move(r), TypeId::kText, position);
  const bool insensitive = op == "~~*" || op == "!~~*", negated = op[0] == '!';
  const ScalarFn plain = insensitive ? like_eval<true, false> : like_eval<false, false>;
  const ScalarFn inverse = insensitive ? like_eval<true, true> : like_eval<false, true>;
  TypedExpr e;
  e.kind = TypedExpr::Kind::kCall;
  e.name = op;
  e.fn = negated ? inverse : plain;
  e.negator = negated ? plain : inverse;
  e.type = TypeId::kBool;
  e.form = TypedExpr::Form::kInfix;
  e.cost_units = 1;
  e.args.push_back(std::move(l));
  e.args.push_back(std::move(r));
  return fold(std::move(e));
}

TypedExpr concat(TypedExpr l, TypedExpr r, int position) {
  if (!is_unknown(l) && !is_unknown(r) && !is_string(l.type) && !is_string(r.type))
    no_operator("||", &l, r, position);
  // anytextcat / textanycat, inlined: the other operand through its output function.
  l = coerce(std::move(l), TypeId::kText, kNoTypmod, CoercionContext::kAssignment, position);
  r = coerce(std::move(r), TypeId::kText, kNoTypmod, CoercionContext::kAssignment, position);
  return infix("||", concat_eval, TypeId::kText, std::move(l), std::move(r));
}

bool is_datetime(TypeId t) {
  return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
}

// The wider of two of date, timestamp and timestamp with time zone.
TypeId wider_datetime(TypeId a, TypeId b) {
  if (a == TypeId::kTimestamptz || b == TypeId::kTimestamptz) return TypeId::kTimestamptz;
  return a == TypeId::kTimestamp || b == TypeId::kTimestamp ? TypeId::kTimestamp : TypeId::kDate;
}

TypedExpr datetime_operator(const std::string& op, TypedExpr l, TypedExpr r, int position) {
  const TypeId lt = l.type, rt = r.type;
  const bool li = lt == TypeId::kInterval, ri = rt == TypeId::kInterval;
  // date + interval is a timestamp; timestamp with time zone +- interval one too.
  auto moved_type = [](TypeId t) {
    return t == TypeId::kTimestamptz ? TypeId::kTimestamptz : TypeId::kTimestamp;
  };
  if (is_comparison(op)) {
    // datetime_ops compares any two of them without a cast.
    if (is_datetime(lt) && is_datetime(rt))
      return comparison(op, std::move(l), std::move(r), wider_datetime(lt, rt));
    if (li && ri) return comparison(op, std::move(l), std::move(r), TypeId::kInterval);
    no_operator(op, &l, r, position);
  }
  if (op == "+" || op == "-") {
    if (lt == TypeId::kDate && (rt == TypeId::kInt2 || rt == TypeId::kInt4)) {
      r = coerce_implicitly(std::move(r), TypeId::kInt4, position);
      return infix(op, op == "+" ? date_pl_int : date_mi_int, TypeId::kDate, std::move(l),
                   std::move(r));
    }
    if (op == "+" && rt == TypeId::kDate && (lt == TypeId::kInt2 || lt == TypeId::kInt4)) {
      l = coerce_implicitly(std::move(l), TypeId::kInt4, position);
      return infix(op, date_pl_int, TypeId::kDate, std::move(l), std::move(r));
    }
    // timestamptz_pl_interval and timestamptz_mi_interval are stable (they read
    // TimeZone): not folded over constants.
    if (is_datetime(lt) && ri)
      return infix(op, op == "+" ? ts_pl_interval : ts_mi_interval, moved_type(lt), std::move(l),
                   std::move(r), lt != TypeId::kTimestamptz);
    if (op == "+" && li && is_datetime(rt))
      return infix(op, ts_pl_interval, moved_type(rt), std::move(l), std::move(r),
                   rt != TypeId::kTimestamptz);
    if (li && ri) return infix(op, interval_arith, TypeId::kInterval, std::move(l), std::move(r));
    if (op == "-" && lt == TypeId::kDate && rt == TypeId::kDate)
      return infix(op, date_mi_date, TypeId::kInt4, std::move(l), std::move(r));
    if (op == "-" && is_datetime(lt) && is_datetime(rt)) {
      const TypeId as = wider_datetime(wider_datetime(lt, rt), TypeId::kTimestamp);
      l = coerce_implicitly(std::move(l), as, position);
      r = coerce_implicitly(std::move(r), as, position);
      return infix(op, ts_mi_ts, TypeId::kInterval, std::move(l), std::move(r));
    }
  }
  if ((op == "*" && (li || ri)) || (op == "/" && li)) {
    TypedExpr& number = li ? r : l;
    if (category(number.type) == Category::kNumeric && !(li && ri)) {
      number = coerce_implicitly(std::move(number), TypeId::kFloat8, position);
      return infix(op, interval_arith, TypeId::kInterval, std::move(l), std::move(r));
    }
  }
  no_operator(op, &l, r, position);
}

}  // namespace

ScalarFn compare_fn(const std::string& op) {
  if (op == "=") return compare_eval<CmpOp::kEq>;
  if (op == "<>") return compare_eval<CmpOp::kNe>;
  if (op == "<") return compare_eval<CmpOp::kLt>;
  if (op == "<=") return compare_eval<CmpOp::kLe>;
  if (op == ">") return compare_eval<CmpOp::kGt>;
  return compare_eval<CmpOp::kGe>;
}

void no_operator(const std::string& op, const TypedExpr* l, const TypedExpr& r, int position) {
  auto name = [](const TypedExpr& e) {
    return is_unknown(e) ? std::string("unknown") : format_type(e.type, kNoTypmod);
  };
  throw Error("operator does not exist: " + (l ? name(*l) + " " : "") + op + " " + name(r), "",
              "No operator matches the given name and argument types. You might need to add "
              "explicit type casts.")
      .at_position(position)
      .with_sqlstate(sqlstate::kUndefinedFunction);
}

TypedExpr resolve_operator(const std::string& op, TypedExpr l, TypedExpr r, int position) {
  if (op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*")
    return like(op, std::move(l), std::move(r), position);
  if (op == "||") return concat(std::move(l), std::move(r), position);
  const bool lu = is_unknown(l), ru = is_unknown(r);
  if (lu && ru) {
    if (!is_comparison(op))
      throw Error("operator is not unique: unknown " + op + " unknown", "",
                  "Could not choose a best candidate operator. You might need to add explicit "
                  "type casts.")
          .at_position(position)
          .with_sqlstate(sqlstate::kAmbiguousFunction);
    return string_comparison(op, std::move(l), std::move(r), position);
  }
  if (lu || ru) {
    // An untyped literal takes the other operand's type (text for varchar, which has no
    // operators of its own; interval beside a timestamp's + and date's ambiguity).
    TypedExpr& known = lu ? r : l;
    TypedExpr& lit = lu ? l : r;
    TypeId as = known.type == TypeId::kVarchar ? TypeId::kText : known.type;
    if (known.type == TypeId::kDate && op == "+")
      throw Error("operator is not unique: date + unknown", "",
                  "Could not choose a best candidate operator. You might need to add explicit "
                  "type casts.")
          .at_position(position)
          .with_sqlstate(sqlstate::kAmbiguousFunction);
    if ((known.type == TypeId::kTimestamp || known.type == TypeId::kTimestamptz) && op == "+")
      as = TypeId::kInterval;
    if (known.type == TypeId::kInterval && (op == "*" || op == "/")) as = TypeId::kFloat8;
    lit = coerce_implicitly(std::move(lit), as, position);
  }
  const Category lc = category(l.type), rc = category(r.type);
  if (lc == Category::kNumeric && rc == Category::kNumeric)
    return numeric_operator(op, std::move(l), std::move(r), position);
  if (lc == Category::kString && rc == Category::kString && is_comparison(op))
    return string_comparison(op, std::move(l), std::move(r), position);
  if (lc == Category::kBool && rc == Category::kBool && is_comparison(op))
    return boolean_comparison(op, std::move(l), std::move(r));
  if (lc == Category::kDatetime || lc == Category::kTimespan || rc == Category::kDatetime ||
      rc == Category::kTimespan)
    return datetime_operator(op, std::move(l), std::move(r), position);
  no_operator(op, &l, r, position);
}

TypedExpr resolve_prefix(const std::string& op, TypedExpr a, int position) {
  if (is_unknown(a)) a = coerce_implicitly(std::move(a), TypeId::kFloat8, position);
  const bool ok = category(a.type) == Category::kNumeric || a.type == TypeId::kInterval;
  if (!ok) no_operator(op, nullptr, a, position);
  if (op == "+") return a;
  const TypeId t = a.type;
  std::vector<TypedExpr> args;
  args.push_back(std::move(a));
  return make_call("-", negate_eval, t, std::move(args), TypedExpr::Form::kPrefix);
}

}  // namespace tp::expr
