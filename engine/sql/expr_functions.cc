// The common functions, resolved by name and argument types as PostgreSQL 15's
// pg_proc offers them (round(integer) is round(double precision), the preferred type;
// length(char(n)) ignores the padding), and the constructs that pick a common type:
// COALESCE, NULLIF, GREATEST and LEAST.
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/numeric.h"
#include "engine/core/string_types.h"
#include "engine/core/type_io.h"
#include "engine/sql/expr_ops.h"

namespace tp::expr {
namespace {

Datum abs_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  switch (self.type) {
    case TypeId::kInt2:
      return int_abs(int16_t(a[0]));
    case TypeId::kInt4:
      return int_abs(int32_t(a[0]));
    case TypeId::kInt8:
      return int_abs(int64_t(a[0]));
    case TypeId::kFloat4:
      return float4_datum(std::fabs(datum_float4(a[0])));
    case TypeId::kFloat8:
      return float8_datum(std::fabs(datum_float8(a[0])));
    default:
      return varlena_result(st, numeric_abs(datum_pointer(a[0])));
  }
}

// round, trunc, floor, ceil over numeric (with an optional scale) or float8.
template <char Kind>
Datum rounding_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  if (self.type == TypeId::kFloat8) {
    const double v = datum_float8(a[0]);
    return float8_datum(Kind == 'r'   ? std::rint(v)
                        : Kind == 't' ? std::trunc(v)
                        : Kind == 'f' ? std::floor(v)
                                      : std::ceil(v));
  }
  const char* n = datum_pointer(a[0]);
  const auto scale = self.args.size() > 1 ? int32_t(a[1]) : 0;
  return varlena_result(st, Kind == 'r'   ? numeric_round(n, scale)
                            : Kind == 't' ? numeric_trunc(n, scale)
                            : Kind == 'f' ? numeric_floor(n)
                                          : numeric_ceil(n));
}

Datum length_eval(const Datum* a, const TypedExpr& self, EvalState&) {
  const std::string_view s = text_arg(a[0]);
  return self.args[0].type == TypeId::kBpchar ? bpchar_length(s) : text_length(s);
}
Datum octet_length_eval(const Datum* a, const TypedExpr&, EvalState&) {
  return octet_length(text_arg(a[0]));
}
Datum lower_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  return text_result(st, text_lower(text_arg(a[0])));
}
Datum upper_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  return text_result(st, text_upper(text_arg(a[0])));
}
Datum md5_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  return text_result(st, md5_hex(text_arg(a[0])));
}
Datum substring_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  const std::optional<int32_t> count =
      self.args.size() > 2 ? std::optional<int32_t>(int32_t(a[2])) : std::nullopt;
  return text_result(st, text_substring(text_arg(a[0]), int32_t(a[1]), count));
}
Datum strpos_eval(const Datum* a, const TypedExpr&, EvalState&) {
  return text_position(text_arg(a[0]), text_arg(a[1]));
}
template <char Side>
Datum trim_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  const std::string_view chars = self.args.size() > 1 ? text_arg(a[1]) : " ";
  const std::string_view s = text_arg(a[0]);
  return text_result(st, Side == 'b'   ? text_btrim(s, chars)
                         : Side == 'l' ? text_ltrim(s, chars)
                                       : text_rtrim(s, chars));
}

// PostgreSQL refuses a string of 1 GB or more ("requested length too large").
void check_length(size_t bytes) {
  if (bytes >= (size_t(1) << 30) - kVarlenaHeader)
    throw Error("requested length too large").with_sqlstate(sqlstate::kProgramLimitExceeded);
}
Datum repeat_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  const std::string_view s = text_arg(a[0]);
  const int64_t count = std::max<int64_t>(0, int32_t(a[1]));
  check_length(s.size() * size_t(count));
  std::string out;
  out.reserve(s.size() * size_t(count));
  for (int64_t i = 0; i < count; ++i) out += s;
  return text_result(st, out);
}
// lpad / rpad: `s` cut or filled (cycling through `fill`) to `length` characters.
template <char Side>
Datum pad_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  const std::string_view s = text_arg(a[0]);
  const std::string_view fill = self.args.size() > 2 ? text_arg(a[2]) : " ";
  const int32_t length = std::max<int32_t>(0, int32_t(a[1]));
  const int32_t have = text_length(s);
  // PostgreSQL sizes the result for the worst case first: `length` characters of the
  // database encoding's widest (4 bytes in UTF-8), or the string alone when the fill is
  // empty; past 1 GB it refuses before building anything.
  const int64_t worst = int64_t(4) * (fill.empty() ? std::min(have, length) : length);
  check_length(size_t(worst));
  if (have >= length || fill.empty()) return text_result(st, text_substring(s, 1, length));
  const int32_t need = length - have, fill_chars = text_length(fill);
  check_length(s.size() + fill.size() * size_t(need / fill_chars + 1));
  std::string pad;
  for (int32_t i = 0; i < need / fill_chars; ++i) pad += fill;
  pad += text_substring(fill, 1, need % fill_chars);
  return text_result(st, Side == 'l' ? pad + std::string(s) : std::string(s) + pad);
}
// left / right: the first (last) n characters; a negative n drops |n| from the other end.
template <char Side>
Datum edge_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  const std::string_view s = text_arg(a[0]);
  const int32_t n = int32_t(a[1]), len = text_length(s);
  const int32_t keep = n >= 0 ? std::min(n, len) : std::max(0, len + n);
  return text_result(
      st, Side == 'l' ? text_substring(s, 1, keep) : text_substring(s, len - keep + 1, keep));
}
Datum replace_eval(const Datum* a, const TypedExpr&, EvalState& st) {
  const std::string_view s = text_arg(a[0]), from = text_arg(a[1]), to = text_arg(a[2]);
  if (from.empty()) return text_result(st, s);
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string_view::npos; at = hit + from.size()) {
    out.append(s.substr(at, hit - at));
    out.append(to);
    check_length(out.size());
  }
  out.append(s.substr(at));
  return text_result(st, out);
}
Datum random_eval(const Datum*, const TypedExpr&, EvalState& st) {
  return float8_datum(st.random->next_double());
}

int64_t as_timestamp(Datum d, TypeId t) {
  return t == TypeId::kDate ? date_to_timestamp(int32_t(d)) : d;
}
Datum extract_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  const std::string_view field = text_arg(a[0]);
  const TypeId t = self.args[1].type;
  const std::optional<std::string> v =
      t == TypeId::kDate ? extract_date(field, int32_t(a[1]))
                         : extract_timestamp(field, a[1], t == TypeId::kTimestamptz);
  if (!v) {
    st.null_result = true;  // a field an infinite value has not
    return 0;
  }
  return varlena_result(st, numeric_in(*v, kNoTypmod));
}
Datum date_part_eval(const Datum* a, const TypedExpr& self, EvalState& st) {
  const TypeId t = self.args[1].type;
  const std::optional<double> v =
      date_part_timestamp(text_arg(a[0]), as_timestamp(a[1], t), t == TypeId::kTimestamptz);
  if (!v) st.null_result = true;
  return float8_datum(v.value_or(0));
}
Datum date_trunc_eval(const Datum* a, const TypedExpr& self, EvalState&) {
  return date_trunc_timestamp(text_arg(a[0]), a[1], self.type == TypeId::kTimestamptz);
}
Datum timezone_eval(const Datum* a, const TypedExpr& self, EvalState&) {
  const std::string_view zone = text_arg(a[0]);
  return self.type == TypeId::kTimestamptz ? timestamp_at_zone(zone, a[1])
                                           : timestamptz_at_zone(zone, a[1]);
}
Datum current_date_eval(const Datum*, const TypedExpr&, EvalState& st) {
  int64_t days = st.statement_time / kUsecsPerDay;
  if (st.statement_time % kUsecsPerDay < 0) --days;
  return days;
}
// LOCALTIMESTAMP, now() and CURRENT_TIMESTAMP: the statement's start (TimeZone is UTC,
// so with and without a zone it is the same number).
Datum statement_time_eval(const Datum*, const TypedExpr&, EvalState& st) {
  return st.statement_time;
}
Datum clock_timestamp_eval(const Datum*, const TypedExpr&, EvalState&) {
  return timestamp_now();
}

[[noreturn]] void no_function(const std::string& name, const std::vector<TypedExpr>& args,
                              int position) {
  std::string types;
  for (size_t i = 0; i < args.size(); ++i)
    types += (i ? ", " : "") +
             (is_unknown(args[i]) ? std::string("unknown") : format_type(args[i].type, -1));
  throw Error("function " + name + "(" + types + ") does not exist", "",
              "No function matches the given name and argument types. You might need to add "
              "explicit type casts.")
      .at_position(position)
      .with_sqlstate(sqlstate::kUndefinedFunction);
}

TypedExpr call(const std::string& name, ScalarFn fn, TypeId result, std::vector<TypedExpr> args,
               bool sql_syntax, bool immutable = true) {
  return make_call(name, fn, result, std::move(args),
                   sql_syntax ? TypedExpr::Form::kSqlSyntax : TypedExpr::Form::kFunction, 1,
                   immutable);
}

// An argument that must be text (varchar and char(n) cast to it).
void as_text(std::vector<TypedExpr>& args, size_t i, const std::string& name, int position) {
  if (!is_unknown(args[i]) && !is_string(args[i].type)) no_function(name, args, position);
  args[i] = coerce_implicitly(std::move(args[i]), TypeId::kText, position);
}
void as_int4(std::vector<TypedExpr>& args, size_t i, const std::string& name, int position) {
  const TypeId t = args[i].type;
  if (!is_unknown(args[i]) && t != TypeId::kInt2 && t != TypeId::kInt4)
    no_function(name, args, position);
  args[i] = coerce_implicitly(std::move(args[i]), TypeId::kInt4, position);
}

TypedExpr numeric_function(const std::string& name, std::vector<TypedExpr> args, int position) {
  const size_t n = args.size();
  if (n == 0 || n > 2 || (n == 2 && name != "round" && name != "trunc"))
    no_function(name, args, position);
  TypedExpr& x = args[0];
  if (!is_unknown(x) && category(x.type) != Category::kNumeric) no_function(name, args, position);
  if (name == "abs") {
    if (is_unknown(x)) x = coerce_implicitly(std::move(x), TypeId::kFloat8, position);
    const TypeId t = x.type;
    return call(name, abs_eval, t, std::move(args), false);
  }
  // numeric keeps numeric (so does any argument with a scale); everything else is
  // float8, the category's preferred type.
  const TypeId t = x.type == TypeId::kNumeric || n == 2 ? TypeId::kNumeric : TypeId::kFloat8;
  x = coerce_implicitly(std::move(x), t, position);
  if (n == 2) as_int4(args, 1, name, position);
  // round(numeric) and trunc(numeric) are SQL functions PostgreSQL inlines: round(x, 0).
  if (n == 1 && t == TypeId::kNumeric && (name == "round" || name == "trunc"))
    args.push_back(make_const(TypeId::kInt4, kNoTypmod, 0, false));
  const ScalarFn fn = name == "round"   ? rounding_eval<'r'>
                      : name == "trunc" ? rounding_eval<'t'>
                      : name == "floor" ? rounding_eval<'f'>
                                        : rounding_eval<'c'>;
  return call(name, fn, t, std::move(args), false);
}

TypedExpr string_function(const std::string& name, std::vector<TypedExpr> args, bool sql_syntax,
                          int position) {
  const size_t n = args.size();
  if (name == "length" || name == "char_length" || name == "character_length" ||
      name == "octet_length") {
    if (n != 1) no_function(name, args, position);
    if (args[0].type != TypeId::kBpchar || is_unknown(args[0])) as_text(args, 0, name, position);
    return call(name, name == "octet_length" ? octet_length_eval : length_eval, TypeId::kInt4,
                std::move(args), false);
  }
  if (name == "lower" || name == "upper" || name == "md5") {
    if (n != 1) no_function(name, args, position);
    as_text(args, 0, name, position);
    return call(name,
                name == "lower"   ? lower_eval
                : name == "upper" ? upper_eval
                                  : md5_eval,
                TypeId::kText, std::move(args), false);
  }
  if (name == "substring" || name == "substr") {
    if (n < 2 || n > 3) no_function(name, args, position);
    as_text(args, 0, name, position);
    for (size_t i = 1; i < n; ++i) as_int4(args, i, name, position);
    return call(name, substring_eval, TypeId::kText, std::move(args), sql_syntax);
  }
  if (name == "position" || name == "strpos") {
    if (n != 2) no_function(name, args, position);
    as_text(args, 0, name, position);
    as_text(args, 1, name, position);
    // POSITION(a IN b) is position(b, a): the string searched comes first.
    if (name == "position") std::swap(args[0], args[1]);
    return call(name, strpos_eval, TypeId::kInt4, std::move(args), sql_syntax);
  }
  // btrim, ltrim, rtrim
  if (n < 1 || n > 2) no_function(name, args, position);
  for (size_t i = 0; i < n; ++i) as_text(args, i, name, position);
  const ScalarFn fn = name == "btrim"   ? trim_eval<'b'>
                      : name == "ltrim" ? trim_eval<'l'>
                                        : trim_eval<'r'>;
  return call(name, fn, TypeId::kText, std::move(args), sql_syntax);
}

// repeat, lpad, rpad, left, right, replace: text and int4 arguments, a text result.
TypedExpr text_building_function(const std::string& name, std::vector<TypedExpr> args,
                                 int position) {
  const size_t n = args.size();
  const bool pad = name == "lpad" || name == "rpad";
  if (n < 2 || n > 3 || (n == 3 && !pad && name != "replace") || (name == "replace" && n != 3))
    no_function(name, args, position);
  for (size_t i = 0; i < n; ++i) {
    if (i == 1 && name != "replace")
      as_int4(args, i, name, position);
    else
      as_text(args, i, name, position);
  }
  const ScalarFn fn = name == "repeat"  ? repeat_eval
                      : name == "lpad"  ? pad_eval<'l'>
                      : name == "rpad"  ? pad_eval<'r'>
                      : name == "left"  ? edge_eval<'l'>
                      : name == "right" ? edge_eval<'r'>
                                        : replace_eval;
  return call(name, fn, TypeId::kText, std::move(args), false);
}

// extract, date_part and date_trunc: their timestamp with time zone forms are stable
// (they read TimeZone), so not folded over a constant.
TypedExpr datetime_function(const std::string& name, std::vector<TypedExpr> args, bool sql_syntax,
                            int position) {
  const std::string shown = sql_syntax ? "pg_catalog." + name : name;
  if (args.size() != 2) no_function(shown, args, position);
  TypedExpr& x = args[1];
  // An untyped value fits the date, time, timestamp and interval forms alike.
  if (is_unknown(x))
    throw Error("function " + shown + "(" +
                    (is_unknown(args[0]) ? "unknown" : format_type(args[0].type, -1)) +
                    ", unknown) is not unique",
                "",
                "Could not choose a best candidate function. You might need to add explicit "
                "type casts.")
        .at_position(position)
        .with_sqlstate(sqlstate::kAmbiguousFunction);
  as_text(args, 0, shown, position);
  if (x.type == TypeId::kInterval)
    throw Error(name + "() of an interval is not supported yet")
        .at_position(position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (category(x.type) != Category::kDatetime) no_function(shown, args, position);
  if (name == "extract")
    return call(name, extract_eval, TypeId::kNumeric, std::move(args), sql_syntax,
                x.type != TypeId::kTimestamptz);
  if (name == "date_part") {
    // date_part(text, date) is SQL over date_part(text, timestamp).
    if (x.type == TypeId::kDate) x = coerce_implicitly(std::move(x), TypeId::kTimestamp, position);
    return call(name, date_part_eval, TypeId::kFloat8, std::move(args), false,
                x.type != TypeId::kTimestamptz);
  }
  // A date goes to date_trunc(text, timestamp with time zone), timestamptz being the
  // category's preferred type.
  if (x.type == TypeId::kDate) x = coerce_implicitly(std::move(x), TypeId::kTimestamptz, position);
  const TypeId result = x.type;
  return call(name, date_trunc_eval, result, std::move(args), false,
              result != TypeId::kTimestamptz);
}

// timezone(zone, x) and x AT TIME ZONE zone: a timestamp becomes a timestamp with time
// zone and back; a date or an untyped value goes to timestamptz (the preferred type).
TypedExpr timezone_function(std::vector<TypedExpr> args, bool sql_syntax, int position) {
  const std::string shown = sql_syntax ? "pg_catalog.timezone" : "timezone";
  if (args.size() != 2) no_function(shown, args, position);
  TypedExpr& x = args[1];
  if (x.type == TypeId::kDate || is_unknown(x))
    x = coerce_implicitly(std::move(x), TypeId::kTimestamptz, position);
  if (x.type != TypeId::kTimestamp && x.type != TypeId::kTimestamptz)
    no_function(shown, args, position);
  if (!is_unknown(args[0]) && args[0].type == TypeId::kInterval)
    throw Error("a time zone given as an interval is not supported yet", "",
                "Give a zone abbreviation such as UTC, EST or CET.")
        .at_position(position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  as_text(args, 0, shown, position);
  const TypeId result = x.type == TypeId::kTimestamp ? TypeId::kTimestamptz : TypeId::kTimestamp;
  return call("timezone", timezone_eval, result, std::move(args), sql_syntax);
}

// A column of `c`'s type, standing in for it while an operator is resolved.
TypedExpr stand_in(const TypedExpr& c) {
  return column_expr(0, c.type, c.typmod, "\x01");  // no column's name
}

// `c` back where stand_in(c) went, the casts resolution put over it folded; whether
// it was below `e`.
bool put_back(TypedExpr& e, const TypedExpr& c) {
  if (e.kind == TypedExpr::Kind::kColumn && e.name == "\x01") {
    e = c;
    return true;
  }
  bool found = false;
  for (TypedExpr& a : e.args) found = put_back(a, c) || found;
  if (found && e.kind == TypedExpr::Kind::kCall) e = fold(std::move(e));
  return found;
}

TypedExpr special_form(TypedExpr::Kind kind, const std::string& name, std::vector<TypedExpr> args,
                       int position) {
  std::vector<TypedExpr*> ptrs;
  for (TypedExpr& a : args) ptrs.push_back(&a);
  const char* context = kind == TypedExpr::Kind::kCoalesce ? "COALESCE"
                        : kind == TypedExpr::Kind::kNullIf ? "NULLIF"
                                                           : name.c_str();
  TypedExpr e;
  e.kind = kind;
  e.name = name;
  if (kind == TypedExpr::Kind::kNullIf) {
    // NULLIF(a, b) is `a = b`'s operator, typed as a. A constant stands in the
    // resolution as a column of its type (so `=` is not folded away), then returns.
    if (is_unknown(args[0]) && is_unknown(args[1]))
      for (TypedExpr& a : args) a = coerce_implicitly(std::move(a), TypeId::kText, position);
    std::vector<TypedExpr> resolved;
    for (const TypedExpr& a : args)
      resolved.push_back(a.is_const() && !is_unknown(a) ? stand_in(a) : a);
    TypedExpr eq = resolve_operator("=", resolved[0], resolved[1], position);
    e.fn = eq.fn;
    e.compare_as = eq.compare_as;
    e.cost_units = 1;
    e.type = eq.args[0].type;
    e.typmod = eq.args[0].typmod;
    e.args = std::move(eq.args);
    for (size_t i = 0; i < 2; ++i) put_back(e.args[i], args[i]);
    return fold(std::move(e));
  }
  e.type = unify_types(ptrs, context, position);
  for (TypedExpr& a : args) a = coerce_implicitly(std::move(a), e.type, position);
  e.args = std::move(args);
  return e;
}

}  // namespace

TypeId unify_types(std::vector<TypedExpr*> args, const char* context, int position) {
  const TypedExpr* first = nullptr;
  TypeId t = TypeId::kText;
  for (const TypedExpr* a : args) {
    if (is_unknown(*a)) continue;
    if (!first) {
      first = a;
      t = a->type;
      continue;
    }
    if (a->type == t) continue;
    if (category(a->type) != category(t))
      throw Error(std::string(context) + " types " + format_type(t, -1) + " and " +
                  format_type(a->type, -1) + " cannot be matched")
          .at_position(position)
          .with_sqlstate(sqlstate::kDatatypeMismatch);
    if (!is_preferred(t) && can_coerce(t, a->type, CoercionContext::kImplicit) &&
        !can_coerce(a->type, t, CoercionContext::kImplicit))
      t = a->type;
  }
  return t;
}

TypedExpr resolve_function(const std::string& name, std::vector<TypedExpr> args, bool sql_syntax,
                           int position) {
  if (name == "abs" || name == "round" || name == "trunc" || name == "floor" || name == "ceil" ||
      name == "ceiling")
    return numeric_function(name == "ceiling" ? "ceil" : name, std::move(args), position);
  if (name == "length" || name == "char_length" || name == "character_length" ||
      name == "octet_length" || name == "lower" || name == "upper" || name == "md5" ||
      name == "substring" || name == "substr" || name == "position" || name == "strpos" ||
      name == "btrim" || name == "ltrim" || name == "rtrim")
    return string_function(name, std::move(args), sql_syntax, position);
  if (name == "repeat" || name == "lpad" || name == "rpad" || name == "left" || name == "right" ||
      name == "replace")
    return text_building_function(name, std::move(args), position);
  if (name == "extract" || name == "date_part" || name == "date_trunc")
    return datetime_function(name, std::move(args), sql_syntax, position);
  if (name == "timezone") return timezone_function(std::move(args), sql_syntax, position);
  if (name == "coalesce" && !args.empty())
    return special_form(TypedExpr::Kind::kCoalesce, "COALESCE", std::move(args), position);
  if (name == "nullif" && args.size() == 2)
    return special_form(TypedExpr::Kind::kNullIf, "NULLIF", std::move(args), position);
  if ((name == "greatest" || name == "least") && !args.empty())
    return special_form(TypedExpr::Kind::kMinMax, name == "greatest" ? "GREATEST" : "LEAST",
                        std::move(args), position);
  // CURRENT_DATE, LOCALTIMESTAMP and CURRENT_TIMESTAMP (SQL syntax, PostgreSQL's
  // SQLValueFunction) and now(): stable, one value per statement.
  if ((name == "current_date" || name == "localtimestamp" || name == "current_timestamp") &&
      args.empty() && sql_syntax)
    return call(name, name == "current_date" ? current_date_eval : statement_time_eval,
                name == "current_date"     ? TypeId::kDate
                : name == "localtimestamp" ? TypeId::kTimestamp
                                           : TypeId::kTimestamptz,
                {}, true, false);
  if ((name == "now" || name == "transaction_timestamp" || name == "statement_timestamp") &&
      args.empty())
    return call(name, statement_time_eval, TypeId::kTimestamptz, {}, false, false);
  // Volatile: a new reading per call (expr_is_volatile knows it by name).
  if (name == "clock_timestamp" && args.empty())
    return call(name, clock_timestamp_eval, TypeId::kTimestamptz, {}, false, false);
  if (name == "random" || name == "setseed")
    throw Error(name + "() in a query over a table is not supported yet")
        .at_position(position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  no_function(name, args, position);
}

TypedExpr random_call() {
  return call("random", random_eval, TypeId::kFloat8, {}, false, false);
}

}  // namespace tp::expr
