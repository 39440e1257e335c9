// Issue #10: input a hostile user types is refused with PostgreSQL's error, never
// a crash: unterminated quotes and comments, huge literals, edge LIMITs.
#include <gtest/gtest.h>

#include "engine/sql/parser.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

class HostileInput : public ::testing::Test {
 protected:
  HostileInput() : s_(testing::options_for(tmp_.data())) {
    s_.execute("CREATE TABLE t (a int, b bigint)");
    s_.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
  }
  TempDir tmp_;
  Session s_;
};

TEST_F(HostileInput, UnterminatedPiecesAsPostgres) {
  EXPECT_EQ(error_of(s_, "SELECT 'abc"), "unterminated quoted string at or near \"'abc\"");
  EXPECT_EQ(error_of(s_, "SELECT \"abc"), "unterminated quoted identifier at or near \"\"abc\"");
  EXPECT_EQ(error_of(s_, "SELECT 1 /* x"), "unterminated /* comment at or near \"/* x\"");
  EXPECT_EQ(error_of(s_, "SELECT 1 /* /* */"), "unterminated /* comment at or near \"/* /* */\"");
  EXPECT_EQ(error_of(s_, "SELECT"), "syntax error at end of input");
  EXPECT_EQ(error_of(s_, ""), "syntax error at end of input");
}

TEST_F(HostileInput, CommentsNestAsInPostgres) {
  EXPECT_EQ(scalar(s_, "SELECT /* a /* b */ c */ 7"), "7");
  bool complete = false;
  auto parts = sql::split_statements("SELECT 1 /* ; /* ; */ ; */; SELECT 2;", &complete);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(complete);
}

TEST_F(HostileInput, HugeLiteralsAreHandled) {
  std::string big(4 << 20, 'x');
  EXPECT_EQ(scalar(s_, "SELECT '" + big + "'").size(), big.size());
  EXPECT_EQ(error_of(s_, "SELECT 1" + std::string(100000, '0') + "e5"), "");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 1" + std::string(100000, '0') + ")"),
            "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT 1e100000000000"),
            "invalid input syntax for type numeric: \"1e100000000000\"");
  // A million '"': one quoted identifier of escaped quotes, cut to 63 bytes.
  EXPECT_EQ(error_of(s_, "SELECT " + std::string(1 << 20, '"')),
            "column \"" + std::string(63, '"') + "\" does not exist");
}

std::string column_list(int n, const char* type) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? ", c" : "c") + std::to_string(i) + " " + type;
  return out;
}

std::string ones(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += i ? ", 1" : "1";
  return out;
}

TEST_F(HostileInput, RowTooBigForAPageIsRefusedNotAnAbort) {
  // 1018 bigints: t_len 24 + 8144 = 8168 bytes; page_add_item refused it and the
  // loader's assertion aborted the process.
  s_.execute("CREATE TABLE wide (" + column_list(1018, "bigint") + ")");
  EXPECT_EQ(error_of(s_, "INSERT INTO wide VALUES (" + ones(1018) + ")"),
            "row is too big: size 8168, maximum size 8160");
  EXPECT_EQ(
      error_of(s_, "INSERT INTO wide SELECT " + ones(1018) + " FROM generate_series(1, 3) g(i)"),
      "row is too big: size 8168, maximum size 8160");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM wide"), "0");
  // 8160 bytes fit.
  s_.execute("CREATE TABLE widest (" + column_list(1017, "bigint") + ")");
  s_.execute("INSERT INTO widest VALUES (" + ones(1017) + "), (" + ones(1017) + ")");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM widest"), "2");
}

TEST_F(HostileInput, MoreThan1600ColumnsAreRefused) {
  // 1700 columns were accepted, and after ANALYZE the catalog's statistics text
  // (at most 1600 columns) could no longer be read: the directory did not open.
  EXPECT_EQ(error_of(s_, "CREATE TABLE w (" + column_list(1601, "int") + ")"),
            "tables can have at most 1600 columns");
  s_.execute("CREATE TABLE w (" + column_list(1600, "int") + ")");
  s_.execute("INSERT INTO w VALUES (" + ones(1600) + ")");
  s_.execute("ANALYZE w");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM w"), "1");
}

TEST_F(HostileInput, LimitEdges) {
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT -1"), "LIMIT must not be negative");
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT 9999999999999999999"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT -9223372036854775808"),
            "LIMIT must not be negative");
  EXPECT_EQ(s_.execute("SELECT a FROM t ORDER BY a LIMIT 9223372036854775807").rows.size(), 2u);
  EXPECT_EQ(s_.execute("SELECT a FROM t LIMIT 0").rows.size(), 0u);
  EXPECT_EQ(s_.execute("SELECT * FROM generate_series(1, 10) LIMIT 3").rows.size(), 3u);
}

}  // namespace
}  // namespace tp
