#include "engine/sql/parser.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "tools/shell/psql_format.h"

namespace tp::sql {
namespace {

struct SyntaxError {
  std::string message;
  int position;
};

SyntaxError error_for(const std::string& text) {
  try {
    parse_statement(text);
  } catch (const Error& e) {
    return {e.what(), e.position()};
  }
  return {"", 0};
}

TEST(Parser, CreateTableWithFillfactor) {
  auto st = parse_statement("CREATE TABLE t (a int, b bigint) WITH (fillfactor=10);");
  auto& ct = std::get<CreateTable>(st);
  EXPECT_EQ(ct.name, "t");
  ASSERT_EQ(ct.columns.size(), 2u);
  EXPECT_EQ(ct.columns[1].type.id, TypeId::kInt8);
  EXPECT_EQ(ct.fillfactor, 10);
}

TEST(Parser, AlterTableSetAndResetOptions) {
  auto set =
      parse_statement("ALTER TABLE IF EXISTS t SET (parallel_workers = 8, fillfactor = '50')");
  auto& at = std::get<AlterTable>(set);
  EXPECT_EQ(at.name, "t");
  EXPECT_TRUE(at.if_exists);
  EXPECT_FALSE(at.reset);
  ASSERT_EQ(at.options.size(), 2u);
  EXPECT_EQ(at.options[0].name, "parallel_workers");
  EXPECT_EQ(at.options[0].value, std::optional<std::string>("8"));
  EXPECT_EQ(at.options[1].value, std::optional<std::string>("50"));
  auto reset = parse_statement("alter table t reset (parallel_workers)");
  EXPECT_TRUE(std::get<AlterTable>(reset).reset);
  EXPECT_FALSE(std::get<AlterTable>(reset).options[0].value.has_value());
  auto ct = parse_statement("CREATE TABLE t (a int) WITH (parallel_workers = 4)");
  EXPECT_EQ(std::get<CreateTable>(ct).parallel_workers, 4);
  EXPECT_EQ(error_for("ALTER TABLE t ADD COLUMN b int").message,
            "ALTER TABLE ... ADD supports PRIMARY KEY (...) only");
  EXPECT_EQ(error_for("UPDATE t SET a = 1").message, "UPDATE is not supported by tidepool");
  EXPECT_EQ(error_for("delete from t").message, "DELETE is not supported by tidepool");
  EXPECT_EQ(error_for("DECLARE c CURSOR FOR SELECT 1").message,
            "cursors (DECLARE, FETCH, MOVE) are not supported by tidepool");
  EXPECT_EQ(error_for("ALTER TABLE t DROP COLUMN b").message,
            "ALTER TABLE supports SET (...), RESET (...) and ADD PRIMARY KEY (...) only");
  auto pk =
      std::get<AlterTable>(parse_statement("alter table t add constraint t_k primary key (a, b)"));
  EXPECT_EQ(pk.add_primary_key, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(pk.constraint_name, "t_k");
}

TEST(Parser, PrimaryKeyColumnAndConstraint) {
  auto one = parse_statement("CREATE TABLE test (major int PRIMARY KEY, minor int)");
  EXPECT_EQ(std::get<CreateTable>(one).primary_key, std::vector<std::string>{"major"});
  auto two = parse_statement("create table x (a int, b int, primary key (a, b))");
  EXPECT_EQ(std::get<CreateTable>(two).primary_key, (std::vector<std::string>{"a", "b"}));
}

TEST(Parser, FillfactorOutOfRangeNamesTheBounds) {
  auto e = error_for("CREATE TABLE t (a int) WITH (fillfactor = 5)");
  EXPECT_EQ(e.message, "value 5 out of bounds for option \"fillfactor\"");
}

TEST(Parser, InsertSelectFromGenerateSeriesWithUnderscores) {
  auto st = parse_statement(
      "INSERT INTO t SELECT i, i FROM generate_series(1, 10_000_000) s(i) ORDER BY random()");
  auto& ins = std::get<Insert>(st);
  ASSERT_TRUE(ins.source.from.has_value());
  EXPECT_TRUE(ins.source.from->is_function);
  EXPECT_EQ(ins.source.from->func_args[1]->ival, 10000000);
  EXPECT_EQ(ins.source.from->column_aliases, std::vector<std::string>{"i"});
  ASSERT_EQ(ins.source.order_by.size(), 1u);
  EXPECT_EQ(ins.source.order_by[0].expr->name, "random");
}

TEST(Parser, InsertValuesWithSetReturningFunction) {
  auto st =
      parse_statement("INSERT INTO test VALUES (generate_series(0, 100000000), random()*1000)");
  auto& ins = std::get<Insert>(st);
  ASSERT_EQ(ins.source.values.size(), 1u);
  EXPECT_EQ(ins.source.values[0][0]->name, "generate_series");
  EXPECT_EQ(ins.source.values[0][1]->kind, ExprKind::kBinary);
}

TEST(Parser, OperatorPrecedence) {
  auto st = parse_statement("SELECT 1 + 2 * 3 - 4 % 3");
  auto& e = *std::get<Select>(st).targets[0].expr;
  EXPECT_EQ(e.name, "-");  // (1 + (2*3)) - (4%3)
  EXPECT_EQ(e.args[0]->name, "+");
  EXPECT_EQ(e.args[0]->args[1]->name, "*");
}

TEST(Parser, WhereWithBetweenOrInNot) {
  auto st = parse_statement(
      "SELECT * FROM test WHERE major BETWEEN 10 AND 100 OR minor NOT IN (1, 2) AND NOT b < 3");
  auto& w = *std::get<Select>(st).where;
  EXPECT_EQ(w.kind, ExprKind::kOr);
  EXPECT_EQ(w.args[0]->kind, ExprKind::kBetween);
  EXPECT_EQ(w.args[1]->kind, ExprKind::kAnd);
  EXPECT_TRUE(w.args[1]->args[0]->negated);
}

// UNION is left-deep as written; ORDER BY and LIMIT after the last branch are the
// whole's, a parenthesised branch keeps its own.
TEST(Parser, UnionTreeAndItsClauses) {
  auto st = parse_statement(
      "SELECT a FROM t UNION SELECT b FROM u UNION ALL (SELECT c FROM v ORDER BY c LIMIT 2) "
      "ORDER BY 1 DESC LIMIT 5");
  const Select& top = std::get<Select>(st);
  ASSERT_TRUE(top.set_operation);
  EXPECT_TRUE(top.set_operation->all);
  ASSERT_EQ(top.order_by.size(), 1u);
  EXPECT_TRUE(top.order_by[0].descending);
  EXPECT_EQ(top.limit, 5);
  const Select& left = *top.set_operation->left;
  ASSERT_TRUE(left.set_operation);
  EXPECT_FALSE(left.set_operation->all);
  EXPECT_EQ(left.set_operation->left->from->name, "t");
  EXPECT_TRUE(left.set_operation->left->order_by.empty());
  const Select& right = *top.set_operation->right;
  EXPECT_FALSE(right.set_operation);
  EXPECT_EQ(right.from->name, "v");
  EXPECT_EQ(right.limit, 2);
  EXPECT_EQ(right.order_by.size(), 1u);
  EXPECT_TRUE(
      std::get<Select>(parse_statement("(SELECT 1) UNION DISTINCT SELECT 2")).set_operation);
  auto e = error_for("(SELECT a FROM t ORDER BY a) ORDER BY a");
  EXPECT_EQ(e.message, "multiple ORDER BY clauses not allowed");
  e = error_for("(SELECT a FROM t LIMIT 1) LIMIT 2");
  EXPECT_EQ(e.message, "multiple LIMIT clauses not allowed");
  e = error_for("SELECT a FROM t ORDER BY a UNION SELECT b FROM u");
  EXPECT_EQ(e.message, "syntax error at or near \"UNION\"");
  e = error_for("SELECT a FROM t INTERSECT SELECT b FROM u");
  EXPECT_EQ(e.message, "INTERSECT is not supported");
  e = error_for("SELECT * FROM (SELECT a FROM t UNION SELECT b FROM u) s");
  EXPECT_EQ(e.message, "UNION in a subquery is not supported");
}

TEST(Parser, SetForms) {
  EXPECT_EQ(std::get<SetStmt>(parse_statement("SET work_mem = '64MB'")).value, "64MB");
  EXPECT_EQ(std::get<SetStmt>(parse_statement("set io_method to worker")).value, "worker");
  EXPECT_TRUE(std::get<SetStmt>(parse_statement("SET x TO DEFAULT")).to_default);
  EXPECT_EQ(std::get<SetStmt>(parse_statement("SET x = -3")).value, "-3");
}

TEST(Parser, SyntaxErrorNamesTokenAndPosition) {
  auto e = error_for("SELECT * FRM t");
  EXPECT_EQ(e.message, "syntax error at or near \"FRM\"");
  EXPECT_EQ(e.position, 10);
  e = error_for("CREATE TABLE t (a int");
  EXPECT_EQ(e.message, "syntax error at end of input");
  e = error_for("SELECT 'abc");
  EXPECT_EQ(e.message.rfind("unterminated quoted string", 0), 0u);
  e = error_for("SELECT 1_000_");
  EXPECT_EQ(e.message.rfind("trailing junk after numeric literal", 0), 0u);
}

TEST(Parser, UnsupportedTypeIsNamed) {
  auto e = error_for("CREATE TABLE t (a json)");
  EXPECT_EQ(e.message, "type \"json\" is not supported");
  EXPECT_EQ(e.position, 19);
  e = error_for("CREATE TABLE t (a foo)");
  EXPECT_EQ(e.message, "type \"foo\" does not exist");
}

TEST(Parser, SplitStatementsRespectsQuotesAndComments) {
  bool complete = false;
  auto parts = split_statements("SELECT ';'; -- a; comment\nSELECT 2;", &complete);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(complete);
  EXPECT_EQ(parts[0], "SELECT ';'");
  parts = split_statements("SELECT 1; SELECT", &complete);
  EXPECT_FALSE(complete);
  EXPECT_EQ(parts.size(), 2u);
}

TEST(Parser, ErrorFormatHasCaretUnderPosition) {
  std::string text = "SELECT *\nFRM t";
  try {
    parse_statement(text);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(format_error(e, text),
              "ERROR:  syntax error at or near \"FRM\"\nLINE 2: FRM t\n        ^\n");
  }
}

}  // namespace
}  // namespace tp::sql
