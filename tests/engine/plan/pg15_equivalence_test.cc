// PostgreSQL's equivalence classes for one table, end to end against PostgreSQL
// 15.18: e1 built as pg15/e1_setup.sql builds it; each statement of
// pg15/e1_explain.sql prints exactly what PostgreSQL printed into pg15/e1_explain.out
// (equalities after the other restrictions, a repeated one counted once, two
// constants for one column proven false under a gating Result). The false plans
// return no rows and never run their scan.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/session/session.h"
#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class Pg15Equivalence : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"e1_setup.sql"});
    s_ = &tables_->session();
  }
  static void TearDownTestSuite() {
    delete tables_;
    s_ = nullptr;
  }
  static std::vector<std::string> lines(const std::string& sql) { return tables_->lines(sql); }

  static testing::FixtureTables* tables_;
  static Session* s_;
};
testing::FixtureTables* Pg15Equivalence::tables_ = nullptr;
Session* Pg15Equivalence::s_ = nullptr;

TEST_F(Pg15Equivalence, EveryPlanIsPostgres) {
  std::vector<std::string> queries =
      testing::script_statements(testing::read_fixture("e1_explain.sql"));
  std::vector<std::vector<std::string>> plans =
      testing::psql_results(testing::read_fixture("e1_explain.out"));
  ASSERT_EQ(queries.size(), plans.size());
  ASSERT_GE(queries.size(), 25u);
  for (size_t i = 0; i < queries.size(); ++i) EXPECT_EQ(lines(queries[i]), plans[i]) << queries[i];
}

// Generic plans: a statement parameter is a pseudo-constant member of its class. The
// class's constant is its first real constant, else its last parameter; every other
// member is equated to it, a parameter too, which gates the scan (PostgreSQL 15.18's
// plans, printed with plan_cache_mode = force_generic_plan).
TEST_F(Pg15Equivalence, ParametersAreConstantsOfTheirClasses) {
  s_->execute("SET plan_cache_mode = force_generic_plan");
  s_->execute("PREPARE g1(int, int) AS SELECT * FROM e1 WHERE a = $1 AND a = $2");
  s_->execute("PREPARE g2(int, int) AS SELECT * FROM e1 WHERE b = $1 AND d = $1 AND d = $2");
  s_->execute("PREPARE g3(int) AS SELECT * FROM e1 WHERE d = $1 AND d = 5 AND c < 100");
  s_->execute("PREPARE g4(int, int) AS SELECT * FROM e1 WHERE b = $1 AND c = $2 AND d = $2");
  using Lines = std::vector<std::string>;
  EXPECT_EQ(lines("EXPLAIN EXECUTE g1(1, 2)"),
            (Lines{"Result  (cost=0.29..8.30 rows=1 width=16)", "  One-Time Filter: ($1 = $2)",
                   "  ->  Index Scan using e1_a on e1  (cost=0.29..8.30 rows=1 width=16)",
                   "        Index Cond: (a = $2)"}));
  EXPECT_EQ(lines("EXPLAIN EXECUTE g2(1, 2)"),
            (Lines{"Result  (cost=5.79..119.62 rows=1 width=16)", "  One-Time Filter: ($1 = $2)",
                   "  ->  Bitmap Heap Scan on e1  (cost=5.79..119.62 rows=1 width=16)",
                   "        Recheck Cond: (b = $2)", "        Filter: (d = $2)",
                   "        ->  Bitmap Index Scan on e1_bc  (cost=0.00..5.79 rows=200 width=0)",
                   "              Index Cond: (b = $2)"}));
  EXPECT_EQ(lines("EXPLAIN EXECUTE g3(5)"),
            (Lines{"Result  (cost=0.00..409.00 rows=1 width=16)", "  One-Time Filter: ($1 = 5)",
                   "  ->  Seq Scan on e1  (cost=0.00..409.00 rows=1 width=16)",
                   "        Filter: ((c < 100) AND (d = 5))"}));
  EXPECT_EQ(lines("EXPLAIN EXECUTE g4(3, 4)"),
            (Lines{"Index Scan using e1_bc on e1  (cost=0.29..8.31 rows=1 width=16)",
                   "  Index Cond: ((b = $1) AND (c = $2))", "  Filter: (d = $2)"}));
  EXPECT_EQ(lines("EXECUTE g1(7, 7)"), (Lines{"7"}));  // the first column: a
  EXPECT_TRUE(lines("EXECUTE g1(7, 8)").empty());
  EXPECT_EQ(lines("EXECUTE g2(20, 20)"), (Lines{"1020"}));
  EXPECT_TRUE(lines("EXECUTE g2(20, 21)").empty());
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE d = 5 AND c < 100"),
            std::to_string(lines("EXECUTE g3(5)").size()));
  EXPECT_TRUE(lines("EXECUTE g3(6)").empty());
  s_->execute("DEALLOCATE ALL");
  s_->execute("RESET plan_cache_mode");
}

// A generic plan's IN list of parameters (and constants) is an index's array key, as
// PostgreSQL 15.18 plans it: searched once per distinct non-NULL value, in the scan's
// order (backward for ORDER BY ... DESC), by an index scan or a bitmap.
TEST_F(Pg15Equivalence, GenericInListsAreIndexArrayKeys) {
  s_->execute("SET plan_cache_mode = force_generic_plan");
  s_->execute(
      "PREPARE k1(int, int, int) AS SELECT a FROM e1 WHERE a IN ($1, $2, $3) ORDER BY a DESC");
  s_->execute("PREPARE k2(int, int) AS SELECT count(*) FROM e1 WHERE b IN ($1, $2)");
  s_->execute("PREPARE k3(int) AS SELECT a FROM e1 WHERE a IN ($1, 7) ORDER BY a");
  using Lines = std::vector<std::string>;
  EXPECT_EQ(lines("EXPLAIN EXECUTE k1(1, 2, 3)"),
            (Lines{"Index Only Scan Backward using e1_a on e1  (cost=0.29..16.92 rows=3 width=4)",
                   "  Index Cond: (a = ANY (ARRAY[$1, $2, $3]))"}));
  EXPECT_EQ(lines("EXECUTE k1(9, 3, 7)"), (Lines{"9", "7", "3"}));
  EXPECT_EQ(lines("EXECUTE k1(5, NULL, 5)"), (Lines{"5"}));
  EXPECT_TRUE(lines("EXECUTE k1(NULL, NULL, NULL)").empty());
  EXPECT_EQ(lines("EXPLAIN EXECUTE k2(1, 2)"),
            (Lines{"Aggregate  (cost=126.67..126.69 rows=1 width=8)",
                   "  ->  Bitmap Heap Scan on e1  (cost=11.67..125.67 rows=400 width=0)",
                   "        Recheck Cond: (b = ANY (ARRAY[$1, $2]))",
                   "        ->  Bitmap Index Scan on e1_bc  (cost=0.00..11.57 rows=400 width=0)",
                   "              Index Cond: (b = ANY (ARRAY[$1, $2]))"}));
  EXPECT_EQ(lines("EXECUTE k2(1, 2)"), (Lines{"400"}));
  EXPECT_EQ(lines("EXECUTE k2(1, 1)"), (Lines{"200"}));
  EXPECT_EQ(lines("EXECUTE k2(NULL, 3)"), (Lines{"200"}));
  EXPECT_EQ(lines("EXPLAIN EXECUTE k3(3)"),
            (Lines{"Index Only Scan using e1_a on e1  (cost=0.29..12.61 rows=2 width=4)",
                   "  Index Cond: (a = ANY (ARRAY[$1, 7]))"}));
  EXPECT_EQ(lines("EXECUTE k3(3)"), (Lines{"3", "7"}));
  EXPECT_EQ(lines("EXECUTE k3(7)"), (Lines{"7"}));
  s_->execute("DEALLOCATE ALL");
  s_->execute("RESET plan_cache_mode");
}

// e1's rows by their definition: b = i % 100, c = i * 7919 % 20000, d = i / 50.
TEST_F(Pg15Equivalence, ResultsFollowTheRowsDefinition) {
  auto count = [](const std::function<bool(int64_t, int64_t, int64_t, int64_t)>& keep) {
    int64_t n = 0;
    for (int64_t i = 1; i <= 20000; ++i) n += keep(i, i % 100, (i * 7919) % 20000, i / 50);
    return std::to_string(n);
  };
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE a = 1 AND a = 2"), "0");
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(a) FROM e1 WHERE b = 1 AND b = 2"), "");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE d = 7 AND d = 7"),
            count([](int64_t, int64_t, int64_t, int64_t d) { return d == 7; }));
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE b = 5 AND b = 5 AND c > 100"),
            count([](int64_t, int64_t b, int64_t c, int64_t) { return b == 5 && c > 100; }));
  EXPECT_EQ(
      testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE c < 3000 AND d = 5 AND b = 7"),
      count([](int64_t, int64_t b, int64_t c, int64_t d) { return c < 3000 && d == 5 && b == 7; }));
  EXPECT_TRUE(lines("SELECT * FROM e1 WHERE d = 3 AND NOT (d <> 4) ORDER BY a").empty());
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(a) FROM e1 WHERE a = 77"), "77");
  // 3.0 and 3.00 are one numeric constant: no contradiction, d = 3 holds for 50 rows.
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE d = 3.0 AND d = 3.00"),
            count([](int64_t, int64_t, int64_t, int64_t d) { return d == 3; }));
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE d IN (6.5) AND d = 2.5"), "0");
  EXPECT_EQ(lines("SELECT min(b) FROM e1 WHERE b = 4"), (std::vector<std::string>{"4"}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM e1 WHERE (c < 100 OR c > 19900) AND b = 2"),
            count([](int64_t, int64_t b, int64_t c, int64_t) {
              return (c < 100 || c > 19900) && b == 2;
            }));
  // Incremental Sort under NULLS LAST descending: b ascending, c descending within b.
  std::vector<std::string> first =
      lines("SELECT c FROM e1 WHERE b < 3 ORDER BY b, c DESC NULLS LAST LIMIT 2");
  int64_t top = -1, second = -1;
  for (int64_t i = 1; i <= 20000; ++i) {
    if (i % 100 != 0) continue;
    const int64_t c = (i * 7919) % 20000;
    if (c > top)
      second = top, top = c;
    else if (c > second)
      second = c;
  }
  EXPECT_EQ(first, (std::vector<std::string>{std::to_string(top), std::to_string(second)}));
  // The scan under the false Result is never started.
  std::vector<std::string> analyzed = lines(
      "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM e1 WHERE a = 1 AND a = 2 ORDER BY d");
  ASSERT_GE(analyzed.size(), 6u);
  EXPECT_EQ(analyzed[3], "  ->  Result (actual rows=0 loops=1)");
  EXPECT_EQ(analyzed[4], "        One-Time Filter: false");
  EXPECT_EQ(analyzed[5], "        ->  Index Scan using e1_a on e1 (never executed)");
}

}  // namespace
}  // namespace tp
