// Issue 29: a long statement is parsed without taking memory in proportion to its
// tokens. Tokens are read as the parser reaches them (so, as in PostgreSQL, a syntax
// error before an unterminated string is the error reported), and an IN list of
// plain integer literals is kept as integers, in order, with every other list
// parsed as before.
#include <gtest/gtest.h>

#include <string>

#include "engine/sql/lexer.h"
#include "engine/sql/parser.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;

const sql::Expr& where_of(const sql::Statement& st) {
  return *std::get<sql::Select>(st).where;
}

TEST(LongStatements, AnIntegerInListIsKeptAsIntegersInOrder) {
  sql::Statement st = sql::parse_statement("SELECT a FROM t WHERE a IN (3, 1, 2)");
  const sql::Expr& in = where_of(st);
  ASSERT_EQ(in.kind, sql::ExprKind::kInList);
  EXPECT_EQ(in.args.size(), 1u);  // the column only
  EXPECT_EQ(in.int_items, (std::vector<int64_t>{3, 1, 2}));
}

TEST(LongStatements, AnyOtherItemMakesTheListOrdinaryExpressionsInOrder) {
  for (const char* sql :
       {"SELECT a FROM t WHERE a IN (3, 1, -2)", "SELECT a FROM t WHERE a IN (3, 1, 2 + 0)",
        "SELECT a FROM t WHERE a IN (3, 1, NULL)",
        "SELECT a FROM t WHERE a IN (3, 1, 99999999999999999999)"}) {
    sql::Statement st = sql::parse_statement(sql);
    const sql::Expr& in = where_of(st);
    EXPECT_TRUE(in.int_items.empty()) << sql;
    ASSERT_EQ(in.args.size(), 4u) << sql;
    EXPECT_EQ(in.args[1]->ival, 3) << sql;
    EXPECT_EQ(in.args[2]->ival, 1) << sql;
  }
}

TEST(LongStatements, TheTokenizerGivesOneTokenAtATime) {
  sql::Tokenizer tokens("SELECT 1 'unterminated", nullptr);
  EXPECT_EQ(tokens.next().text, "select");
  EXPECT_EQ(tokens.next().text, "1");
  EXPECT_THROW(tokens.next(), Error);  // reached only now
  sql::Tokenizer empty("", nullptr);
  EXPECT_EQ(empty.next().kind, sql::TokenKind::kEnd);
  EXPECT_EQ(empty.next().kind, sql::TokenKind::kEnd);
}

// Past its node budget a parse stops with 54001, whatever the statement's shape; an
// integer IN list of any length takes no nodes.
TEST(LongStatements, AParseStopsAtItsNodeBudget) {
  std::string in = "SELECT a FROM t WHERE a IN (1";
  for (int i = 0; i < 100000; ++i) in += ", " + std::to_string(i);
  {
    sql::ParsedNodeBudget budget(50);
    EXPECT_EQ(where_of(sql::parse_statement(in + ")")).int_items.size(), 100001u);
  }
  sql::ParsedNodeBudget budget(50);
  std::string targets = "SELECT 1";
  for (int i = 0; i < 60; ++i) targets += ", 1";
  try {
    sql::parse_statement(targets);
    FAIL() << "parsed past its budget";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "54001");
    EXPECT_EQ(std::string(e.what()).rfind("statement is too complex: more than", 0), 0u);
  }
  std::string values = "INSERT INTO t VALUES (1)";
  for (int i = 0; i < 60; ++i) values += ", (1)";
  EXPECT_THROW(sql::parse_statement(values), Error);
  EXPECT_EQ(sql::kMaxParsedNodes, 1000000u);
}

class LongStatementSession : public ::testing::Test {
 protected:
  LongStatementSession() : s_(testing::options_for(tmp_.data())) {
    s_.execute("CREATE TABLE t (a int)");
    s_.execute("INSERT INTO t SELECT i FROM generate_series(1, 1000) i");
  }
  testing::TempDir tmp_;
  Session s_;
};

// PostgreSQL's scanner is pulled by its parser: the first error in reading order wins.
TEST_F(LongStatementSession, ASyntaxErrorBeforeAnUnterminatedStringIsReportedFirst) {
  EXPECT_EQ(error_of(s_, "SELECT 1 1 'abc"), "syntax error at or near \"1\"");
  EXPECT_EQ(error_of(s_, "SELECT 1 + 'abc"), "unterminated quoted string at or near \"'abc\"");
}

TEST_F(LongStatementSession, AHundredThousandItemInListAnswersAsAnyOther) {
  std::string list;
  for (int i = 0; i < 100000; ++i) list += (i ? "," : "") + std::to_string(i * 7);
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a IN (" + list + ")"), "142");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a NOT IN (" + list + ")"), "858");
  EXPECT_EQ(scalar(s_, "SELECT 14 IN (" + list + ")"), "t");
  EXPECT_EQ(scalar(s_, "SELECT 15 NOT IN (" + list + ")"), "t");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a IN (5)"), "1");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a NOT IN (5)"), "999");
}

}  // namespace
}  // namespace tp
