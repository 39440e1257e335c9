// NULLs in tables, against PostgreSQL 15.18's answers to the same statements: a column an
// INSERT does not name is NULL; rows with NULLs are stored with PostgreSQL's null bitmap
// and read back (the text form of a NULL is no text, and the ResultSet flags it); WHERE
// with three-valued logic (a comparison with NULL is never true, NOT IN, IS [NOT] NULL,
// OR, NOT BETWEEN); NULLs sort last ascending and first descending, or as NULLS
// FIRST / LAST says; aggregates skip them; ANALYZE's null fraction in the estimates; a
// primary key's NOT NULL error with its detail; a NULL where an index would need a key
// refused by name.
#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using Rows = std::vector<std::vector<std::string>>;
using testing::error_of;
using testing::scalar;
using testing::TempDir;

class NullsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("CREATE TABLE n (a int, b int, c text)");
    s_->execute(
        "INSERT INTO n VALUES (1, NULL, 'x'), (2, 20, NULL), (NULL, 30, 'z'), (4, 40, 'w')");
    s_->execute("INSERT INTO n (a) VALUES (5)");
  }
  Rows rows(const std::string& sql) { return s_->execute(sql).rows; }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(NullsTest, RowsWithNullsReadBackWithTheirFlags) {
  ResultSet r = s_->execute("SELECT * FROM n");
  EXPECT_EQ(
      r.rows,
      (Rows{{"1", "", "x"}, {"2", "20", ""}, {"", "30", "z"}, {"4", "40", "w"}, {"5", "", ""}}));
  ASSERT_EQ(r.nulls.size(), 5u);
  EXPECT_EQ(r.nulls[0], (std::vector<bool>{false, true, false}));
  EXPECT_EQ(r.nulls[1], (std::vector<bool>{false, false, true}));
  EXPECT_EQ(r.nulls[3], (std::vector<bool>{false, false, false}));
  EXPECT_EQ(r.nulls[4], (std::vector<bool>{false, true, true}));
}

TEST_F(NullsTest, WhereUsesThreeValuedLogic) {
  EXPECT_EQ(rows("SELECT * FROM n WHERE b > 10"),
            (Rows{{"2", "20", ""}, {"", "30", "z"}, {"4", "40", "w"}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE b IS NULL"), (Rows{{"1", "", "x"}, {"5", "", ""}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE a IS NOT NULL AND b <> 20"), (Rows{{"4", "40", "w"}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE b NOT IN (20, 30)"), (Rows{{"4", "40", "w"}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE b IN (20, NULL)"), (Rows{{"2", "20", ""}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE a = 1 OR b = 30"), (Rows{{"1", "", "x"}, {"", "30", "z"}}));
  EXPECT_EQ(rows("SELECT * FROM n WHERE NOT (b BETWEEN 25 AND 35)"),
            (Rows{{"2", "20", ""}, {"4", "40", "w"}}));
}

TEST_F(NullsTest, NullsSortWherePostgresPutsThem) {
  EXPECT_EQ(rows("SELECT a, b FROM n ORDER BY b"),
            (Rows{{"2", "20"}, {"", "30"}, {"4", "40"}, {"1", ""}, {"5", ""}}));
  EXPECT_EQ(rows("SELECT a, b FROM n ORDER BY b DESC"),
            (Rows{{"1", ""}, {"5", ""}, {"4", "40"}, {"", "30"}, {"2", "20"}}));
  EXPECT_EQ(rows("SELECT a, b FROM n ORDER BY b NULLS FIRST, a DESC NULLS LAST"),
            (Rows{{"5", ""}, {"1", ""}, {"2", "20"}, {"", "30"}, {"4", "40"}}));
  // DISTINCT's sort keeps ORDER BY's NULLS order (its Unique sorts by ORDER BY's keys first).
  EXPECT_EQ(rows("SELECT DISTINCT b FROM n ORDER BY b DESC NULLS LAST"),
            (Rows{{"40"}, {"30"}, {"20"}, {""}}));
  EXPECT_EQ(rows("SELECT DISTINCT a, b FROM n ORDER BY b NULLS FIRST, a"),
            (Rows{{"1", ""}, {"5", ""}, {"2", "20"}, {"", "30"}, {"4", "40"}}));
}

TEST_F(NullsTest, AggregatesSkipNulls) {
  EXPECT_EQ(rows("SELECT count(*), count(a), count(b), sum(b), min(a), max(b), avg(b) FROM n"),
            (Rows{{"5", "4", "3", "90", "1", "40", "30.0000000000000000"}}));
}

TEST_F(NullsTest, AnalyzeCountsNullsInItsEstimates) {
  s_->execute("ANALYZE n");
  EXPECT_EQ(rows("EXPLAIN SELECT * FROM n WHERE b IS NULL")[0][0],
            "Seq Scan on n  (cost=0.00..1.05 rows=2 width=10)");
  EXPECT_EQ(rows("EXPLAIN SELECT * FROM n WHERE b IS NOT NULL")[0][0],
            "Seq Scan on n  (cost=0.00..1.05 rows=3 width=10)");
  EXPECT_EQ(rows("EXPLAIN SELECT * FROM n WHERE b = 20")[0][0],
            "Seq Scan on n  (cost=0.00..1.06 rows=1 width=10)");
}

TEST_F(NullsTest, PrimaryKeysRefuseNullsAndOtherIndexesHoldThem) {
  s_->execute("CREATE TABLE p (id int PRIMARY KEY, v int)");
  s_->execute("INSERT INTO p VALUES (1, NULL)");
  try {
    s_->execute("INSERT INTO p (v) VALUES (3)");
    ADD_FAILURE() << "a NULL primary key was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "null value in column \"id\" of relation \"p\" violates not-null constraint");
    EXPECT_EQ(e.detail(), "Failing row contains (null, 3).");
    EXPECT_EQ(e.sqlstate(), sqlstate::kNotNullViolation);
  }
  EXPECT_EQ(rows("SELECT * FROM p"), (Rows{{"1", ""}}));
  s_->execute("CREATE INDEX n_a ON n (a)");  // n holds NULLs in a
  EXPECT_EQ(scalar(*s_, "SELECT tp_verify('n_a')"),
            "index \"n_a\" is valid: 2 pages, 5 entries checked");
  s_->execute("CREATE TABLE k (a int, b int)");
  s_->execute("CREATE UNIQUE INDEX k_b ON k (b)");
  s_->execute("INSERT INTO k VALUES (1, 2), (3, NULL), (4, NULL)");  // NULLs never conflict
  s_->execute("INSERT INTO k VALUES (NULL, 5), (6, NULL)");
  EXPECT_EQ(error_of(*s_, "INSERT INTO k VALUES (7, 2)"),
            "duplicate key value violates unique constraint \"k_b\"");
  EXPECT_EQ(scalar(*s_, "SELECT tp_verify('k_b')"),
            "index \"k_b\" is valid: 2 pages, 5 entries checked");
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  // The index answers IS NULL, IS NOT NULL and ranges without the NULL entries.
  EXPECT_EQ(rows("SELECT a FROM k WHERE b IS NULL ORDER BY a"), (Rows{{"3"}, {"4"}, {"6"}}));
  EXPECT_EQ(rows("SELECT a, b FROM k WHERE b IS NOT NULL ORDER BY b"),
            (Rows{{"1", "2"}, {"", "5"}}));
  EXPECT_EQ(rows("SELECT a FROM k WHERE b > 1"), (Rows{{"1"}, {""}}));
  EXPECT_EQ(rows("SELECT a FROM k WHERE b IS NULL AND b > 1"), Rows{});
  EXPECT_EQ(rows("SELECT b FROM k ORDER BY b DESC"),
            (Rows{{""}, {""}, {""}, {"5"}, {"2"}}));  // NULLs first going backward
  EXPECT_EQ(scalar(*s_, "SELECT min(b) FROM k"), "2");
  EXPECT_EQ(scalar(*s_, "SELECT max(b) FROM k"), "5");
}

}  // namespace
}  // namespace tp
