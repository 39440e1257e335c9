// A prepared statement's plan cache (engine/session/plan_cache.h): five custom plans,
// then the generic plan when it is not dearer than their average, planning included;
// plan_cache_mode; a generic plan's $n read by index keys, filters, joins and parallel
// workers. Plans and results are PostgreSQL 15's for the same statements (psql against
// a 15.18 server, same table).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/session/plan_cache.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::scalar;

class PlanCache : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE pc (a int PRIMARY KEY, b int, c text)");
    // b: 1 in 99 rows of 100, else the row's own number (a skewed column).
    s_.execute(
        "INSERT INTO pc SELECT i, CASE WHEN i % 100 = 0 THEN i ELSE 1 END, 'x' || i "
        "FROM generate_series(1, 10000) s(i)");
    s_.execute("CREATE INDEX pc_b ON pc (b)");
    s_.execute("ANALYZE pc");
  }
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    return s_.execute(sql).rows;
  }
  std::string line(const std::string& sql, size_t i) { return rows(sql).at(i).at(0); }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST(PlanCacheChoice, FiveCustomPlansThenTheCheaperKind) {
  PlanCacheStats st;
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(choose_custom_plan(st, PlanCacheMode::kAuto));
    st.custom_plan_cost(13.31);
  }
  EXPECT_FALSE(choose_custom_plan(st, PlanCacheMode::kAuto));  // generic cost unknown: weigh it
  st.generic_cost = 18.31;
  EXPECT_TRUE(choose_custom_plan(st, PlanCacheMode::kAuto));  // dearer than 13.31
  st.generic_cost = 13.31;
  EXPECT_TRUE(choose_custom_plan(st, PlanCacheMode::kAuto));  // not cheaper: still custom
  st.generic_cost = 13.3;
  EXPECT_FALSE(choose_custom_plan(st, PlanCacheMode::kAuto));
  EXPECT_TRUE(choose_custom_plan(st, PlanCacheMode::kForceCustom));
  EXPECT_FALSE(choose_custom_plan(PlanCacheStats{}, PlanCacheMode::kForceGeneric));
}

TEST_F(PlanCache, TheSixthExecutionTakesTheGenericPlanWhenItIsNotDearer) {
  s_.execute("PREPARE p(int) AS SELECT * FROM pc WHERE a = $1");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE p(7)", 1), "  Index Cond: (a = 7)") << i;
  EXPECT_EQ(rows("EXPLAIN EXECUTE p(7)"),
            (std::vector<std::vector<std::string>>{
                {"Index Scan using pc_pkey on pc  (cost=0.29..8.30 rows=1 width=13)"},
                {"  Index Cond: (a = $1)"}}));
  EXPECT_EQ(rows("EXECUTE p(8)"), rows("SELECT * FROM pc WHERE a = 8"));
  EXPECT_EQ(rows("EXECUTE p(NULL)").size(), 0u);
  // The cache is the statement's: a new one starts with custom plans again.
  s_.execute("DEALLOCATE p");
  s_.execute("PREPARE p(int) AS SELECT * FROM pc WHERE a = $1");
  EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE p(7)", 1), "  Index Cond: (a = 7)");
}

TEST_F(PlanCache, ACheaperAverageOfCustomPlansKeepsThem) {
  // Rare values of b: each custom plan costs 8.31 + 5 of planning; the generic plan
  // (b = $1 estimated as 1 in 101 values of b) 18.31.
  s_.execute("PREPARE r(int) AS SELECT count(*) FROM pc WHERE b = $1");
  for (int v : {200, 300, 400, 500, 600})
    EXPECT_EQ(scalar(s_, "EXECUTE r(" + std::to_string(v) + ")"), "1");
  EXPECT_EQ(rows("EXPLAIN EXECUTE r(200)"),
            (std::vector<std::vector<std::string>>{
                {"Aggregate  (cost=8.30..8.31 rows=1 width=8)"},
                {"  ->  Index Only Scan using pc_b on pc  (cost=0.29..8.30 rows=1 width=0)"},
                {"        Index Cond: (b = 200)"}}));
  // A common value's dear custom plan raises the average past the generic plan's cost.
  s_.execute("PREPARE s(int) AS SELECT count(*) FROM pc WHERE b = $1");
  for (int v : {200, 200, 300, 400}) scalar(s_, "EXECUTE s(" + std::to_string(v) + ")");
  EXPECT_EQ(scalar(s_, "EXECUTE s(1)"), "9900");
  EXPECT_EQ(rows("EXPLAIN EXECUTE s(200)"),
            (std::vector<std::vector<std::string>>{
                {"Aggregate  (cost=18.30..18.31 rows=1 width=8)"},
                {"  ->  Index Only Scan using pc_b on pc  (cost=0.29..18.05 rows=99 width=0)"},
                {"        Index Cond: (b = $1)"}}));
  EXPECT_EQ(scalar(s_, "EXECUTE s(1)"), "9900");
  EXPECT_EQ(scalar(s_, "EXECUTE s(200)"), "1");
}

TEST_F(PlanCache, PlanCacheModeForcesEitherKind) {
  s_.execute("PREPARE p(int) AS SELECT * FROM pc WHERE a = $1");
  s_.execute("SET plan_cache_mode = force_generic_plan");
  EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE p(7)", 1), "  Index Cond: (a = $1)");
  s_.execute("SET plan_cache_mode = force_custom_plan");
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE p(7)", 1), "  Index Cond: (a = 7)");
  EXPECT_EQ(testing::error_of(s_, "SET plan_cache_mode = sometimes"),
            "invalid value for parameter \"plan_cache_mode\": \"sometimes\"");
}

TEST_F(PlanCache, GenericPlansReadTheirParametersEverywhere) {
  s_.execute("SET plan_cache_mode = force_generic_plan");
  // A join: the restriction stays the outer scan's index condition.
  s_.execute(
      "PREPARE j(int) AS SELECT count(*) FROM pc p1 JOIN pc p2 ON p1.a = p2.b "
      "WHERE p1.a < $1");
  EXPECT_EQ(rows("EXECUTE j(1000)"),
            rows("SELECT count(*) FROM pc p1 JOIN pc p2 ON p1.a = p2.b WHERE p1.a < 1000"));
  // A parameter alone: a One-Time Filter, true or false per execution.
  s_.execute("PREPARE g(int) AS SELECT count(*) FROM pc WHERE $1 = 5 AND a < 30");
  EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE g(5)", 2), "        One-Time Filter: ($1 = 5)");
  EXPECT_EQ(scalar(s_, "EXECUTE g(5)"), "29");
  EXPECT_EQ(scalar(s_, "EXECUTE g(4)"), "0");
  // Text, NULL and values of another type than the column's.
  s_.execute("PREPARE t(text, bigint) AS SELECT count(*) FROM pc WHERE c LIKE $1 AND a > $2");
  EXPECT_EQ(line("EXPLAIN (COSTS OFF) EXECUTE t('x1%', 5000)", 2), "        Index Cond: (a > $2)");
  EXPECT_EQ(scalar(s_, "EXECUTE t('x1%', 5000)"), "1");  // x10000
  EXPECT_EQ(scalar(s_, "EXECUTE t('x1%', 10)"), "1110");
  EXPECT_EQ(scalar(s_, "EXECUTE t(NULL, 5000)"), "0");
  // Parallel workers read the leader's values.
  s_.execute("SET max_parallel_workers_per_gather = 2");
  s_.execute("SET parallel_setup_cost = 0");
  s_.execute("SET parallel_tuple_cost = 0");
  s_.execute("SET min_parallel_table_scan_size = 0");
  s_.execute("PREPARE w(text) AS SELECT count(*), min(a) FROM pc WHERE c > $1");
  const auto plan = rows("EXPLAIN (COSTS OFF) EXECUTE w('x5')");
  EXPECT_EQ(plan.at(4).at(0), "              ->  Parallel Seq Scan on pc");
  EXPECT_EQ(plan.at(5).at(0), "                    Filter: (c > $1)");
  EXPECT_EQ(rows("EXECUTE w('x5')"), (std::vector<std::vector<std::string>>{{"5554", "6"}}));
  EXPECT_EQ(rows("EXECUTE w('x99')"), (std::vector<std::vector<std::string>>{{"110", "990"}}));
  EXPECT_EQ(rows("EXECUTE w(NULL)"), (std::vector<std::vector<std::string>>{{"0", ""}}));
}

// Weighing and running the generic plan inside a transaction block that writes: the
// plan reads the block's own rows, and the block goes on and commits.
TEST_F(PlanCache, GenericPlansInsideABlockThatWrites) {
  s_.execute("BEGIN");
  s_.execute("INSERT INTO pc VALUES (20000, 5, 'in the block')");
  // An IN list with a $n: `a = ANY (ARRAY[1, 2, $1])`, its array built when it runs.
  s_.execute("PREPARE v(int) AS SELECT count(*) FROM pc WHERE a IN (1, 2, $1)");
  for (int i = 0; i < 7; ++i) EXPECT_EQ(scalar(s_, "EXECUTE v(20000)"), "3") << i;
  EXPECT_EQ(scalar(s_, "SELECT c FROM pc WHERE a = 20000"), "in the block");
  s_.execute("COMMIT");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM pc WHERE a = 20000"), "1");
}

// A generic plan's tree runs again with each execution's values (its statement parsed
// once); every shape gives the rows the statement with the values written in gives.
TEST_F(PlanCache, AKeptGenericPlanGivesEachExecutionsRows) {
  s_.execute("CREATE TABLE q (k int, v int)");
  s_.execute("INSERT INTO q SELECT i % 300, i FROM generate_series(1, 3000) s(i)");
  s_.execute("CREATE INDEX q_k ON q (k)");
  s_.execute("ANALYZE q");
  s_.execute("SET plan_cache_mode = force_generic_plan");
  struct Shape {
    const char* prepared;
    const char* written;  // with $1 and $2 to replace
  };
  const Shape shapes[] = {
      {"SELECT * FROM pc WHERE a = $1", "SELECT * FROM pc WHERE a = $1"},
      {"SELECT a, c FROM pc WHERE a > $1 ORDER BY a LIMIT 5",
       "SELECT a, c FROM pc WHERE a > $1 ORDER BY a LIMIT 5"},
      {"SELECT b, count(*) FROM pc WHERE a BETWEEN $1 AND $2 GROUP BY b ORDER BY 2 DESC, 1",
       "SELECT b, count(*) FROM pc WHERE a BETWEEN $1 AND $2 GROUP BY b ORDER BY 2 DESC, 1"},
      {"SELECT count(*), sum(q.v) FROM pc JOIN q ON q.k = pc.a WHERE pc.a < $1 AND q.v > $2",
       "SELECT count(*), sum(q.v) FROM pc JOIN q ON q.k = pc.a WHERE pc.a < $1 AND q.v > $2"},
      {"SELECT count(*) FROM pc WHERE a < $1 OR b = $2",
       "SELECT count(*) FROM pc WHERE a < $1 OR b = $2"},
      {"SELECT c FROM pc WHERE b = $1 ORDER BY c DESC",
       "SELECT c FROM pc WHERE b = $1 ORDER BY c DESC"},
  };
  const std::pair<int, int> values[] = {{7, 9000}, {300, 400}, {1, 1}, {9990, 10000}, {200, 250}};
  std::vector<uint64_t> reruns;
  for (const Shape& sh : shapes) {
    s_.execute("DEALLOCATE ALL");
    s_.execute(std::string("PREPARE x(int, int) AS ") + sh.prepared);
    for (auto [v1, v2] : values) {
      std::string written = sh.written;
      written.replace(written.find("$1"), 2, std::to_string(v1));
      if (const size_t at = written.find("$2"); at != std::string::npos)
        written.replace(at, 2, std::to_string(v2));
      const std::string exec = "EXECUTE x(" + std::to_string(v1) + ", " + std::to_string(v2) + ")";
      EXPECT_EQ(rows(exec), rows(written)) << sh.prepared << " with " << v1 << ", " << v2;
      EXPECT_EQ(rows(exec), rows(written)) << "again: " << sh.prepared;
    }
    reruns.push_back(s_.prepared("x")->generic_plan->reruns);
  }
  // Run again: a lookup ends with nothing held, from its second execution on; a scan a
  // Limit stopped keeps its page: planned each time. The others are run again when
  // their scans' read streams did not stay open (as the values have it).
  EXPECT_EQ(reruns.at(0), 9u);
  EXPECT_EQ(reruns.at(1), 0u);
  EXPECT_GE(reruns.at(2) + reruns.at(3) + reruns.at(4) + reruns.at(5), 9u);
}

// The kept tree is planned again when the catalog moves (a new index, a table dropped and
// made again) or a setting changes.
TEST_F(PlanCache, AKeptGenericPlanFollowsTheCatalogAndTheSettings) {
  s_.execute("PREPARE p(int) AS SELECT c FROM pc WHERE b = $1 ORDER BY c");
  s_.execute("SET plan_cache_mode = force_generic_plan");
  EXPECT_EQ(rows("EXECUTE p(200)"), (std::vector<std::vector<std::string>>{{"x200"}}));
  s_.execute("INSERT INTO pc VALUES (10001, 200, 'new')");
  EXPECT_EQ(rows("EXECUTE p(200)"), (std::vector<std::vector<std::string>>{{"new"}, {"x200"}}));
  s_.execute("DROP TABLE pc");
  s_.execute("CREATE TABLE pc (a int, b int, c text)");
  s_.execute("INSERT INTO pc VALUES (1, 200, 'other')");
  EXPECT_EQ(rows("EXECUTE p(200)"), (std::vector<std::vector<std::string>>{{"other"}}));
  s_.execute("SET enable_seqscan = off");
  EXPECT_EQ(rows("EXECUTE p(200)"), (std::vector<std::vector<std::string>>{{"other"}}));
  EXPECT_EQ(rows("EXECUTE p(1)").size(), 0u);
}

}  // namespace
}  // namespace tp
