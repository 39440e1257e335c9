// ExprParser's keyword forms: CASE, CAST(x AS t), and the functions PostgreSQL's grammar
// spells in SQL's own syntax (func_expr_common_subexpr): EXTRACT, POSITION, SUBSTRING,
// TRIM, CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP; IN lists of plain integers, and
// subqueries (which only the statement parser reads). Each becomes the node PostgreSQL's
// parser makes (a FuncCall of its pg_proc name, marked sql_syntax so deparse prints the
// SQL form back), with gram.y's syntax errors for what it does not accept.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>

#include "engine/core/error.h"
#include "engine/sql/expr_parser.h"
#include "engine/sql/params.h"

namespace tp::sql {
namespace {

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  return s;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

}  // namespace

// `date '2020-01-01'`, `interval '1 day'`, `numeric '1.5'`, `double precision '2'`:
// PostgreSQL's typed constant (AexprConst), the string read by the type's input
// function, as `'...'::type`.
ExprPtr ExprParser::typed_literal(const Token& t) {
  static constexpr std::string_view kTypeWords[] = {
      "date",  "timestamp", "timestamptz", "interval", "numeric", "decimal", "text",     "varchar",
      "int",   "integer",   "int2",        "int4",     "int8",    "bigint",  "smallint", "real",
      "float", "float4",    "float8",      "boolean",  "bool",    "bpchar"};
  const std::string_view text = t.text;
  size_t words = 1;
  if (text == "double" && is_word("precision", 1)) {
    words = 2;
  } else if (text == "timestamp" && (is_word("with", 1) || is_word("without", 1)) &&
             is_word("time", 2) && is_word("zone", 3)) {
    words = 4;
  } else if (std::find_if(std::begin(kTypeWords), std::end(kTypeWords),
                          [&](std::string_view w) { return text == w; }) == std::end(kTypeWords)) {
    return nullptr;
  }
  if (peek(words).kind != TokenKind::kString) return nullptr;
  auto c = std::make_unique<Expr>(ExprKind::kCast, t.position);
  c->cast_type = type_name();
  c->name = cast_target(c->cast_type);
  c->sval = type_info(c->cast_type.id).pg_name;
  const Token s = next();
  auto str = std::make_unique<Expr>(ExprKind::kStrConst, s.position);
  str->sval = s.text;
  c->args.push_back(std::move(str));
  return sealed(std::move(c));
}

ExprPtr ExprParser::keyword_form(const Token& t) {
  const std::string_view w = t.text;  // compared with literals: lengths first
  if (ExprPtr e = typed_literal(t)) return e;
  if (w == "case") {
    next();
    return case_expr(t.position);
  }
  // Reserved in PostgreSQL and meaningful only inside CASE: never a column, so
  // `CASE WHEN END` fails at END as there.
  if (w == "when" || w == "then" || w == "else" || w == "end") syntax_error();
  if (w == "current_date" || w == "current_timestamp" || w == "localtimestamp") {
    next();
    if (is_punct("(")) {
      if (w == "current_date") syntax_error();
      throw Error(upper(t.text) + "(precision) is not supported")
          .at_position(t.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
    return sealed(sql_function(t.text.c_str(), t.position));
  }
  // SQL's session keywords are calls (current_schema may also be written with ()).
  if (w == "current_user" || w == "session_user" || w == "current_catalog" ||
      (w == "current_schema" && !is_punct_at("(", 1))) {
    next();
    return sealed(sql_function(t.text.c_str(), t.position));
  }
  // Without parentheses extract, position, substring and trim are column names
  // (PostgreSQL's col_name_keyword).
  if (!is_punct_at("(", 1)) return nullptr;
  using Form = ExprPtr (ExprParser::*)(int);
  static constexpr std::pair<std::string_view, Form> kForms[] = {
      {"cast", &ExprParser::cast_call},         {"extract", &ExprParser::extract_call},
      {"position", &ExprParser::position_call}, {"substring", &ExprParser::substring_call},
      {"trim", &ExprParser::trim_call},
  };
  for (const auto& [name, form] : kForms)
    if (w == name) {
      next();
      next();
      return (this->*form)(t.position);
    }
  return nullptr;
}

ExprPtr ExprParser::sql_function(const char* name, int pos) {
  auto e = std::make_unique<Expr>(ExprKind::kFuncCall, pos);
  e->name = name;
  e->sql_syntax = true;
  return e;
}

// After CASE: `[operand] WHEN w THEN t [WHEN ...] [ELSE e] END`, at least one WHEN.
ExprPtr ExprParser::case_expr(int pos) {
  auto e = std::make_unique<Expr>(ExprKind::kCase, pos);
  if (!is_word("when")) {
    e->case_operand = true;
    e->args.push_back(expr());
  }
  if (!is_word("when")) syntax_error();
  while (accept_word("when")) {
    e->args.push_back(expr());
    expect_word("then");
    e->args.push_back(expr());
  }
  if (accept_word("else")) {
    e->case_else = true;
    e->args.push_back(expr());
  }
  expect_word("end");
  return sealed(std::move(e));
}

// After `CAST (`: `x AS type )`, the same node as x::type.
ExprPtr ExprParser::cast_call(int pos) {
  ExprPtr operand = expr();
  expect_word("as");
  ExprPtr c = cast_to_type(std::move(operand), pos);
  expect_punct(")");
  return c;
}

// After `EXTRACT (`: `field FROM x )`. The field is a word (year, epoch, dow, ...) or a
// string, kept lower case as the function compares it.
ExprPtr ExprParser::extract_call(int pos) {
  const Token field = peek();
  if (field.kind != TokenKind::kString &&
      !(field.kind == TokenKind::kIdentifier && (field.quoted || !is_reserved(field.text))))
    syntax_error();
  next();
  ExprPtr e = sql_function("extract", pos);
  auto f = std::make_unique<Expr>(ExprKind::kStrConst, field.position);
  f->sval = lower(field.text);
  e->args.push_back(std::move(f));
  expect_word("from");
  e->args.push_back(expr());
  expect_punct(")");
  return sealed(std::move(e));
}

// After `POSITION (`: `a IN b )`, a searched for in b. Both are gram.y's b_expr, which
// stops before IN: the generic-operator level. That recursion does not pass through
// expr(), so this level counts itself.
ExprPtr ExprParser::position_call(int pos) {
  Nest nest(*this);
  ExprPtr e = sql_function("position", pos);
  e->args.push_back(operator_expr());
  expect_word("in");
  e->args.push_back(operator_expr());
  expect_punct(")");
  return sealed(std::move(e));
}

// After `SUBSTRING (`: `s FROM a [FOR b]`, `s FOR b [FROM a]` (a is 1 when left out, as
// PostgreSQL fills it in), or a plain argument list (sql_syntax false). `s SIMILAR p
// ESCAPE e` is refused with SIMILAR TO, as the operand's predicate.
ExprPtr ExprParser::substring_call(int pos) {
  ExprPtr e = sql_function("substring", pos);
  e->sql_syntax = false;
  if (accept_punct(")")) return sealed(std::move(e));
  e->args.push_back(expr());
  if (accept_word("from")) {
    e->sql_syntax = true;
    e->args.push_back(expr());
    if (accept_word("for")) e->args.push_back(expr());
  } else if (accept_word("for")) {
    e->sql_syntax = true;
    ExprPtr count = expr();
    if (accept_word("from")) {
      e->args.push_back(expr());
    } else {
      auto one = std::make_unique<Expr>(ExprKind::kIntConst, 0);  // not written: no position
      one->ival = 1;
      e->args.push_back(std::move(one));
    }
    e->args.push_back(std::move(count));
  } else {
    while (accept_punct(",")) e->args.push_back(expr());
  }
  expect_punct(")");
  return sealed(std::move(e));
}

// After `TRIM (`: `[BOTH | LEADING | TRAILING] [[chars] FROM] s [, ...] )` as gram.y's
// trim_list: btrim / ltrim / rtrim over the list, the characters (when given before
// FROM) appended last.
ExprPtr ExprParser::trim_call(int pos) {
  const char* name = "btrim";
  if (accept_word("leading")) {
    name = "ltrim";
  } else if (accept_word("trailing")) {
    name = "rtrim";
  } else {
    accept_word("both");
  }
  ExprPtr e = sql_function(name, pos);
  ExprPtr chars;
  bool list = accept_word("from");
  if (!list) {
    ExprPtr first = expr();
    if (accept_word("from")) {
      chars = std::move(first);
      list = true;
    } else {
      e->args.push_back(std::move(first));
      list = accept_punct(",");
    }
  }
  if (list) {
    do e->args.push_back(expr());
    while (accept_punct(","));
  }
  if (chars) e->args.push_back(std::move(chars));
  expect_punct(")");
  return sealed(std::move(e));
}

// a, t.a, public.t.a, t.*, public.t.*: the qualifiers are checked against FROM once the
// statement is read (check_column_qualifiers).
ExprPtr ExprParser::column_ref(const Token& t) {
  std::vector<std::string> parts{identifier()};
  bool star = false;
  while (parts.size() < 3 && accept_punct(".")) {
    if (is_op("*")) {
      next();
      star = true;
      break;
    }
    parts.push_back(identifier());
  }
  if (!star && parts.size() == 3 && is_punct(".")) {
    // db.schema.table.column, and longer: PostgreSQL's errors for them.
    std::string dotted = parts[0] + "." + parts[1] + "." + parts[2];
    size_t n = 3;
    while (accept_punct(".")) {
      dotted += ".";
      if (is_op("*")) {
        next();
        dotted += "*";
      } else {
        dotted += identifier();
      }
      ++n;
    }
    throw Error(n == 4 ? "cross-database references are not implemented: " + dotted
                       : "improper qualified name (too many dotted names): " + dotted)
        .at_position(t.position)
        .with_sqlstate(n == 4 ? sqlstate::kFeatureNotSupported : sqlstate::kSyntaxError);
  }
  auto e = std::make_unique<Expr>(star ? ExprKind::kStar : ExprKind::kColumnRef, t.position);
  if (!star) {
    e->name = std::move(parts.back());
    parts.pop_back();
  }
  if (!parts.empty()) {
    e->qualifier = std::move(parts.back());
    parts.pop_back();
  }
  if (!parts.empty()) e->sval = std::move(parts.back());
  return e;
}

// An IN list of plain integer literals, read into e.int_items up to its ")": true.
// At the first item that is anything else (a sign, an expression, NULL, a bigger
// number), the integers read so far become ordinary constants in e.args and false
// says the caller reads the rest as expressions.
bool ExprParser::integer_items(Expr& e) {
  std::vector<int> positions;
  for (;;) {
    const Token& t = peek();
    const bool plain =
        t.kind == TokenKind::kInteger && (is_punct_at(",", 1) || is_punct_at(")", 1));
    long long v = 0;
    if (plain) {
      errno = 0;
      v = std::strtoll(t.text.c_str(), nullptr, 10);
    }
    if (!plain || errno == ERANGE) break;
    e.int_items.push_back(v);
    if (ParsedNodeBudget* b = ParsedNodeBudget::current()) b->take_int_item();
    positions.push_back(t.position);
    next();
    if (is_punct(")")) {
      // IN (v) is v's equality to PostgreSQL (an equivalence class's constant): a node.
      if (e.int_items.size() == 1) {
        auto c = std::make_unique<Expr>(ExprKind::kIntConst, positions[0]);
        c->ival = e.int_items[0];
        e.args.push_back(std::move(c));
        e.int_items.clear();
      }
      return true;
    }
    next();  // the comma
  }
  for (size_t i = 0; i < e.int_items.size(); ++i) {
    auto c = std::make_unique<Expr>(ExprKind::kIntConst, positions[i]);
    c->ival = e.int_items[i];
    e.args.push_back(std::move(c));
  }
  e.int_items.clear();
  return false;
}

std::shared_ptr<const Select> ExprParser::subselect() {
  refuse_subquery();
  syntax_error();
}

void ExprParser::refuse_subquery() const {
  if (is_word("select") || is_word("values") || is_word("with"))
    throw Error("subqueries are not supported")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
}

// $n: its value as the literal it stands for (engine/sql/params.h), a NULL while the
// statement is only described or planned generically (the binder makes that a Param).
ExprPtr ExprParser::parameter(const Token& t) {
  StatementParams* params = current_params();
  const int n = t.text.size() > 5 ? 0 : std::stoi(t.text);
  const ParamSlot* slot = params != nullptr ? params->slot(n) : nullptr;
  if (slot == nullptr)
    throw Error("there is no parameter $" + t.text)
        .at_position(t.position)
        .with_sqlstate(sqlstate::kUndefinedParameter);
  const bool unknown = slot->isnull || params->generic();
  auto value =
      std::make_unique<Expr>(unknown ? ExprKind::kNullConst : ExprKind::kStrConst, t.position);
  if (!unknown) value->sval = slot->text;
  value->param = n;
  if (!slot->type) return value;
  auto c = std::make_unique<Expr>(ExprKind::kCast, t.position);
  c->cast_type = {*slot->type, kNoTypmod, t.position};
  c->name = cast_target(c->cast_type);
  c->sval = type_info(*slot->type).pg_name;
  c->param = n;
  c->args.push_back(std::move(value));
  return sealed(std::move(c));
}

}  // namespace tp::sql
