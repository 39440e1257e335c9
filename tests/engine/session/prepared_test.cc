// SQL PREPARE / EXECUTE / DEALLOCATE / DISCARD ALL and EXPLAIN EXECUTE
// (engine/session/describe.cc): a prepared statement runs with its values as a
// statement with them written in would (PostgreSQL's custom plan), with
// PostgreSQL's errors for a wrong name or argument count.
#include <gtest/gtest.h>

#include <string>

#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;

class Prepared : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE t (a int PRIMARY KEY, b text, n numeric(6,2))");
    s_.execute("INSERT INTO t SELECT i, 'x' || i, i / 4.0 FROM generate_series(1, 10000) s(i)");
    s_.execute("ANALYZE t");
  }
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    return s_.execute(sql).rows;
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(Prepared, ExecuteRunsWithTheValuesWrittenIn) {
  EXPECT_EQ(s_.execute("PREPARE p(int) AS SELECT b, n FROM t WHERE a = $1").tag, "PREPARE");
  EXPECT_EQ(rows("EXECUTE p(42)"), rows("SELECT b, n FROM t WHERE a = 42"));
  // Types inferred from the context, and values coerced as an assignment would.
  s_.execute("PREPARE q AS SELECT count(*) FROM t WHERE a < $1 AND b LIKE $2 AND n > $3");
  EXPECT_EQ(rows("EXECUTE q(500.4, 'x1%', '10')"),
            rows("SELECT count(*) FROM t WHERE a < 500 AND b LIKE 'x1%' AND n > 10"));
  EXPECT_EQ(rows("EXPLAIN EXECUTE q(500, 'x1%', 10)"),
            rows("EXPLAIN SELECT count(*) FROM t WHERE a < 500 AND b LIKE 'x1%' AND n > 10"));
  EXPECT_EQ(rows("EXPLAIN EXECUTE p(7)").at(1).at(0), "  Index Cond: (a = 7)");
  const auto analyzed = rows("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE p(7)");
  EXPECT_EQ(analyzed.at(0).at(0), "Index Scan using t_pkey on t (actual rows=1 loops=1)");
  // A NULL value: the comparison is NULL, no row.
  s_.execute("PREPARE c AS SELECT count(*) FROM t WHERE a = $1");
  EXPECT_EQ(scalar(s_, "EXECUTE c(NULL)"), "0");
}

TEST_F(Prepared, NamesAndCountsAreChecked) {
  s_.execute("PREPARE p AS SELECT $1::int + $2");
  EXPECT_EQ(error_of(s_, "PREPARE p AS SELECT 1"), "prepared statement \"p\" already exists");
  EXPECT_EQ(error_of(s_, "EXECUTE p(1)"),
            "wrong number of parameters for prepared statement \"p\"");
  EXPECT_EQ(error_of(s_, "EXECUTE nope"), "prepared statement \"nope\" does not exist");
  EXPECT_EQ(error_of(s_, "EXECUTE p('a', 1)"), "invalid input syntax for type integer: \"a\"");
  EXPECT_EQ(error_of(s_, "PREPARE r AS CREATE TABLE u (a int)"),
            "syntax error at or near \"CREATE\"");
  EXPECT_EQ(scalar(s_, "EXECUTE p(40, 2)"), "42");
  EXPECT_EQ(s_.execute("DEALLOCATE p").tag, "DEALLOCATE");
  EXPECT_EQ(error_of(s_, "DEALLOCATE p"), "prepared statement \"p\" does not exist");
  s_.execute("PREPARE a1 AS SELECT 1");
  s_.execute("PREPARE a2 AS SELECT 2");
  EXPECT_EQ(s_.execute("DEALLOCATE ALL").tag, "DEALLOCATE ALL");
  EXPECT_EQ(error_of(s_, "EXECUTE a2"), "prepared statement \"a2\" does not exist");
}

TEST_F(Prepared, DiscardAllForgetsStatementsAndSettings) {
  s_.execute("PREPARE p AS SELECT 1");
  s_.execute("SET work_mem = '64MB'");
  EXPECT_EQ(s_.execute("DISCARD ALL").tag, "DISCARD ALL");
  EXPECT_EQ(scalar(s_, "SHOW work_mem"), "4MB");
  EXPECT_EQ(error_of(s_, "EXECUTE p"), "prepared statement \"p\" does not exist");
  s_.execute("BEGIN");
  EXPECT_EQ(error_of(s_, "DISCARD ALL"), "DISCARD ALL cannot run inside a transaction block");
  s_.execute("ROLLBACK");
  // An INSERT prepared and run twice.
  s_.execute("PREPARE ins(int, text) AS INSERT INTO t (a, b) VALUES ($1, $2)");
  EXPECT_EQ(s_.execute("EXECUTE ins(20001, 'new')").tag, "INSERT 0 1");
  EXPECT_EQ(error_of(s_, "EXECUTE ins(20001, 'again')"),
            "duplicate key value violates unique constraint \"t_pkey\"");
  EXPECT_EQ(scalar(s_, "SELECT b FROM t WHERE a = 20001"), "new");
}

}  // namespace
}  // namespace tp
