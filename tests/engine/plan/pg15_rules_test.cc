// The last single-table rules of PostgreSQL 15's planner, end to end against
// PostgreSQL 15.18: r1 built as pg15/r1_setup.sql builds it; every EXPLAIN of
// pg15/r1_explain.sql prints exactly what PostgreSQL printed into pg15/r1_explain.out
// (arrays of one and zero elements, ANDs inside OR arms, enable_sort = off, a bitmap
// scan of a whole index, Incremental Sort under a Gather Merge, implied filters, the
// constant on the left, min/max with IS NULL, aliases). Then the rows of the plans
// whose shape these rules change.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/session/session.h"
#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class Pg15Rules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"r1_setup.sql"});
    s_ = &tables_->session();
  }
  static void TearDownTestSuite() {
    delete tables_;
    s_ = nullptr;
  }
  void SetUp() override { s_->execute("RESET ALL"); }

  static testing::FixtureTables* tables_;
  static Session* s_;
};
testing::FixtureTables* Pg15Rules::tables_ = nullptr;
Session* Pg15Rules::s_ = nullptr;

TEST_F(Pg15Rules, EveryPlanIsPostgres) {
  EXPECT_GE(testing::compare_plans(*s_, "r1_explain.sql", "r1_explain.out"), 47u);
}

// r1's rows by their definition: a = i, b = i % 100, c = i * 7919 % 20000, d = i / 50.
TEST_F(Pg15Rules, RowsFollowTheDefinition) {
  auto count = [](bool (*keep)(int64_t, int64_t, int64_t, int64_t)) {
    int64_t n = 0;
    for (int64_t i = 1; i <= 20000; ++i) n += keep(i, i % 100, (i * 7919) % 20000, i / 50);
    return std::to_string(n);
  };
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE a = ANY ('{5}')"), "1");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE a = ANY ('{}')"), "0");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE d <> ALL ('{}')"), "20000");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE d <> ALL (ARRAY[7])"),
            count([](int64_t, int64_t, int64_t, int64_t d) { return d != 7; }));
  EXPECT_EQ(testing::scalar(
                *s_, "SELECT count(*) FROM r1 WHERE (b = 3 AND d = 7) OR (a < 10 AND c < 100)"),
            count([](int64_t a, int64_t b, int64_t c, int64_t d) {
              return (b == 3 && d == 7) || (a < 10 && c < 100);
            }));
}

// An array literal takes the column's type: a fraction in '{...}' is PostgreSQL's error
// unless the literal is cast to numeric[]; ARRAY[...] takes its elements' type.
TEST_F(Pg15Rules, ArrayLiteralsTakeTheColumnsType) {
  try {
    s_->execute("SELECT * FROM r1 WHERE a = ANY ('{1,2.5}')");
    FAIL() << "a fraction in an integer array literal was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid input syntax for type integer: \"2.5\"");
    EXPECT_EQ(e.sqlstate(), "22P02");
  }
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE a = ANY ('{1,2.5}'::numeric[])"),
            "1");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE a = ANY (ARRAY[1, 2.5])"), "1");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM r1 WHERE a = ANY (ARRAY[]::int[])"), "0");
}

}  // namespace
}  // namespace tp
