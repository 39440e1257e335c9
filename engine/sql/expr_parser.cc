#include "engine/sql/expr_parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/sql/params.h"

namespace tp::sql {

ExprParser::ExprParser(std::string_view text, std::vector<std::string>* notices)
    : TokenCursor(text, notices), notices_(notices), max_depth_(max_expression_depth()) {}

// Every node a parse makes is counted against its budget (ast.h).
void ParsedNodeBudget::take_node() {
  if (left_ == 0)
    throw Error(
        "statement is too complex: more than " + std::to_string(kMaxParsedNodes) + " expressions",
        "", "Split it into several statements, or make many rows with generate_series.")
        .with_sqlstate(sqlstate::kStatementTooComplex);
  --left_;
  if (++made_ % 4096 == 0) publish();
}

// A numeric literal (a fraction, an exponent, or an integer beyond bigint). The
// text is kept for exact conversion and display; PostgreSQL's numeric input
// refuses exponents beyond +-1000 and more than 131072 digits before the point.
ExprPtr ExprParser::numeric_constant(const Token& t) {
  size_t e = t.text.find_first_of("eE");
  size_t int_digits = std::min(t.text.find('.'), std::min(e, t.text.size()));
  if (e != std::string::npos) {
    std::string_view x(t.text);
    x.remove_prefix(e + 1);
    if (!x.empty() && (x[0] == '+' || x[0] == '-')) x.remove_prefix(1);
    size_t first = x.find_first_not_of('0');
    if (first != std::string_view::npos &&
        (x.size() - first > 4 || std::stoi(std::string(x.substr(first))) > 1000))
      throw Error("invalid input syntax for type numeric: \"" + t.text + "\"")
          .at_position(t.position)
          .with_sqlstate(sqlstate::kInvalidTextRepresentation);
  }
  if (int_digits > 131072)
    throw Error("value overflows numeric format")
        .at_position(t.position)
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  auto c = std::make_unique<Expr>(ExprKind::kNumConst, t.position);
  c->dval = std::strtod(t.text.c_str(), nullptr);
  c->sval = t.text;
  return c;
}

ExprPtr ExprParser::expr() {
  Nest nest(*this);
  return or_expr();
}

// Each level below keeps its recursive frame small: the work past the operand
// (building a node, its strings and temporaries) is in a separate *_rest
// function, so a level of parentheses costs little stack even under ASan.
ExprPtr ExprParser::or_expr() {
  ExprPtr left = and_expr();
  if (!is_word("or")) return left;
  return or_rest(std::move(left));
}

ExprPtr ExprParser::or_rest(ExprPtr left) {
  auto e = std::make_unique<Expr>(ExprKind::kOr, left->position);
  e->args.push_back(std::move(left));
  while (accept_word("or")) e->args.push_back(and_expr());
  return sealed(std::move(e));
}

ExprPtr ExprParser::and_expr() {
  ExprPtr left = not_expr();
  if (!is_word("and")) return left;
  return and_rest(std::move(left));
}

ExprPtr ExprParser::and_rest(ExprPtr left) {
  auto e = std::make_unique<Expr>(ExprKind::kAnd, left->position);
  e->args.push_back(std::move(left));
  while (accept_word("and")) e->args.push_back(not_expr());
  return sealed(std::move(e));
}

ExprPtr ExprParser::not_expr() {
  if (!is_word("not")) return comparison();
  return negation();
}

ExprPtr ExprParser::negation() {
  int pos = next().position;
  Nest nest(*this);
  auto e = std::make_unique<Expr>(ExprKind::kNot, pos);
  e->args.push_back(not_expr());
  return sealed(std::move(e));
}

// PostgreSQL's precedence below NOT, lowest first: IS tests, comparisons, then BETWEEN /
// IN / LIKE (each non-associative: one of a kind a level), then generic operators (||).
ExprPtr ExprParser::comparison() {
  ExprPtr left = operator_expr();
  if (peek().kind == TokenKind::kEnd || peek().kind == TokenKind::kPunct) return left;
  return comparison_rest(std::move(left));
}

// Kept out of comparison(), which every level of parentheses passes through:
// its strings and temporaries would otherwise sit in each of those frames.
ExprPtr ExprParser::comparison_rest(ExprPtr left) {
  left = predicate(std::move(left));
  for (const char* op : {"=", "<>", "!=", "<=", ">=", "<", ">"}) {
    if (!is_op(op)) continue;
    int pos = next().position;
    const std::string name = std::string(op) == "!=" ? "<>" : op;
    if ((is_word("any") || is_word("some") || is_word("all")) && is_punct_at("(", 1)) {
      left = array_comparison(std::move(left), name, pos);
    } else {
      auto e = std::make_unique<Expr>(ExprKind::kCompare, pos);
      e->name = name;
      e->args.push_back(std::move(left));
      e->args.push_back(predicate(operator_expr()));
      left = sealed(std::move(e));
    }
    break;
  }
  while (is_word("is") || is_word("isnull") || is_word("notnull"))
    left = null_test(std::move(left));
  return left;
}

// `left [NOT] BETWEEN / IN / LIKE / ILIKE ...` when one follows, else `left` itself. The
// operands bind generic operators and arithmetic (gram.y's precedence puts Op above them).
ExprPtr ExprParser::predicate(ExprPtr left) {
  bool negated = false;
  int pos = peek().position;
  if (is_word("not") && (is_word("between", 1) || is_word("in", 1) || is_word("like", 1) ||
                         is_word("ilike", 1) || is_word("similar", 1))) {
    next();
    negated = true;
  }
  if (accept_word("between")) {
    auto e = std::make_unique<Expr>(ExprKind::kBetween, left->position);
    e->negated = negated;
    e->args.push_back(std::move(left));
    if (accept_word("symmetric")) {
      e->symmetric = true;
    } else {
      accept_word("asymmetric");
    }
    e->args.push_back(operator_expr());
    expect_word("and");
    e->args.push_back(operator_expr());
    return sealed(std::move(e));
  }
  if (accept_word("in")) {
    auto e = std::make_unique<Expr>(ExprKind::kInList, left->position);
    e->negated = negated;
    e->args.push_back(std::move(left));
    expect_punct("(");
    if (is_word("select")) {
      e->kind = ExprKind::kSubLink;
      e->name = "in";
      e->subselect = subselect();
      expect_punct(")");
      return sealed(std::move(e));
    }
    refuse_subquery();
    if (!integer_items(*e)) {
      do e->args.push_back(expr());
      while (accept_punct(","));
    }
    expect_punct(")");
    return sealed(std::move(e));
  }
  if (is_word("like") || is_word("ilike")) {
    auto e = std::make_unique<Expr>(ExprKind::kLike, pos);
    e->name = next().text == "ilike" ? "~~*" : "~~";
    e->negated = negated;
    e->args.push_back(std::move(left));
    e->args.push_back(operator_expr());
    if (accept_word("escape")) e->args.push_back(operator_expr());
    return sealed(std::move(e));
  }
  if (is_word("similar"))
    throw Error("SIMILAR TO is not supported")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  return left;
}

// `left = ANY (array)` and `left <> ALL (array)` over an array constant ('{1,2}',
// '{1,2}'::int[] or ARRAY[1, 2]): PostgreSQL's form of IN and NOT IN, read as those.
// Other operators with ANY / ALL, and subqueries, are refused by name.
ExprPtr ExprParser::array_comparison(ExprPtr left, const std::string& op, int pos) {
  Token quantifier = next();
  const bool all = quantifier.text == "all";
  expect_punct("(");
  if (!((op == "=" && !all) || (op == "<>" && all)))
    throw Error(op + " " + (all ? "ALL" : "ANY") + " (...) is not supported; = ANY and <> ALL are")
        .at_position(pos)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  refuse_subquery();
  auto e = std::make_unique<Expr>(ExprKind::kInList, left->position);
  e->negated = all;
  e->array = true;
  e->args.push_back(std::move(left));
  // A string literal's elements take the column's type, integer: a fraction there is
  // an error unless the literal is cast to numeric[] (ARRAY[...] takes its elements'
  // common type, so a fraction makes it numeric).
  std::string fraction;  // the first fractional element of a string literal
  int literal_pos = 0;
  if (accept_word("array")) {
    expect_punct("[");
    if (!is_punct("]")) {
      do e->args.push_back(expr());
      while (accept_punct(","));
    }
    expect_punct("]");
  } else {
    Token t = peek();
    if (t.kind != TokenKind::kString) syntax_error();
    next();
    std::string body = t.text;
    if (body.size() < 2 || body.front() != '{' || body.back() != '}')
      throw Error("malformed array literal: \"" + t.text + "\"")
          .at_position(t.position)
          .with_sqlstate(sqlstate::kInvalidTextRepresentation);
    body = body.substr(1, body.size() - 2);
    size_t start = 0;
    while (!body.empty() && start <= body.size()) {
      size_t comma = body.find(',', start);
      std::string item =
          body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      while (!item.empty() && item.front() == ' ') item.erase(0, 1);
      while (!item.empty() && item.back() == ' ') item.pop_back();
      ExprParser element(item, nullptr);
      ExprPtr v = element.expr();
      if (element.peek().kind != TokenKind::kEnd ||
          (v->kind != ExprKind::kIntConst && v->kind != ExprKind::kNumConst &&
           v->kind != ExprKind::kNullConst))
        throw Error("invalid input syntax for type integer: \"" + item + "\"")
            .at_position(t.position)
            .with_sqlstate(sqlstate::kInvalidTextRepresentation);
      v->position = t.position;
      if (v->kind == ExprKind::kNumConst && fraction.empty()) fraction = item;
      e->args.push_back(std::move(v));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    literal_pos = t.position;
  }
  // An optional cast of the array: ::int[], ::integer[], ::bigint[], ::numeric[].
  std::string cast;
  if (accept_op("::")) {
    cast = identifier();
    expect_punct("[");
    expect_punct("]");
  }
  if (!fraction.empty() && cast != "numeric")
    throw Error("invalid input syntax for type integer: \"" + fraction + "\"")
        .at_position(literal_pos)
        .with_sqlstate(sqlstate::kInvalidTextRepresentation);
  expect_punct(")");
  // An empty array stays one too: = ANY is never true, <> ALL always.
  return sealed(std::move(e));
}

// `left IS [NOT] NULL` (and PostgreSQL's `left ISNULL` / `left NOTNULL`), `left IS [NOT]
// TRUE / FALSE / UNKNOWN`. The other IS tests (DISTINCT FROM, JSON, NORMALIZED) are
// refused by name.
ExprPtr ExprParser::null_test(ExprPtr left) {
  bool negated = false;
  const char* test = "null";
  if (accept_word("isnull")) {
  } else if (accept_word("notnull")) {
    negated = true;
  } else {
    expect_word("is");
    negated = accept_word("not");
    test = nullptr;
    for (const char* w : {"null", "true", "false", "unknown"})
      if (!test && accept_word(w)) test = w;
    if (!test) {
      Token t = peek();
      if (t.kind == TokenKind::kIdentifier && !t.quoted)
        for (const char* w : {"distinct", "json", "normalized"})
          if (t.text == w) {
            std::string what = std::string(w) == "distinct" ? "DISTINCT FROM" : t.text;
            for (char& c : what) c = char(std::toupper(static_cast<unsigned char>(c)));
            throw Error(std::string("IS ") + (negated ? "NOT " : "") + what + " is not supported")
                .at_position(t.position)
                .with_sqlstate(sqlstate::kFeatureNotSupported);
          }
      syntax_error();
    }
  }
  const bool is_null = std::string_view(test) == "null";
  auto e =
      std::make_unique<Expr>(is_null ? ExprKind::kIsNull : ExprKind::kBoolTest, left->position);
  if (!is_null) e->name = test;
  e->negated = negated;
  e->args.push_back(std::move(left));
  return sealed(std::move(e));
}

// Generic operators (gram.y's Op): || only, left-associative, looser than + and -.
ExprPtr ExprParser::operator_expr() {
  ExprPtr left = additive();
  if (!is_op("||")) return left;
  return operator_rest(std::move(left));
}

ExprPtr ExprParser::operator_rest(ExprPtr left) {
  while (is_op("||")) {
    Token t = next();
    auto e = std::make_unique<Expr>(ExprKind::kBinary, t.position);
    e->name = t.text;
    e->args.push_back(std::move(left));
    e->args.push_back(additive());
    left = sealed(std::move(e));
  }
  return left;
}

ExprPtr ExprParser::additive() {
  ExprPtr left = multiplicative();
  if (!is_op("+") && !is_op("-")) return left;
  return additive_rest(std::move(left));
}

ExprPtr ExprParser::additive_rest(ExprPtr left) {
  while (is_op("+") || is_op("-")) {
    Token t = next();
    auto e = std::make_unique<Expr>(ExprKind::kBinary, t.position);
    e->name = t.text;
    e->args.push_back(std::move(left));
    e->args.push_back(multiplicative());
    left = sealed(std::move(e));
  }
  return left;
}

ExprPtr ExprParser::multiplicative() {
  ExprPtr left = at_time_zone();
  if (!is_op("*") && !is_op("/") && !is_op("%")) return left;
  return multiplicative_rest(std::move(left));
}

// x AT TIME ZONE zone: timezone(zone, x) in SQL syntax, binding looser than a sign
// and a cast and tighter than * / %, as gram.y's AT.
ExprPtr ExprParser::at_time_zone() {
  ExprPtr left = unary();
  while (is_word("at") && is_word("time", 1) && is_word("zone", 2)) {
    const int pos = next().position;
    next();
    next();
    ExprPtr e = sql_function("timezone", pos);
    e->args.push_back(unary());
    e->args.push_back(std::move(left));
    left = sealed(std::move(e));
  }
  return left;
}

ExprPtr ExprParser::multiplicative_rest(ExprPtr left) {
  while (is_op("*") || is_op("/") || is_op("%")) {
    Token t = next();
    auto e = std::make_unique<Expr>(ExprKind::kBinary, t.position);
    e->name = t.text;
    e->args.push_back(std::move(left));
    e->args.push_back(at_time_zone());
    left = sealed(std::move(e));
  }
  return left;
}

ExprPtr ExprParser::unary() {
  if (!is_op("-") && !is_op("+")) return cast();
  return signed_operand();
}

ExprPtr ExprParser::signed_operand() {
  Token t = next();
  Nest nest(*this);
  ExprPtr operand = unary();
  // Fold -literal so that -2147483648 is a valid int4 constant and
  // -9223372036854775808 a valid bigint (it is numeric until negated).
  if (t.text == "-" && operand->kind == ExprKind::kIntConst &&
      operand->ival != std::numeric_limits<int64_t>::min()) {
    operand->ival = -operand->ival;
    operand->position = t.position;
    return operand;
  }
  if (t.text == "-" && operand->kind == ExprKind::kNumConst) {
    operand->dval = -operand->dval;
    operand->sval = operand->sval.starts_with('-') ? operand->sval.substr(1) : "-" + operand->sval;
    if (operand->sval == "-9223372036854775808") {
      operand->kind = ExprKind::kIntConst;
      operand->ival = std::numeric_limits<int64_t>::min();
    }
    operand->position = t.position;
    return operand;
  }
  auto e = std::make_unique<Expr>(ExprKind::kUnary, t.position);
  e->name = t.text;
  e->args.push_back(std::move(operand));
  return sealed(std::move(e));
}

ExprPtr ExprParser::cast() {
  ExprPtr e = primary();
  if (!is_op("::")) return e;
  return cast_rest(std::move(e));
}

ExprPtr ExprParser::cast_rest(ExprPtr e) {
  while (is_op("::")) {
    int pos = next().position;
    e = cast_to_type(std::move(e), pos);
  }
  return e;
}

// The type of `operand::type` or CAST(operand AS type), at the cursor.
ExprPtr ExprParser::cast_to_type(ExprPtr operand, int pos) {
  auto c = std::make_unique<Expr>(ExprKind::kCast, pos);
  c->cast_type.position = peek().position;
  // PostgreSQL's OID alias types, which name a relation or a type; pg_catalog.
  // qualified as drivers write them.
  const bool qualified = is_word("pg_catalog") && is_punct_at(".", 1) &&
                         (is_word("regclass", 2) || is_word("regtype", 2));
  if (qualified) {
    next();
    next();
  }
  if (is_word("regclass") || is_word("regtype")) {
    c->name = c->sval = next().text;
    // `$1::regclass` takes the name as text (PostgreSQL's type would be regclass,
    // whose text form is the same name).
    if (StatementParams* params = current_params(); params && operand->param != 0)
      params->infer(operand->param, TypeId::kText);
  } else {
    c->cast_type = type_name();
    c->name = cast_target(c->cast_type);
    c->sval = type_info(c->cast_type.id).pg_name;
  }
  c->args.push_back(std::move(operand));
  return sealed(std::move(c));
}

// What the constant evaluator casts to (engine/sql/value.h's cast_value): real is
// computed as double precision there. "" for the types it has no values of: the cast
// is refused when evaluated, so a typed evaluator may still compute it.
std::string ExprParser::cast_target(const TypeRef& t) const {
  switch (t.id) {
    case TypeId::kInt4:
      return "int";
    case TypeId::kInt8:
      return "bigint";
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return "float8";
    case TypeId::kNumeric:
      return t.typmod == kNoTypmod ? "numeric" : "";
    case TypeId::kText:
      return "text";
    default:
      return "";
  }
}

ExprPtr ExprParser::primary() {
  if (!is_punct("(")) return primary_leaf();
  const int pos = next().position;
  if (is_word("select")) {
    // A scalar subquery: PostgreSQL's EXPR_SUBLINK.
    auto e = std::make_unique<Expr>(ExprKind::kSubLink, pos);
    e->name = "expr";
    e->subselect = subselect();
    expect_punct(")");
    return e;
  }
  refuse_subquery();
  ExprPtr e = expr();
  expect_punct(")");
  return e;
}

// `name(args)` at the cursor, its name token `t` already peeked: count(*), DISTINCT or
// ALL before the arguments; FILTER, OVER and WITHIN GROUP after them are refused by name.
ExprPtr ExprParser::function_call(const Token& t) {
  next();
  next();
  auto e = std::make_unique<Expr>(ExprKind::kFuncCall, t.position);
  e->name = t.text;
  if (is_op("*")) {
    next();
    e->star_arg = true;
  } else if (!is_punct(")")) {
    if (accept_word("distinct")) {
      e->distinct = true;
    } else {
      accept_word("all");
    }
    do e->args.push_back(expr());
    while (accept_punct(","));
  }
  expect_punct(")");
  for (const auto& [word, what] :
       {std::pair<const char*, const char*>{"filter", "aggregate FILTER"},
        {"over", "window functions"},
        {"within", "WITHIN GROUP"}})
    if (is_word(word))
      throw Error(std::string(what) + " " + (std::string(word) == "over" ? "are" : "is") +
                  " not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
  return sealed(std::move(e));
}

// Everything but parentheses; its own frame keeps primary() small (see comparison_rest).
ExprPtr ExprParser::primary_leaf() {
  Token t = peek();
  switch (t.kind) {
    case TokenKind::kInteger: {
      next();
      errno = 0;
      long long v = std::strtoll(t.text.c_str(), nullptr, 10);
      if (errno == ERANGE) return numeric_constant(t);  // PostgreSQL's numeric too
      auto e = std::make_unique<Expr>(ExprKind::kIntConst, t.position);
      e->ival = v;
      return e;
    }
    case TokenKind::kNumeric:
      next();
      return numeric_constant(t);
    case TokenKind::kString: {
      next();
      auto e = std::make_unique<Expr>(ExprKind::kStrConst, t.position);
      e->sval = t.text;
      return e;
    }
    case TokenKind::kParam:
      next();
      return parameter(t);
    case TokenKind::kPunct:
      syntax_error();
    case TokenKind::kOperator:
      if (t.text == "*") {
        next();
        return std::make_unique<Expr>(ExprKind::kStar, t.position);
      }
      syntax_error();
    case TokenKind::kIdentifier: {
      if (!t.quoted) {
        const std::string_view word = t.text;  // compared with literals: lengths first
        if (word == "true" || word == "false") {
          next();
          auto e = std::make_unique<Expr>(ExprKind::kBoolConst, t.position);
          e->ival = word == "true";
          return e;
        }
        if (word == "null") {
          next();
          return std::make_unique<Expr>(ExprKind::kNullConst, t.position);
        }
        if (word == "exists" && is_punct_at("(", 1)) {
          next();
          next();
          auto e = std::make_unique<Expr>(ExprKind::kSubLink, t.position);
          e->name = "exists";
          e->subselect = subselect();
          expect_punct(")");
          return e;
        }
        if (ExprPtr e = keyword_form(t)) return e;
      }
      // left( and right( are the functions (PostgreSQL's type_func_name keywords).
      const bool function_word =
          t.quoted || !is_reserved(t.text) || t.text == "left" || t.text == "right";
      if (peek(1).kind == TokenKind::kPunct && peek(1).text == "(" && function_word) {
        return function_call(t);
      }
      return column_ref(t);
    }
    default:
      syntax_error();
  }
}

}  // namespace tp::sql
