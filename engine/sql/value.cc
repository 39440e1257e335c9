#include "engine/sql/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/stack_depth.h"
#include "engine/sql/params.h"

namespace tp {
namespace {

constexpr int64_t kInt4Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt4Max = std::numeric_limits<int32_t>::max();

Value integer_result(ValueType t, __int128 v) {
  if (t == ValueType::kInt4) {
    if (v < kInt4Min || v > kInt4Max)
      throw Error("integer out of range").with_sqlstate(sqlstate::kNumericValueOutOfRange);
    return Value::int4(int64_t(v));
  }
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
    throw Error("bigint out of range").with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return Value::int8(int64_t(v));
}

bool is_integer(ValueType t) {
  return t == ValueType::kInt4 || t == ValueType::kInt8;
}

double as_double(const Value& v) {
  return is_integer(v.type) ? double(v.i) : v.d;
}

// A numeric literal's text split into digits and a power of ten:
// value = sign * digits * 10^shift. A negative shift is also the scale
// PostgreSQL's numeric input keeps (1.50 -> 2, 1e3 -> 0, 1.5e-2 -> 3).
struct Decimal {
  bool negative = false;
  std::string digits;  // without leading zeros; "" for zero
  int shift = 0;
};

Decimal parse_decimal(std::string_view t) {
  Decimal d;
  size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) d.negative = t[i++] == '-';
  int frac = 0;
  bool after_point = false;
  for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
    if (t[i] == '.') {
      after_point = true;
      continue;
    }
    if (!(d.digits.empty() && t[i] == '0')) d.digits += t[i];
    if (after_point) ++frac;
  }
  int exponent = 0;
  if (i < t.size()) exponent = std::stoi(std::string(t.substr(i + 1)));  // the parser bounds it
  d.shift = exponent - frac;
  return d;
}

// The numeric's integer value rounded half away from zero (numeric's int8
// cast), saturated far beyond int64 so the caller's range check still fails.
__int128 decimal_to_integer(const Decimal& d) {
  constexpr __int128 kSaturated = __int128(1) << 100;
  size_t dropped = d.shift < 0 ? size_t(-d.shift) : 0;  // fraction digits
  if (dropped > d.digits.size()) return 0;              // below 0.1: rounds to 0
  size_t keep = d.digits.size() - dropped;
  __int128 v = 0;
  for (size_t k = 0; k < keep && v < kSaturated; ++k) v = v * 10 + (d.digits[k] - '0');
  for (int k = 0; k < d.shift && v < kSaturated && v != 0; ++k) v *= 10;
  if (dropped > 0 && d.digits[keep] >= '5') ++v;
  if (v > kSaturated) v = kSaturated;
  return d.negative ? -v : v;
}

// The text PostgreSQL prints for a numeric literal: exact, with its input scale.
std::string decimal_text(const Decimal& d) {
  std::string digits = d.digits.empty() ? "0" : d.digits;
  if (d.shift > 0 && !d.digits.empty()) digits.append(size_t(d.shift), '0');
  if (d.shift < 0) {
    // -shift fraction digits, which is the input's scale: 1.50 keeps its zero.
    size_t frac = size_t(-d.shift);
    if (digits.size() <= frac) digits.insert(0, frac + 1 - digits.size(), '0');
    digits.insert(digits.size() - frac, ".");
  }
  bool zero = d.digits.empty();
  return (d.negative && !zero ? "-" : "") + digits;
}

// A fraction as an integer for int4/int8: numeric rounds half away from zero
// (exactly, from its literal text when it has one); float8 uses rint (half to
// even). Out of range is PostgreSQL's error for the target type.
Value fraction_to_integer(const Value& v, ValueType t) {
  const char* range_error = t == ValueType::kInt4 ? "integer out of range" : "bigint out of range";
  if (v.type == ValueType::kNumeric && !v.s.empty())
    return integer_result(t, decimal_to_integer(parse_decimal(v.s)));
  double r = v.type == ValueType::kNumeric ? std::round(v.d) : std::rint(v.d);
  // 2^63 is exactly representable; every double below it converts without overflow.
  if (!(r >= -0x1p63 && r < 0x1p63))
    throw Error(range_error).with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return integer_result(t, __int128(r));
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  if (a.type == ValueType::kNull || b.type == ValueType::kNull) return {};
  if (!a.is_numeric_type() || !b.is_numeric_type())
    throw Error(std::string("operator does not exist: ") + value_type_name(a.type) + " " + op +
                " " + value_type_name(b.type))
        .with_sqlstate(sqlstate::kUndefinedFunction);
  if (is_integer(a.type) && is_integer(b.type)) {
    ValueType t = (a.type == ValueType::kInt8 || b.type == ValueType::kInt8) ? ValueType::kInt8
                                                                             : ValueType::kInt4;
    __int128 x = a.i, y = b.i;
    if (op == "+") return integer_result(t, x + y);
    if (op == "-") return integer_result(t, x - y);
    if (op == "*") return integer_result(t, x * y);
    if (y == 0) throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
    if (op == "/") return integer_result(t, x / y);
    return integer_result(t, x % y);
  }
  ValueType t = (a.type == ValueType::kFloat8 || b.type == ValueType::kFloat8)
                    ? ValueType::kFloat8
                    : ValueType::kNumeric;
  double x = as_double(a), y = as_double(b), r;
  if (op == "+")
    r = x + y;
  else if (op == "-")
    r = x - y;
  else if (op == "*")
    r = x * y;
  else {
    if (y == 0) throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
    r = op == "/" ? x / y : std::fmod(x, y);
  }
  if (t == ValueType::kFloat8 && std::isinf(r))
    throw Error("value out of range: overflow").with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return t == ValueType::kFloat8 ? Value::float8(r) : Value::numeric(r);
}

int compare_values(const Value& a, const Value& b) {
  if (a.type == ValueType::kText && b.type == ValueType::kText) return a.s.compare(b.s);
  if (!a.is_numeric_type() || !b.is_numeric_type()) {
    if (a.type == ValueType::kBool && b.type == ValueType::kBool) return int(a.i) - int(b.i);
    throw Error(std::string("operator does not exist: ") + value_type_name(a.type) + " = " +
                value_type_name(b.type))
        .with_sqlstate(sqlstate::kUndefinedFunction);
  }
  if (is_integer(a.type) && is_integer(b.type)) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  double x = as_double(a), y = as_double(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

bool truth(const Value& v, const char* where) {
  if (v.type == ValueType::kNull) return false;
  if (v.type != ValueType::kBool)
    throw Error(std::string("argument of ") + where + " must be type boolean, not type " +
                value_type_name(v.type))
        .with_sqlstate(sqlstate::kDatatypeMismatch);
  return v.i != 0;
}

// int4in / int8in: optional blanks and sign around decimal digits.
int64_t parse_integer_text(const std::string& text, ValueType t) {
  const char* type = t == ValueType::kInt4 ? "integer" : "bigint";
  auto blank = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  size_t i = 0, n = text.size();
  while (i < n && blank(text[i])) ++i;
  bool negative = i < n && text[i] == '-';
  if (i < n && (text[i] == '-' || text[i] == '+')) ++i;
  size_t first = i;
  __int128 v = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i)
    if (v <= (__int128(1) << 64)) v = v * 10 + (text[i] - '0');
  size_t last = i;
  while (i < n && blank(text[i])) ++i;
  if (first == last || i != n)
    throw Error(std::string("invalid input syntax for type ") + type + ": \"" + text + "\"")
        .with_sqlstate(sqlstate::kInvalidTextRepresentation);
  if (negative) v = -v;
  int64_t lo = t == ValueType::kInt4 ? kInt4Min : std::numeric_limits<int64_t>::min();
  int64_t hi = t == ValueType::kInt4 ? kInt4Max : std::numeric_limits<int64_t>::max();
  if (v < lo || v > hi)
    throw Error("value \"" + text + "\" is out of range for type " + type)
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return int64_t(v);
}

}  // namespace

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::kNull:
      return "unknown";
    case ValueType::kBool:
      return "boolean";
    case ValueType::kInt4:
      return "integer";
    case ValueType::kInt8:
      return "bigint";
    case ValueType::kNumeric:
      return "numeric";
    case ValueType::kFloat8:
      return "double precision";
    case ValueType::kText:
      return "text";
  }
  return "?";
}

std::string Value::to_string() const {
  char buf[64];
  switch (type) {
    case ValueType::kNull:
      return "";
    case ValueType::kBool:
      return i ? "t" : "f";
    case ValueType::kInt4:
    case ValueType::kInt8:
      return std::to_string(i);
    case ValueType::kFloat8:
      // float8out: the shortest text that reads back to the same double, in PostgreSQL's
      // form (100000, not 1e+05).
      return float8_out(d);
    case ValueType::kNumeric:
      if (!s.empty()) return decimal_text(parse_decimal(s));  // a literal: exact
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      std::snprintf(buf, sizeof buf, "%.15g", d);
      return buf;
    case ValueType::kText:
      return s;
  }
  return {};
}

IntegerBound integer_bound(const Value& v) {
  constexpr __int128 kSaturated = __int128(1) << 100;
  IntegerBound b;
  __int128 whole = 0;
  if (v.type == ValueType::kNumeric && !v.s.empty()) {
    Decimal d = parse_decimal(v.s);
    size_t dropped = d.shift < 0 ? size_t(-d.shift) : 0;
    size_t keep = dropped >= d.digits.size() ? 0 : d.digits.size() - dropped;
    for (size_t k = 0; k < keep && whole < kSaturated; ++k)
      whole = whole * 10 + (d.digits[k] - '0');
    for (int k = 0; k < d.shift && whole < kSaturated && whole != 0; ++k) whole *= 10;
    b.fractional = d.digits.find_first_not_of('0', keep) != std::string::npos;
    if (d.negative) whole = -whole - (b.fractional ? 1 : 0);
  } else {
    double x = is_integer(v.type) ? double(v.i) : v.d;
    double f = std::floor(x);
    if (std::isnan(x) || f >= 0x1p63) return {0, false, 1};
    if (f < -0x1p63) return {0, false, -1};
    b.fractional = x != f;
    whole = __int128(f);
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (whole > kMax || (whole == kMax && b.fractional)) return {0, false, 1};
  if (whole < std::numeric_limits<int64_t>::min()) return {0, false, -1};
  b.floor = int64_t(whole);
  return b;
}

int64_t regtype_of(const Value& v) {
  if (v.type == ValueType::kInt4 || v.type == ValueType::kInt8) return v.i;
  std::string name = v.type == ValueType::kText ? v.s : v.to_string();
  if (!name.empty() && name.size() <= 10 &&
      name.find_first_not_of("0123456789") == std::string::npos)
    return std::stoll(name);
  if (name.rfind("pg_catalog.", 0) == 0) name.erase(0, 11);
  if (std::optional<TypeId> t = type_of_name(name)) return int64_t(*t);
  throw Error("type \"" + (v.type == ValueType::kText ? v.s : v.to_string()) + "\" does not exist")
      .with_sqlstate(sqlstate::kUndefinedObject);
}

namespace {

// ::regtype's output: the type's name, or the OID's number when no type has it.
std::string regtype_text(const Value& v) {
  const int64_t oid = regtype_of(v);
  std::optional<TypeId> t;
  if (oid >= 0 && oid <= UINT32_MAX) t = type_of_oid(uint32_t(oid));
  return t ? std::string(type_info(*t).name) : std::to_string(oid);
}

}  // namespace

Value cast_value(const Value& v, const std::string& type) {
  if (v.type == ValueType::kNull) return v;
  if (type == "int" || type == "bigint") {
    ValueType t = type == "int" ? ValueType::kInt4 : ValueType::kInt8;
    if (is_integer(v.type)) return integer_result(t, v.i);
    if (v.type == ValueType::kNumeric || v.type == ValueType::kFloat8)
      return fraction_to_integer(v, t);
    if (v.type == ValueType::kText) return Value{t, parse_integer_text(v.s, t), 0, {}};
  }
  if (type == "numeric" && v.type == ValueType::kNumeric) return v;  // keeps a literal's text
  if (type == "float8" || type == "numeric") {
    double d;
    if (v.type == ValueType::kText) {
      char* end = nullptr;
      d = std::strtod(v.s.c_str(), &end);
      if (end == v.s.c_str() || *end != '\0')
        throw Error("invalid input syntax for type " +
                    std::string(type == "float8" ? "double precision" : "numeric") + ": \"" + v.s +
                    "\"")
            .with_sqlstate(sqlstate::kInvalidTextRepresentation);
    } else if (v.type == ValueType::kBool) {
      throw Error(std::string("cannot cast type boolean to ") +
                  (type == "float8" ? "double precision" : "numeric"))
          .with_sqlstate(sqlstate::kCannotCoerce);
    } else {
      d = as_double(v);
    }
    return type == "float8" ? Value::float8(d) : Value::numeric(d);
  }
  if (type == "text" || type == "regclass")
    return Value::text(v.type == ValueType::kText ? v.s : v.to_string());
  if (type == "regtype") return Value::text(regtype_text(v));
  throw Error("cannot cast type " + std::string(value_type_name(v.type)) + " to " + type)
      .with_sqlstate(sqlstate::kCannotCoerce);
}

int64_t value_to_column(const Value& v, ColumnType t, const std::string& column) {
  switch (v.type) {
    case ValueType::kNull:
      throw Error("null value in column \"" + column + "\" violates not-null constraint", "",
                  "tidepool columns hold no NULLs.")
          .with_sqlstate(sqlstate::kNotNullViolation);
    case ValueType::kInt4:
    case ValueType::kInt8:
      return integer_result(t == ColumnType::kInt4 ? ValueType::kInt4 : ValueType::kInt8, v.i).i;
    case ValueType::kNumeric:
    case ValueType::kFloat8:
      return fraction_to_integer(v, t == ColumnType::kInt4 ? ValueType::kInt4 : ValueType::kInt8).i;
    case ValueType::kText:
      return cast_value(v, t == ColumnType::kInt4 ? "int" : "bigint").i;
    case ValueType::kBool:
      break;
  }
  throw Error("column \"" + column + "\" is of type " + column_type_name(t) +
              " but expression is of type " + value_type_name(v.type))
      .with_sqlstate(sqlstate::kDatatypeMismatch);
}

namespace {

Value evaluate_compare(const sql::Expr& e, EvalContext& ctx) {
  Value a = evaluate(*e.args[0], ctx), b = evaluate(*e.args[1], ctx);
  if (a.type == ValueType::kNull || b.type == ValueType::kNull) return {};
  int c = compare_values(a, b);
  const std::string& op = e.name;
  bool r = op == "="    ? c == 0
           : op == "<>" ? c != 0
           : op == "<"  ? c < 0
           : op == "<=" ? c <= 0
           : op == ">"  ? c > 0
                        : c >= 0;
  return Value::boolean(r);
}

// random(), pg_size_pretty(), abs(); anything else is the session's (setseed, ...).
Value evaluate_function(const sql::Expr& e, EvalContext& ctx) {
  if (e.name == "random") {
    if (!e.args.empty())
      throw Error("function random(" + std::string(e.args.size() == 1 ? "integer" : "...") +
                  ") does not exist")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    return Value::float8(ctx.random->next_double());
  }
  std::vector<Value> args;
  for (auto& a : e.args) args.push_back(evaluate(*a, ctx));
  if (e.name == "pg_size_pretty") {
    if (args.size() != 1 || !is_integer(args[0].type))
      throw Error("function pg_size_pretty takes one bigint argument")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    return Value::text(size_pretty(args[0].i));
  }
  if (e.name == "abs" && args.size() == 1 && is_integer(args[0].type))
    return integer_result(args[0].type, args[0].i < 0 ? -__int128(args[0].i) : args[0].i);
  if (ctx.session_function) return ctx.session_function(e, args);
  throw Error("function " + e.name + "() does not exist")
      .at_position(e.position)
      .with_sqlstate(sqlstate::kUndefinedFunction);
}

Value evaluate_between(const sql::Expr& e, EvalContext& ctx) {
  Value v = evaluate(*e.args[0], ctx), lo = evaluate(*e.args[1], ctx),
        hi = evaluate(*e.args[2], ctx);
  bool in = compare_values(v, lo) >= 0 && compare_values(v, hi) <= 0;
  if (e.symmetric) in = in || (compare_values(v, hi) >= 0 && compare_values(v, lo) <= 0);
  return Value::boolean(in != e.negated);
}

Value evaluate_in_list(const sql::Expr& e, EvalContext& ctx) {
  Value v = evaluate(*e.args[0], ctx);
  bool found = false;
  for (size_t i = 1; i < e.args.size() && !found; ++i)
    found = compare_values(v, evaluate(*e.args[i], ctx)) == 0;
  for (size_t i = 0; i < e.int_items.size() && !found; ++i) {
    const int64_t x = e.int_items[i];
    found =
        compare_values(v, x >= kInt4Min && x <= kInt4Max ? Value::int4(x) : Value::int8(x)) == 0;
  }
  return Value::boolean(found != e.negated);
}

Value evaluate_cast(const sql::Expr& e, EvalContext& ctx) {
  // The parser reads casts to every type; this evaluator has values of a few.
  if (e.name.empty())
    throw Error(
        "casts to " + format_type(e.cast_type.id, e.cast_type.typmod) + " are not supported yet",
        "",
        "tidepool computes integer, bigint, double precision, numeric and text "
        "values so far.")
        .at_position(e.cast_type.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  const Value operand = evaluate(*e.args[0], ctx);
  try {
    if (ctx.oid_of_name && (e.name == "regclass" || e.name == "regtype"))
      return ctx.oid_of_name(e, operand);
    return cast_value(operand, e.name);
  } catch (Error& err) {
    if (err.position() == 0 && e.name == "regtype") err.at_position(e.args[0]->position);
    throw;
  }
}

}  // namespace

Value evaluate(const sql::Expr& e, EvalContext& ctx) {
  using sql::ExprKind;
  check_stack_depth();
  switch (e.kind) {
    case ExprKind::kIntConst:
      return e.ival >= kInt4Min && e.ival <= kInt4Max ? Value::int4(e.ival) : Value::int8(e.ival);
    case ExprKind::kNumConst: {
      Value v = Value::numeric(e.dval);
      v.s = e.sval;  // exact text for casts and display
      return v;
    }
    case ExprKind::kStrConst:
      return Value::text(e.sval);
    case ExprKind::kBoolConst:
      return Value::boolean(e.ival != 0);
    case ExprKind::kNullConst:
      // A generic plan's $n has no value here (only a bound Param has): refused rather
      // than read as NULL (the plan cache then plans with the values).
      if (sql::generic_param(e.param))
        throw Error("$" + std::to_string(e.param) + " has no value in a generic plan here")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      return {};
    case ExprKind::kColumnRef:
      if (!ctx.column)
        throw Error("column \"" + e.name + "\" does not exist")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kUndefinedColumn);
      return ctx.column(e);
    case ExprKind::kStar:
      throw Error("SELECT * with no tables specified is not valid")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kSyntaxError);
    case ExprKind::kUnary: {
      Value v = evaluate(*e.args[0], ctx);
      if (e.name == "+") return v;
      return arithmetic("-", Value::int4(0), v);
    }
    case ExprKind::kBinary:
      return arithmetic(e.name, evaluate(*e.args[0], ctx), evaluate(*e.args[1], ctx));
    case ExprKind::kCompare:
      return evaluate_compare(e, ctx);
    case ExprKind::kAnd: {
      for (auto& a : e.args)
        if (!truth(evaluate(*a, ctx), "AND")) return Value::boolean(false);
      return Value::boolean(true);
    }
    case ExprKind::kOr: {
      for (auto& a : e.args)
        if (truth(evaluate(*a, ctx), "OR")) return Value::boolean(true);
      return Value::boolean(false);
    }
    case ExprKind::kNot:
      return Value::boolean(!truth(evaluate(*e.args[0], ctx), "NOT"));
    case ExprKind::kBetween:
      return evaluate_between(e, ctx);
    case ExprKind::kInList:
      return evaluate_in_list(e, ctx);
    case ExprKind::kCast:
      return evaluate_cast(e, ctx);
    case ExprKind::kIsNull:
      return Value::boolean((evaluate(*e.args[0], ctx).type == ValueType::kNull) != e.negated);
    case ExprKind::kFuncCall:
      return evaluate_function(e, ctx);
    case ExprKind::kLike:
    case ExprKind::kCase:
    case ExprKind::kBoolTest:
      break;  // over typed values only (engine/sql/typed_expr.h)
    case ExprKind::kSubLink:
      throw Error("subqueries are not supported here")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
  }
  throw Error("unsupported expression")
      .at_position(e.position)
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

std::string size_pretty(int64_t size) {
  struct Unit {
    const char* name;
    int64_t limit;
    bool round;
    int bits;
  };
  static const Unit units[] = {{"bytes", 10 * 1024, false, 0},  {"kB", 20 * 1024 - 1, true, 10},
                               {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
                               {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50},
                               {nullptr, 0, false, 0}};
  auto half_rounded = [](int64_t x) { return (x + (x < 0 ? -1 : 1)) / 2; };
  for (const Unit* u = units; u->name; ++u) {
    if (u[1].name == nullptr || (size < 0 ? -__int128(size) : __int128(size)) < u->limit) {
      if (u->round) size = half_rounded(size);
      return std::to_string(size) + " " + u->name;
    }
    int bits = u[1].bits - u->bits - (u[1].round ? 1 : 0) + (u->round ? 1 : 0);
    size /= int64_t(1) << bits;
  }
  return {};
}

}  // namespace tp
