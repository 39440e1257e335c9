// deparse(): a TypedExpr as PostgreSQL 15's ruleutils prints it in EXPLAIN (get_rule_expr
// with showimplicit inside operators and function arguments, get_const_expr's labels,
// get_func_sql_syntax's SQL forms).
#include <cctype>

#include "engine/core/stack_depth.h"
#include "engine/core/typed_expr.h"

namespace tp {
namespace {

std::string quote_literal(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// get_const_expr: integers and numbers with a decimal point bare, booleans as words,
// everything else quoted and labelled with its type.
std::string const_text(const TypedExpr& e) {
  if (e.isnull) return "NULL::" + format_type(e.type, e.typmod);
  const std::string v = datum_out(e.type, e.value.datum());
  switch (e.type) {
    case TypeId::kBool:
      return v == "t" ? "true" : "false";
    case TypeId::kInt4:
      if (v[0] != '-') return v;
      break;
    case TypeId::kNumeric:
      if (std::isdigit(uint8_t(v[0])) && v.find_first_of("eE.") != std::string::npos &&
          e.typmod < 0)
        return v;
      break;
    default:
      break;
  }
  if (e.unknown_literal) return quote_literal(v);
  return quote_literal(v) + "::" + format_type(e.type, e.typmod);
}

// array_out's quoting of one element.
std::string array_element(const std::string& v) {
  bool quote = v.empty() || v == "NULL" || v == "null";
  for (char c : v)
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || std::isspace(uint8_t(c)))
      quote = true;
  if (!quote) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string any_array(const TypedExpr& e) {
  const TypedExpr& first = e.args[1];
  bool all_const = true;
  for (size_t i = 1; i < e.args.size(); ++i) all_const = all_const && e.args[i].is_const();
  std::string list;
  if (all_const) {
    std::string elems;
    for (size_t i = 1; i < e.args.size(); ++i) {
      const TypedExpr& c = e.args[i];
      elems += (i > 1 ? "," : "") +
               (c.isnull ? std::string("NULL") : array_element(datum_out(c.type, c.value.datum())));
    }
    list = quote_literal("{" + elems + "}") + "::" + format_type(first.type, first.typmod) + "[]";
  } else {
    list = "ARRAY[";
    for (size_t i = 1; i < e.args.size(); ++i) list += (i > 1 ? ", " : "") + deparse(e.args[i]);
    list += "]";
  }
  return "(" + deparse(e.args[0]) + " " + e.name + (e.negated ? " ALL (" : " ANY (") + list + "))";
}

// `e` as get_rule_expr prints it with showimplicit off: below its implicit casts.
const TypedExpr& without_implicit_casts(const TypedExpr& e) {
  const TypedExpr* x = &e;
  while (x->kind == TypedExpr::Kind::kCall && !x->explicit_cast &&
         (x->form == TypedExpr::Form::kCast || x->form == TypedExpr::Form::kRelabel))
    x = &x->args[0];
  return *x;
}

std::string sql_syntax(const TypedExpr& e) {
  const std::string& f = e.name;
  if (f == "extract")
    return "EXTRACT(" + datum_out(TypeId::kText, e.args[0].value.datum()) + " FROM " +
           deparse(e.args[1]) + ")";
  if (f == "position")
    return "POSITION((" + deparse(e.args[1]) + ") IN (" + deparse(e.args[0]) + "))";
  if (f == "substring")
    return "SUBSTRING(" + deparse(e.args[0]) + " FROM " + deparse(e.args[1]) +
           (e.args.size() > 2 ? " FOR " + deparse(e.args[2]) : "") + ")";
  if (f == "btrim" || f == "ltrim" || f == "rtrim") {
    const char* where = f == "btrim" ? "BOTH" : f == "ltrim" ? "LEADING" : "TRAILING";
    return std::string("TRIM(") + where + (e.args.size() > 1 ? " " + deparse(e.args[1]) : "") +
           " FROM " + deparse(e.args[0]) + ")";
  }
  if (f == "current_date") return "CURRENT_DATE";
  if (f == "localtimestamp") return "LOCALTIMESTAMP";
  if (f == "current_timestamp") return "CURRENT_TIMESTAMP";
  if (f == "timezone")
    return "(" + deparse(without_implicit_casts(e.args[1])) + " AT TIME ZONE " +
           deparse(without_implicit_casts(e.args[0])) + ")";
  return f;
}

std::string call_text(const TypedExpr& e) {
  switch (e.form) {
    case TypedExpr::Form::kInfix:
      return "(" + deparse(e.args[0]) + " " + e.name + " " + deparse(e.args[1]) + ")";
    case TypedExpr::Form::kPrefix:
      return "(" + e.name + " " + deparse(e.args[0]) + ")";
    case TypedExpr::Form::kCast:
    case TypedExpr::Form::kRelabel:
      return "(" + deparse(e.args[0]) + ")::" + format_type(e.type, e.typmod);
    case TypedExpr::Form::kSqlSyntax:
      return sql_syntax(e);
    case TypedExpr::Form::kFunction:
      break;
  }
  // quote_identifier quotes a function name that is a keyword: "substring"(t, 2).
  const bool keyword = e.name == "substring" || e.name == "left" || e.name == "right";
  std::string out = (keyword ? "\"" + e.name + "\"" : e.name) + "(";
  for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + deparse(e.args[i]);
  return out + ")";
}

// The operand of a simple CASE's condition `x = v`: x without the implicit cast the
// comparison may have put on it (ruleutils prints the CaseTestExpr's source once).
const TypedExpr& case_operand(const TypedExpr& condition) {
  return without_implicit_casts(condition.args[0]);
}

std::string case_expr(const TypedExpr& e) {
  bool simple = e.simple_case;
  for (size_t i = 0; simple && i + 1 < e.args.size(); i += 2)
    simple = e.args[i].kind == TypedExpr::Kind::kCall && e.args[i].args.size() == 2;
  std::string out = simple ? "CASE " + deparse(case_operand(e.args[0])) : "CASE";
  for (size_t i = 0; i + 1 < e.args.size(); i += 2)
    out += " WHEN " + deparse(simple ? e.args[i].args[1] : e.args[i]) + " THEN " +
           deparse(e.args[i + 1]);
  return out + " ELSE " + deparse(e.args.back()) + " END";
}

std::string joined(const TypedExpr& e, const char* sep) {
  std::string out;
  for (size_t i = 0; i < e.args.size(); ++i) out += (i ? sep : "") + deparse(e.args[i]);
  return out;
}

}  // namespace

std::string deparse(const TypedExpr& e) {
  check_stack_depth();
  switch (e.kind) {
    case TypedExpr::Kind::kConst:
      return const_text(e);
    case TypedExpr::Kind::kColumn:
      return e.name;
    case TypedExpr::Kind::kCall:
      return call_text(e);
    case TypedExpr::Kind::kAnd:
      return "(" + joined(e, " AND ") + ")";
    case TypedExpr::Kind::kOr:
      return "(" + joined(e, " OR ") + ")";
    case TypedExpr::Kind::kNot:
      return "(NOT " + deparse(e.args[0]) + ")";
    case TypedExpr::Kind::kIsNull:
      return "(" + deparse(e.args[0]) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case TypedExpr::Kind::kCase:
      return case_expr(e);
    case TypedExpr::Kind::kCoalesce:
      return "COALESCE(" + joined(e, ", ") + ")";
    case TypedExpr::Kind::kNullIf:
      return "NULLIF(" + joined(e, ", ") + ")";
    case TypedExpr::Kind::kMinMax:
      return e.name + "(" + joined(e, ", ") + ")";
    case TypedExpr::Kind::kAnyArray:
      return any_array(e);
    case TypedExpr::Kind::kBoolTest:
      return "(" + deparse(e.args[0]) + (e.negated ? " IS NOT " : " IS ") + e.name + ")";
    case TypedExpr::Kind::kParam:
      return e.name;
    case TypedExpr::Kind::kSubPlan:
      return "(" + e.name + ")";
  }
  return "";
}

}  // namespace tp
