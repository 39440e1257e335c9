// Casts between tidepool's types as pg_cast allows them (implicit, assignment,
// explicit; by a function, binary-compatible, or through the types' text forms), the
// one cast evaluator, and the Datum helpers of an evaluation.
#include <cmath>
#include <limits>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/numeric.h"
#include "engine/core/string_types.h"
#include "engine/core/type_io.h"
#include "engine/sql/expr_ops.h"
#include "engine/sql/params.h"

namespace tp::expr {

Datum text_result(EvalState& st, std::string_view s) {
  char* p = st.arena->allocate(kVarlenaHeader + s.size());
  const auto word = uint32_t(kVarlenaHeader + s.size()) << 2;
  std::memcpy(p, &word, 4);
  std::memcpy(p + kVarlenaHeader, s.data(), s.size());
  return pointer_datum(p);
}

Datum varlena_result(EvalState& st, const std::string& varlena) {
  return st.arena->copy(varlena.data(), varlena.size());
}

Datum interval_result(EvalState& st, const Interval& v) {
  return st.arena->copy(reinterpret_cast<const char*>(&v), sizeof v);
}

double float_arg(Datum d, TypeId t) {
  switch (t) {
    case TypeId::kFloat4:
      return datum_float4(d);
    case TypeId::kFloat8:
      return datum_float8(d);
    case TypeId::kNumeric:
      return numeric_to_double(datum_pointer(d));
    default:
      return double(d);
  }
}

Category category(TypeId t) {
  switch (t) {
    case TypeId::kBool:
      return Category::kBool;
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      return Category::kString;
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
      return Category::kDatetime;
    case TypeId::kInterval:
      return Category::kTimespan;
    default:
      return Category::kNumeric;
  }
}

bool is_preferred(TypeId t) {
  return t == TypeId::kFloat8 || t == TypeId::kText || t == TypeId::kInterval ||
         t == TypeId::kBool || t == TypeId::kTimestamptz;
}

namespace {

// The numeric types in the order of their implicit casts (int2 -> int4 -> ... -> float8).
int numeric_rank(TypeId t) {
  switch (t) {
    case TypeId::kInt2:
      return 0;
    case TypeId::kInt4:
      return 1;
    case TypeId::kInt8:
      return 2;
    case TypeId::kNumeric:
      return 3;
    case TypeId::kFloat4:
      return 4;
    default:
      return 5;
  }
}

// pg_cast's entries between these types, and casts through text (CoerceViaIO).
enum class CastMethod { kNone, kFunction, kRelabel, kInOut };

CastMethod cast_method(TypeId from, TypeId to, CoercionContext ctx, CoercionContext& needs) {
  needs = CoercionContext::kImplicit;
  const Category cf = category(from), ct = category(to);
  if (cf == Category::kNumeric && ct == Category::kNumeric) {
    if (numeric_rank(from) > numeric_rank(to)) needs = CoercionContext::kAssignment;
    return CastMethod::kFunction;
  }
  if (is_string(from) && is_string(to)) {
    // varchar <-> text and text -> char(n) are binary-compatible; char(n) drops its
    // padding through a function (rtrim1).
    return from == TypeId::kBpchar ? CastMethod::kFunction : CastMethod::kRelabel;
  }
  if (cf == Category::kDatetime && ct == Category::kDatetime) {
    // Up the chain date -> timestamp -> timestamp with time zone implicitly, down it
    // on assignment.
    auto rank = [](TypeId t) { return t == TypeId::kDate ? 0 : t == TypeId::kTimestamp ? 1 : 2; };
    if (rank(from) > rank(to)) needs = CoercionContext::kAssignment;
    return CastMethod::kFunction;
  }
  if ((from == TypeId::kInt4 && to == TypeId::kBool) ||
      (from == TypeId::kBool && to == TypeId::kInt4)) {
    needs = CoercionContext::kExplicit;
    return CastMethod::kFunction;
  }
  if (is_string(to)) {
    needs = CoercionContext::kAssignment;
    return from == TypeId::kBool ? CastMethod::kFunction : CastMethod::kInOut;
  }
  if (is_string(from)) {
    needs = CoercionContext::kExplicit;
    return CastMethod::kInOut;
  }
  (void)ctx;
  return CastMethod::kNone;
}

// Whether the cast's function is stable, as it reads TimeZone or DateStyle: between a
// timestamp with time zone and a date or timestamp, and through the date and time
// types' input and output functions. eval_const_expressions folds it over no constant.
bool cast_is_stable(TypeId from, TypeId to, CastMethod m) {
  const auto timed = [](TypeId t) {
    return category(t) == Category::kDatetime || category(t) == Category::kTimespan;
  };
  if (m == CastMethod::kInOut) return timed(from) || timed(to);
  return from != to && (from == TypeId::kTimestamptz || to == TypeId::kTimestamptz) &&
         category(from) == Category::kDatetime && category(to) == Category::kDatetime;
}

int64_t checked_integer(double v, TypeId to) {
  // float8 -> int: rint, then the range (PostgreSQL's FLOAT8_FITS_IN_INT*).
  const double r = std::rint(v);
  const double lo = to == TypeId::kInt2 ? -32768.0 : to == TypeId::kInt4 ? -2147483648.0 : -0x1p63;
  if (std::isnan(r) || r < lo || r >= -lo) int_errors::out_of_range(type_info(to).len);
  return int64_t(r);
}

int64_t to_integer(Datum d, TypeId from, TypeId to) {
  int64_t v;
  if (is_integer(from)) {
    v = d;
  } else if (from == TypeId::kNumeric) {
    v = numeric_to_int64(datum_pointer(d));
  } else {
    return checked_integer(float_arg(d, from), to);
  }
  if ((to == TypeId::kInt2 && v != int16_t(v)) || (to == TypeId::kInt4 && v != int32_t(v)))
    int_errors::out_of_range(type_info(to).len);
  return v;
}

Datum to_numeric(Datum d, TypeId from, EvalState& st) {
  if (is_integer(from)) return varlena_result(st, numeric_from_int64(d));
  if (from == TypeId::kFloat4) {
    // float4_numeric reads the value printed with FLT_DIG (6) significant digits.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", 6, double(datum_float4(d)));
    const float f = datum_float4(d);
    if (std::isnan(f)) return varlena_result(st, numeric_in("NaN", kNoTypmod));
    if (std::isinf(f)) return varlena_result(st, numeric_in(f > 0 ? "Infinity" : "-Infinity", -1));
    return varlena_result(st, numeric_in(buf, kNoTypmod));
  }
  return varlena_result(st, numeric_from_double(datum_float8(d)));
}

Datum to_float(Datum d, TypeId from, TypeId to) {
  const double v = float_arg(d, from);
  if (to == TypeId::kFloat8) return float8_datum(v);
  const auto f = float(v);
  if (std::isinf(f) && !std::isinf(v)) float_errors::overflow();
  if (f == 0.0F && v != 0.0) float_errors::underflow();
  return float4_datum(f);
}

Datum cast_to_string(Datum d, const TypedExpr& self, EvalState& st) {
  const TypeId from = self.args[0].type;
  std::string_view s;
  std::string out;
  if (is_string(from)) {
    s = text_arg(d);
    if (from == TypeId::kBpchar && self.type != TypeId::kBpchar) s = bpchar_to_text(s);
  } else if (from == TypeId::kBool) {
    s = d != 0 ? "true" : "false";  // booltext, not boolout's t / f
  } else {
    out = datum_out(from, d);
    s = out;
  }
  if (self.type == TypeId::kVarchar && self.typmod >= 0)
    s = varchar_coerce(s, self.typmod, self.explicit_cast);
  if (self.type == TypeId::kBpchar && self.typmod >= 0)
    return text_result(st, bpchar_coerce(s, self.typmod, self.explicit_cast));
  return text_result(st, s);
}

Datum cast_eval(const Datum* args, const TypedExpr& self, EvalState& st) {
  const TypeId from = self.args[0].type, to = self.type;
  const Datum d = args[0];
  if (is_string(to)) return cast_to_string(d, self, st);
  if (is_string(from)) {
    const OwnedDatum v = datum_in(to, self.typmod, text_arg(d), st.statement_time);
    if (!v.is_by_ref()) return v.datum();
    return st.arena->copy(v.bytes().data(), v.bytes().size());
  }
  switch (to) {
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      if (from == TypeId::kBool) return d;
      return to_integer(d, from, to);
    case TypeId::kBool:
      return d != 0;
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return to_float(d, from, to);
    case TypeId::kNumeric: {
      const Datum n = from == TypeId::kNumeric ? d : to_numeric(d, from, st);
      if (self.typmod < 0) return n;
      return varlena_result(st, numeric_apply_typmod(datum_pointer(n), self.typmod));
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz: {
      // TimeZone is UTC: a timestamp and a timestamp with time zone hold the same number.
      const int64_t ts = from == TypeId::kDate ? date_to_timestamp(int32_t(d)) : d;
      return self.typmod < 0 ? ts : timestamp_round_to_typmod(ts, self.typmod);
    }
    case TypeId::kDate: {
      if (!timestamp_is_finite(d)) return d < 0 ? kDateNoBegin : kDateNoEnd;
      int64_t days = d / kUsecsPerDay;
      if (d % kUsecsPerDay < 0) --days;
      return int32_t(days);
    }
    case TypeId::kInterval:
      return interval_result(st, interval_apply_typmod(interval_arg(d), self.typmod));
    default:
      break;
  }
  throw Error("cannot cast type " + format_type(from, kNoTypmod) + " to " +
              format_type(to, self.typmod))
      .with_sqlstate(sqlstate::kCannotCoerce);
}

}  // namespace

bool can_coerce(TypeId from, TypeId to, CoercionContext ctx) {
  if (from == to) return true;
  CoercionContext needs;
  if (cast_method(from, to, ctx, needs) == CastMethod::kNone) return false;
  return int(needs) <= int(ctx);
}

TypedExpr make_const(TypeId t, int32_t typmod, Datum d, bool isnull) {
  TypedExpr c;
  c.kind = TypedExpr::Kind::kConst;
  c.type = t;
  c.typmod = typmod;
  c.isnull = isnull;
  if (isnull) return c;
  const TypeInfo& info = type_info(t);
  if (info.byval) {
    c.value = OwnedDatum::by_value(d);
  } else if (info.len > 0) {
    c.value = OwnedDatum::by_ref(std::string(datum_pointer(d), size_t(info.len)));
  } else {
    c.value = OwnedDatum::by_ref(make_varlena(varlena_payload(datum_pointer(d))));
  }
  return c;
}

TypedExpr make_call(std::string name, ScalarFn fn, TypeId result, std::vector<TypedExpr> args,
                    TypedExpr::Form form, int cost_units, bool immutable) {
  TypedExpr e;
  e.kind = TypedExpr::Kind::kCall;
  e.name = std::move(name);
  e.fn = fn;
  e.type = result;
  e.form = form;
  e.cost_units = cost_units;
  e.args = std::move(args);
  return immutable ? fold(std::move(e)) : e;
}

TypedExpr fold(TypedExpr e) {
  for (const TypedExpr& a : e.args)
    if (!a.is_const()) return e;
  // eval_const_expressions: an immutable function of constants is its value.
  ValueArena arena;
  EvalState st{&arena, 0};
  bool isnull = false;
  const Datum v = evaluate(e, nullptr, nullptr, st, isnull);
  return make_const(e.type, e.typmod, v, isnull);
}

namespace {

// A generic plan's $n: a value read when the plan runs, of the parameter's type.
TypedExpr extern_param(int n, TypeId type, int32_t typmod) {
  TypedExpr p;
  p.kind = TypedExpr::Kind::kParam;
  p.param = n;
  p.type = type;
  p.typmod = typmod;
  p.name = "$" + std::to_string(n);
  return p;
}

// $n coerced to `to`: the type Parse infers for it, and a generic plan's Param.
std::optional<TypedExpr> coerce_param(const TypedExpr& e, TypeId to, int32_t typmod, bool unknown) {
  if (e.param == 0) return std::nullopt;
  if (unknown || e.isnull)
    if (sql::StatementParams* params = sql::current_params()) params->infer(e.param, to);
  if (e.is_const() && sql::generic_param(e.param)) return extern_param(e.param, to, typmod);
  return std::nullopt;
}

}  // namespace

TypedExpr coerce(TypedExpr e, TypeId to, int32_t typmod, CoercionContext ctx, int position) {
  const bool unknown = is_unknown(e);
  if (std::optional<TypedExpr> p = coerce_param(e, to, typmod, unknown)) return std::move(*p);
  if (e.type == to && !unknown && (typmod < 0 || typmod == e.typmod || !type_takes_typmod(to)))
    return e;
  if (e.is_const() && e.isnull) {
    e.type = to;
    e.typmod = typmod;
    e.unknown_literal = false;
    e.param = 0;
    return e;
  }
  if (unknown) {
    // An untyped literal is read by the type's input function, here, without the
    // typmod but for interval's (whose input rules need it); the length coercion
    // follows as the context has it ('abcdef'::varchar(3) cuts, INSERT fails).
    const std::string text(text_arg(e.value.datum()));
    const int32_t input_typmod = to == TypeId::kInterval ? typmod : kNoTypmod;
    OwnedDatum v;
    try {
      v = datum_in(to, input_typmod, text, timestamp_now());
    } catch (Error& err) {
      throw err.at_position(e.literal_position >= 0 ? e.literal_position : position);
    }
    TypedExpr read = make_const(to, input_typmod, v.datum(), false);
    if (input_typmod == typmod) return read;
    return coerce(std::move(read), to, typmod, ctx, position);
  }
  CoercionContext needs;
  const CastMethod m = e.type == to ? CastMethod::kFunction : cast_method(e.type, to, ctx, needs);
  if (m == CastMethod::kNone || (e.type != to && int(needs) > int(ctx))) {
    const char* what = ctx == CoercionContext::kExplicit ? "cannot cast type " : "";
    if (ctx == CoercionContext::kExplicit)
      throw Error(what + format_type(e.type, kNoTypmod) + " to " + format_type(to, typmod))
          .at_position(position)
          .with_sqlstate(sqlstate::kCannotCoerce);
    throw Error("argument of type " + format_type(e.type, kNoTypmod) + " cannot be used as type " +
                format_type(to, typmod))
        .at_position(position)
        .with_sqlstate(sqlstate::kDatatypeMismatch);
  }
  const bool relabel = m == CastMethod::kRelabel && (typmod < 0 || !type_takes_typmod(to));
  if (relabel) {
    // Stacked relabels keep only the top one, and one to its argument's own type is
    // none (eval_const_expressions, applyRelabelType): `t::varchar = v` compares t.
    while (e.kind == TypedExpr::Kind::kCall && e.form == TypedExpr::Form::kRelabel) {
      TypedExpr inner = std::move(e.args[0]);
      e = std::move(inner);
    }
    if (e.type == to && e.typmod == typmod) return e;
  }
  // A cast to another type with a modifier is two calls in PostgreSQL, the conversion
  // and the length coercion (one node printed as one cast): `(k)::numeric(10,2)`.
  const bool converts = e.type != to && m != CastMethod::kRelabel;
  const bool length_coercion = typmod >= 0 && type_takes_typmod(to);
  const int cost = relabel                       ? 0
                   : m == CastMethod::kInOut     ? 2 + (length_coercion ? 1 : 0)
                   : converts && length_coercion ? 2
                                                 : 1;
  std::vector<TypedExpr> args;
  args.push_back(std::move(e));
  TypedExpr c;
  c.kind = TypedExpr::Kind::kCall;
  c.fn = cast_eval;
  c.type = to;
  c.typmod = typmod;
  c.form = relabel ? TypedExpr::Form::kRelabel : TypedExpr::Form::kCast;
  c.cost_units = cost;
  c.explicit_cast = ctx == CoercionContext::kExplicit;
  c.args = std::move(args);
  if (!c.args[0].is_const() || cast_is_stable(c.args[0].type, to, m)) return c;
  // Folded as the planner folds it: an error here (out of range, too long) has no
  // position, unlike an untyped literal's input error above.
  ValueArena arena;
  EvalState st{&arena, 0};
  bool isnull = false;
  const Datum v = evaluate(c, nullptr, nullptr, st, isnull);
  return make_const(to, typmod, v, isnull);
}

TypedExpr coerce_implicitly(TypedExpr e, TypeId to, int position) {
  return coerce(std::move(e), to, kNoTypmod, CoercionContext::kImplicit, position);
}

}  // namespace tp::expr
