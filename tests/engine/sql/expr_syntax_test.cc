// The expression forms PostgreSQL 15's grammar spells with operators and keywords:
// ||, LIKE / ILIKE, CASE, IS TRUE / FALSE / UNKNOWN, CAST and ::, and the SQL-syntax
// functions (EXTRACT, POSITION, SUBSTRING, TRIM, CURRENT_DATE, ...). Each is checked for
// the tree the binder reads (kinds, names, argument order, flags), gram.y's precedence,
// and its syntax errors; the depth and node bounds hold for them as for the rest.
#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"
#include "engine/sql/lexer.h"
#include "engine/sql/parser.h"

namespace tp::sql {
namespace {

// `SELECT <text>` parsed, with its first select-list expression.
struct Parsed {
  Statement statement;
  const Expr& expr() const { return *std::get<Select>(statement).targets[0].expr; }
};

Parsed parse(const std::string& text) {
  return {parse_statement("SELECT " + text)};
}

// A tree as an s-expression: (operator args...). A function written in SQL's syntax is
// marked `name!`; CASE shows its layout flags.
std::string shape(const Expr& e) {
  std::string head;
  const std::string no = e.negated ? "not " : "";
  switch (e.kind) {
    case ExprKind::kIntConst:
      return std::to_string(e.ival);
    case ExprKind::kNumConst:
      return e.sval;
    case ExprKind::kStrConst:
      return "'" + e.sval + "'";
    case ExprKind::kBoolConst:
      return e.ival ? "true" : "false";
    case ExprKind::kNullConst:
      return "null";
    case ExprKind::kColumnRef:
      return e.name;
    case ExprKind::kStar:
      return "*";
    case ExprKind::kFuncCall:
      head = e.name + (e.sql_syntax ? "!" : "");
      break;
    case ExprKind::kUnary:
    case ExprKind::kBinary:
    case ExprKind::kCompare:
      head = e.name;
      break;
    case ExprKind::kAnd:
      head = "and";
      break;
    case ExprKind::kOr:
      head = "or";
      break;
    case ExprKind::kNot:
      head = "not";
      break;
    case ExprKind::kBetween:
      head = no + "between";
      break;
    case ExprKind::kInList:
      head = no + "in";
      break;
    case ExprKind::kSubLink:
      head = no + e.name + " (select)";
      break;
    case ExprKind::kCast:
      head = "::" + e.sval;
      break;
    case ExprKind::kIsNull:
      head = "is " + no + "null";
      break;
    case ExprKind::kLike:
      head = no + e.name;
      break;
    case ExprKind::kCase:
      head =
          std::string("case") + (e.case_operand ? " operand" : "") + (e.case_else ? " else" : "");
      break;
    case ExprKind::kBoolTest:
      head = "is " + no + e.name;
      break;
  }
  std::string out = "(" + head;
  for (const auto& a : e.args) out += " " + shape(*a);
  return out + ")";
}

std::string shape(const std::string& text) {
  return shape(parse(text).expr());
}

struct Failure {
  std::string message;
  std::string sqlstate;
  int position = 0;
};

Failure failure(const std::string& statement) {
  try {
    parse_statement(statement);
  } catch (const Error& e) {
    return {e.what(), e.sqlstate(), e.position()};
  }
  return {"accepted", "", 0};
}

void expect_syntax_error(const std::string& statement, const std::string& near, int position) {
  const Failure f = failure(statement);
  EXPECT_EQ(f.message, near.empty() ? "syntax error at end of input"
                                    : "syntax error at or near \"" + near + "\"")
      << statement;
  EXPECT_EQ(f.sqlstate, sqlstate::kSyntaxError) << statement;
  EXPECT_EQ(f.position, position) << statement;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(ExprSyntax, ConcatIsOneOperatorToken) {
  const std::vector<Token> t = tokenize("'a'||'b'");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[1].kind, TokenKind::kOperator);
  EXPECT_EQ(t[1].text, "||");
  EXPECT_EQ(t[1].position, 4);
  expect_syntax_error("SELECT a | b", "|", 10);
}

// gram.y: generic operators (Op, || among them) bind looser than + - * / and tighter
// than comparisons, BETWEEN, IN, LIKE and IS; left-associative.
TEST(ExprSyntax, ConcatPrecedenceIsPostgres) {
  const Parsed p = parse("'a' || 1 + 2");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kBinary);
  EXPECT_EQ(e.name, "||");
  EXPECT_EQ(e.position, 12);
  EXPECT_EQ(e.height, 3);
  EXPECT_EQ(shape(e), "(|| 'a' (+ 1 2))");
  EXPECT_EQ(shape("1 * 2 || 3 - 4"), "(|| (* 1 2) (- 3 4))");
  EXPECT_EQ(shape("-a || b::text"), "(|| (- a) (::text b))");
  EXPECT_EQ(shape("a || b || c"), "(|| (|| a b) c)");
  EXPECT_EQ(shape("x || y = z"), "(= (|| x y) z)");
  EXPECT_EQ(shape("z <> x || y"), "(<> z (|| x y))");
  EXPECT_EQ(shape("a || b BETWEEN c || d AND e || f"), "(between (|| a b) (|| c d) (|| e f))");
  EXPECT_EQ(shape("a || b IN ('x', c || d)"), "(in (|| a b) 'x' (|| c d))");
  EXPECT_EQ(shape("a || b IS NULL"), "(is null (|| a b))");
  EXPECT_EQ(shape("NOT a || b = c AND d"), "(and (not (= (|| a b) c)) d)");
  EXPECT_EQ(shape("(a || b) || c"), "(|| (|| a b) c)");
  EXPECT_EQ(shape("a || (b || c)"), "(|| a (|| b c))");
}

TEST(ExprSyntax, LikeAndIlike) {
  const Parsed p = parse("x LIKE 'a%'");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kLike);
  EXPECT_EQ(e.name, "~~");
  EXPECT_FALSE(e.negated);
  ASSERT_EQ(e.args.size(), 2u);
  EXPECT_EQ(e.args[0]->name, "x");
  EXPECT_EQ(e.args[1]->sval, "a%");
  EXPECT_EQ(e.position, 10);  // the operator, as PostgreSQL's A_Expr
  const Parsed n = parse("x NOT ILIKE 'a%'");
  EXPECT_EQ(n.expr().name, "~~*");
  EXPECT_TRUE(n.expr().negated);
  EXPECT_EQ(n.expr().position, 10);  // NOT
  EXPECT_EQ(shape("x ILIKE y"), "(~~* x y)");
  EXPECT_EQ(shape("x NOT LIKE y"), "(not ~~ x y)");
  EXPECT_EQ(shape("x LIKE 'a!%' ESCAPE '!'"), "(~~ x 'a!%' '!')");
  EXPECT_EQ(shape("x NOT LIKE y || '%' ESCAPE e || f"), "(not ~~ x (|| y '%') (|| e f))");
  // The right operand binds || and arithmetic; LIKE binds tighter than =, AND and IS.
  EXPECT_EQ(shape("x LIKE 'a' || y"), "(~~ x (|| 'a' y))");
  EXPECT_EQ(shape("x || 'b' LIKE y"), "(~~ (|| x 'b') y)");
  EXPECT_EQ(shape("x LIKE y AND z NOT ILIKE w"), "(and (~~ x y) (not ~~* z w))");
  EXPECT_EQ(shape("NOT x LIKE y"), "(not (~~ x y))");
  EXPECT_EQ(shape("a = b LIKE c"), "(= a (~~ b c))");
  EXPECT_EQ(shape("x LIKE y IS NOT TRUE"), "(is not true (~~ x y))");
}

TEST(ExprSyntax, SimilarToIsRefusedByName) {
  for (const char* text : {"SELECT x SIMILAR TO 'a'", "SELECT x NOT SIMILAR TO 'a'"}) {
    const Failure f = failure(text);
    EXPECT_EQ(f.message, "SIMILAR TO is not supported") << text;
    EXPECT_EQ(f.sqlstate, sqlstate::kFeatureNotSupported) << text;
  }
  EXPECT_EQ(failure("SELECT x SIMILAR TO 'a'").position, 10);
}

TEST(ExprSyntax, SearchedCase) {
  const Parsed p = parse("CASE WHEN a = 1 THEN 'one' WHEN b THEN 'b' ELSE 'other' END");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kCase);
  EXPECT_EQ(e.position, 8);
  EXPECT_FALSE(e.case_operand);
  EXPECT_TRUE(e.case_else);
  ASSERT_EQ(e.args.size(), 5u);
  EXPECT_EQ(shape(e), "(case else (= a 1) 'one' b 'b' 'other')");
  EXPECT_EQ(e.height, 3);
  EXPECT_EQ(shape("CASE WHEN a THEN 1 END"), "(case a 1)");
  EXPECT_EQ(shape("case when a then 1 when b then 2 end + 1"), "(+ (case a 1 b 2) 1)");
}

TEST(ExprSyntax, SimpleCase) {
  const Parsed p = parse("CASE a + 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END");
  const Expr& e = p.expr();
  EXPECT_TRUE(e.case_operand);
  EXPECT_FALSE(e.case_else);
  EXPECT_EQ(shape(e), "(case operand (+ a 1) 1 'one' 2 'two')");
  EXPECT_EQ(shape("CASE a WHEN 1 THEN 'x' ELSE CASE WHEN b THEN 'y' END END"),
            "(case operand else a 1 'x' (case b 'y'))");
  EXPECT_EQ(shape("CASE CASE WHEN a THEN b END WHEN c THEN d END"),
            "(case operand (case a b) c d)");
  // The words of CASE are PostgreSQL's reserved ones: never a column.
  expect_syntax_error("SELECT CASE WHEN a THEN end END", "end", 25);
}

TEST(ExprSyntax, MalformedCaseIsSyntaxError) {
  expect_syntax_error("SELECT CASE END", "END", 13);
  expect_syntax_error("SELECT CASE a END", "END", 15);
  expect_syntax_error("SELECT CASE ELSE 1 END", "ELSE", 13);
  expect_syntax_error("SELECT CASE WHEN a END", "END", 20);
  expect_syntax_error("SELECT CASE WHEN THEN 1 END", "THEN", 18);
  expect_syntax_error("SELECT CASE WHEN a THEN END", "END", 25);
  expect_syntax_error("SELECT CASE WHEN a THEN 1 ELSE END", "END", 32);
  expect_syntax_error("SELECT CASE WHEN a THEN 1", "", 26);
  expect_syntax_error("SELECT CASE WHEN a THEN 1 ELSE 2 WHEN b THEN 3 END", "WHEN", 34);
}

TEST(ExprSyntax, Extract) {
  const Parsed p = parse("EXTRACT(YEAR FROM d + 1)");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kFuncCall);
  EXPECT_EQ(e.name, "extract");
  EXPECT_TRUE(e.sql_syntax);
  EXPECT_EQ(e.position, 8);
  ASSERT_EQ(e.args.size(), 2u);
  EXPECT_EQ(e.args[0]->kind, ExprKind::kStrConst);
  EXPECT_EQ(e.args[0]->sval, "year");
  EXPECT_EQ(e.args[0]->position, 16);
  EXPECT_EQ(shape(e), "(extract! 'year' (+ d 1))");
  EXPECT_EQ(shape("extract(epoch from ts)"), "(extract! 'epoch' ts)");
  EXPECT_EQ(shape("extract('DOW' from ts)"), "(extract! 'dow' ts)");
  EXPECT_EQ(shape("extract(\"Month\" from ts)"), "(extract! 'month' ts)");
  EXPECT_EQ(shape("extract"), "extract");  // a column without parentheses
}

TEST(ExprSyntax, MalformedExtractIsSyntaxError) {
  expect_syntax_error("SELECT extract()", ")", 16);
  expect_syntax_error("SELECT extract(year)", ")", 20);
  expect_syntax_error("SELECT extract(year d)", "d", 21);
  expect_syntax_error("SELECT extract(year, d)", ",", 20);
  expect_syntax_error("SELECT extract(year from)", ")", 25);
  expect_syntax_error("SELECT extract(from d)", "from", 16);
  expect_syntax_error("SELECT extract(1 from d)", "1", 16);
  expect_syntax_error("SELECT extract(year from d", "", 27);
}

TEST(ExprSyntax, Position) {
  const Parsed p = parse("POSITION('b' IN 'abc')");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kFuncCall);
  EXPECT_EQ(e.name, "position");
  EXPECT_TRUE(e.sql_syntax);
  EXPECT_EQ(shape(e), "(position! 'b' 'abc')");  // the searched-for string first
  // Both operands are b_expr: || and arithmetic, never IN itself.
  EXPECT_EQ(shape("position('a' || x IN y || 'z') + 1"), "(+ (position! (|| 'a' x) (|| y 'z')) 1)");
  EXPECT_EQ(shape("position(position(a in b)::text in c)"),
            "(position! (::text (position! a b)) c)");
  EXPECT_EQ(shape("position((a IN (b)) IN c)"), "(position! (in a b) c)");
  EXPECT_EQ(shape("position"), "position");
}

TEST(ExprSyntax, MalformedPositionIsSyntaxError) {
  expect_syntax_error("SELECT position()", ")", 17);
  expect_syntax_error("SELECT position('a')", ")", 20);
  expect_syntax_error("SELECT position('a', 'b')", ",", 20);
  expect_syntax_error("SELECT position(a in b in c)", "in", 24);
  expect_syntax_error("SELECT position(a in b and c)", "and", 24);
  expect_syntax_error("SELECT position(a = b in c)", "=", 19);
  expect_syntax_error("SELECT position(a in)", ")", 21);
}

TEST(ExprSyntax, Substring) {
  EXPECT_EQ(shape("SUBSTRING(s FROM 2 FOR 3)"), "(substring! s 2 3)");
  EXPECT_EQ(shape("substring(s from a + 1)"), "(substring! s (+ a 1))");
  EXPECT_EQ(shape("substring(s for 3 from 2)"), "(substring! s 2 3)");
  const Parsed p = parse("substring(s FOR 3)");
  const Expr& e = p.expr();
  EXPECT_EQ(shape(e), "(substring! s 1 3)");
  EXPECT_EQ(e.args[1]->kind, ExprKind::kIntConst);
  EXPECT_EQ(e.args[1]->position, 0);  // not written
  const Parsed call = parse("substring(s, 2, 3)");
  EXPECT_FALSE(call.expr().sql_syntax);
  EXPECT_EQ(shape(call.expr()), "(substring s 2 3)");
  EXPECT_EQ(shape("substring(s, 2)"), "(substring s 2)");
  EXPECT_EQ(shape("substring()"), "(substring)");
  const Failure f = failure("SELECT substring(s similar 'a' escape '#')");
  EXPECT_EQ(f.message, "SIMILAR TO is not supported");
  EXPECT_EQ(f.sqlstate, sqlstate::kFeatureNotSupported);
  expect_syntax_error("SELECT substring(s from 1 from 2)", "from", 27);
  expect_syntax_error("SELECT substring(s for)", ")", 23);
}

TEST(ExprSyntax, Trim) {
  const Parsed p = parse("TRIM(BOTH 'x' FROM s)");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kFuncCall);
  EXPECT_TRUE(e.sql_syntax);
  EXPECT_EQ(shape(e), "(btrim! s 'x')");  // the characters last, as PostgreSQL's trim_list
  EXPECT_EQ(shape("trim(s)"), "(btrim! s)");
  EXPECT_EQ(shape("trim(from s)"), "(btrim! s)");
  EXPECT_EQ(shape("trim('x' from s)"), "(btrim! s 'x')");
  EXPECT_EQ(shape("trim(s, 'x')"), "(btrim! s 'x')");
  EXPECT_EQ(shape("trim(leading from s)"), "(ltrim! s)");
  EXPECT_EQ(shape("trim(leading s)"), "(ltrim! s)");
  EXPECT_EQ(shape("trim(trailing 'x' || y from s || t)"), "(rtrim! (|| s t) (|| 'x' y))");
  EXPECT_EQ(shape("trim(both from s)"), "(btrim! s)");
  expect_syntax_error("SELECT trim()", ")", 13);
  expect_syntax_error("SELECT trim(both)", ")", 17);
  expect_syntax_error("SELECT trim(a, b from c)", "from", 18);
}

TEST(ExprSyntax, DateTimeKeywords) {
  for (const char* word : {"current_date", "current_timestamp", "localtimestamp"}) {
    const Parsed p = parse(word);
    const Expr& e = p.expr();
    EXPECT_EQ(e.kind, ExprKind::kFuncCall) << word;
    EXPECT_EQ(e.name, word);
    EXPECT_TRUE(e.sql_syntax) << word;
    EXPECT_TRUE(e.args.empty()) << word;
    EXPECT_EQ(e.position, 8) << word;
  }
  EXPECT_EQ(shape("CURRENT_DATE - 1"), "(- (current_date!) 1)");
  EXPECT_EQ(shape("LocalTimestamp"), "(localtimestamp!)");
  EXPECT_EQ(shape("\"current_date\""), "current_date");  // quoted: a column
  expect_syntax_error("SELECT current_date()", "(", 20);
  const Failure f = failure("SELECT current_timestamp(3)");
  EXPECT_EQ(f.message, "CURRENT_TIMESTAMP(precision) is not supported");
  EXPECT_EQ(f.sqlstate, sqlstate::kFeatureNotSupported);
  EXPECT_EQ(failure("SELECT localtimestamp(0)").message,
            "LOCALTIMESTAMP(precision) is not supported");
}

TEST(ExprSyntax, ConditionalFunctionsAreCalls) {
  EXPECT_EQ(shape("COALESCE(a, b, 1)"), "(coalesce a b 1)");
  EXPECT_EQ(shape("NULLIF(a, '')"), "(nullif a '')");
  EXPECT_EQ(shape("GREATEST(1, a, 2.5)"), "(greatest 1 a 2.5)");
  EXPECT_EQ(shape("least(a || b, c)"), "(least (|| a b) c)");
}

TEST(ExprSyntax, CastsKeepTheirType) {
  const Parsed p = parse("1::int");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kCast);
  EXPECT_EQ(e.name, "int");
  EXPECT_EQ(e.sval, "int4");
  EXPECT_EQ(e.position, 9);
  EXPECT_EQ(e.cast_type.id, TypeId::kInt4);
  EXPECT_EQ(e.cast_type.typmod, kNoTypmod);
  EXPECT_EQ(e.cast_type.position, 11);
  const Parsed c = parse("CAST('1.5' AS numeric(5,2))");
  const Expr& n = c.expr();
  EXPECT_EQ(n.kind, ExprKind::kCast);
  EXPECT_EQ(n.position, 8);  // CAST
  EXPECT_EQ(n.name, "");     // the constant evaluator has no numeric(5,2)
  EXPECT_EQ(n.sval, "numeric");
  EXPECT_EQ(n.cast_type.id, TypeId::kNumeric);
  EXPECT_EQ(n.cast_type.typmod, numeric_typmod(5, 2));
  EXPECT_EQ(n.cast_type.position, 22);
  for (const auto& [text, id, name] : std::vector<std::tuple<std::string, TypeId, std::string>>{
           {"cast(a as bigint)", TypeId::kInt8, "bigint"},
           {"a::double precision", TypeId::kFloat8, "float8"},
           {"a::real", TypeId::kFloat4, "float8"},
           {"cast(a as text)", TypeId::kText, "text"},
           {"a::varchar(3)", TypeId::kVarchar, ""},
           {"a::date", TypeId::kDate, ""},
           {"cast(a as timestamp(3))", TypeId::kTimestamp, ""},
           {"a::interval", TypeId::kInterval, ""},
           {"a::boolean", TypeId::kBool, ""},
           {"a::smallint", TypeId::kInt2, ""}}) {
    const Parsed x = parse(text);
    EXPECT_EQ(x.expr().kind, ExprKind::kCast) << text;
    EXPECT_EQ(x.expr().cast_type.id, id) << text;
    EXPECT_EQ(x.expr().name, name) << text;
  }
  const Parsed r = parse("CAST('t' AS regclass)");
  EXPECT_EQ(r.expr().name, "regclass");
  EXPECT_EQ(r.expr().sval, "regclass");
  EXPECT_EQ(r.expr().cast_type.position, 20);
  EXPECT_EQ(shape("CAST(a || b AS text)::int + 1"), "(+ (::int4 (::text (|| a b))) 1)");
  EXPECT_EQ(failure("SELECT CAST(1 AS nosuch)").message, "type \"nosuch\" does not exist");
  expect_syntax_error("SELECT CAST(1 int)", "int", 15);
  expect_syntax_error("SELECT CAST(1 AS)", ")", 17);
  expect_syntax_error("SELECT CAST(1 AS int", "", 21);
}

TEST(ExprSyntax, BooleanTests) {
  const Parsed p = parse("x IS NOT TRUE");
  const Expr& e = p.expr();
  EXPECT_EQ(e.kind, ExprKind::kBoolTest);
  EXPECT_EQ(e.name, "true");
  EXPECT_TRUE(e.negated);
  ASSERT_EQ(e.args.size(), 1u);
  EXPECT_EQ(shape("x IS TRUE"), "(is true x)");
  EXPECT_EQ(shape("x IS FALSE"), "(is false x)");
  EXPECT_EQ(shape("x IS NOT FALSE"), "(is not false x)");
  EXPECT_EQ(shape("x IS UNKNOWN"), "(is unknown x)");
  EXPECT_EQ(shape("x IS NOT UNKNOWN"), "(is not unknown x)");
  EXPECT_EQ(shape("x IS NULL"), "(is null x)");
  // IS binds looser than comparisons, tighter than NOT.
  EXPECT_EQ(shape("a = b IS TRUE"), "(is true (= a b))");
  EXPECT_EQ(shape("NOT a IS FALSE"), "(not (is false a))");
  EXPECT_EQ(shape("a IS NULL IS NOT TRUE"), "(is not true (is null a))");
  EXPECT_EQ(failure("SELECT a IS NOT DISTINCT FROM b").message,
            "IS NOT DISTINCT FROM is not supported");
  expect_syntax_error("SELECT a IS 1", "1", 13);
}

TEST(ExprSyntax, NestingIsBoundedAsElsewhere) {
  const std::string kDepth = "stack depth limit exceeded";
  EXPECT_EQ(failure("SELECT " + repeat("CASE WHEN true THEN ", 5000) + "1" + repeat(" END", 5000))
                .message,
            kDepth);
  EXPECT_EQ(failure("SELECT " + repeat("CASE ", 50000)).message, kDepth);
  EXPECT_EQ(
      failure("SELECT " + repeat("position(", 20000) + "'a'" + repeat(" in 'b')", 20000)).message,
      kDepth);
  EXPECT_EQ(failure("SELECT " + repeat("position(", 100000)).message, kDepth);
  EXPECT_EQ(failure("SELECT " + repeat("trim(", 20000) + "s" + repeat(")", 20000)).message, kDepth);
  EXPECT_EQ(failure("SELECT " + repeat("cast(", 20000) + "1" + repeat(" as int)", 20000)).message,
            kDepth);
  EXPECT_EQ(
      failure("SELECT " + repeat("extract(year from ", 20000) + "1" + repeat(")", 20000)).message,
      kDepth);
  EXPECT_EQ(
      failure("SELECT " + repeat("substring(", 20000) + "1" + repeat(" for 1)", 20000)).message,
      kDepth);
  // A chain of || or IS tests makes a tree as tall as the chain: bounded by its height.
  EXPECT_EQ(failure("SELECT 'a'" + repeat(" || 'a'", 50000)).message, kDepth);
  EXPECT_EQ(failure("SELECT a" + repeat(" IS TRUE", 50000)).message, kDepth);
  // Ordinary nesting passes.
  EXPECT_EQ(parse(repeat("CASE WHEN a THEN ", 100) + "1" + repeat(" END", 100)).expr().height, 101);
  EXPECT_EQ(parse("'a'" + repeat(" || 'a'", 500)).expr().height, 501);
  EXPECT_EQ(parse(repeat("position(", 100) + "'a'" + repeat(" in 'b')", 100)).expr().height, 101);
  // A wide CASE is flat.
  EXPECT_EQ(parse("CASE" + repeat(" WHEN a THEN 1", 5000) + " END").expr().args.size(), 10000u);
}

TEST(ExprSyntax, NewNodesCountAgainstTheBudget) {
  ParsedNodeBudget budget(100);
  const Failure f = failure("SELECT CASE" + repeat(" WHEN a THEN 1", 100) + " END");
  EXPECT_EQ(f.sqlstate, sqlstate::kStatementTooComplex);
  EXPECT_EQ(f.message, "statement is too complex: more than 1000000 expressions");
}

}  // namespace
}  // namespace tp::sql
