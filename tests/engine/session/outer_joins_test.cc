// Outer joins against PostgreSQL 15.20 over pg15/joins_setup.sql's tables (orders with
// NULL customers, customers keyed by bigint, regions, order lines) without indexes and
// with them (joins_index_setup.sql): LEFT, RIGHT and FULL joins with ON and USING; a
// WHERE that rejects the NULL-extended rows (the join becomes inner) or keeps only them
// (an anti join); ON clauses over one side (pushed into the nullable side's scan, or a
// Join Filter on the preserved side); WHERE clauses done at the outer join (its Filter);
// three-table orders that commute and those that must not; a WHERE constant copied to
// the nullable side; parameterized inner index scans under Nested Loop Left Joins and
// Merge Left Joins over an index's order. Plans, costs and rows are PostgreSQL's
// (pg15/outer_joins.out, pg15/outer_joins_index.out).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

std::string explain(Session& s, const std::string& sql) {
  std::string text;
  for (const auto& row : s.execute("explain (analyze, costs off, timing off) " + sql).rows)
    text += row.at(0) + "\n";
  return text;
}

class OuterJoinTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(OuterJoinTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "outer_joins.out"), 34u);
}

// EXISTS, NOT EXISTS and IN (SELECT ...) pulled up into Semi and Anti Joins
// (pg15/subqueries.out).
TEST_F(OuterJoinTables, SubqueriesBecomeSemiAndAntiJoins) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "subqueries.out"), 19u);
}

// A WHERE clause the outer join must finish before it filters is the join's Filter: it
// sees the NULL-extended rows, and ANALYZE counts what it removed.
TEST_F(OuterJoinTables, WhereClauseAtTheJoinFiltersNullExtendedRows) {
  const std::string text = explain(
      s_, "select o.id from o left join c on o.cust = c.cid where c.region is null or o.id < 3");
  EXPECT_NE(text.find("Hash Left Join (actual rows=208 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Filter: ((c.region IS NULL) OR (o.id < 3))"), std::string::npos) << text;
  EXPECT_NE(text.find("Rows Removed by Filter: 19792"), std::string::npos) << text;
  EXPECT_EQ(s_.execute("select count(*) from o where cust is null or cust >= 800 or id < 3")
                .rows.at(0)
                .at(0),
            "208");
}

// A Hash Left Join beyond work_mem x hash_mem_multiplier spills to batch files in the data
// directory's pgsql_tmp: the same rows as in memory, Batches above 1 under ANALYZE, and
// no file left behind, whether the statement finishes or a cancel stops it midway.
TEST_F(OuterJoinTables, MultiBatchHashJoinLeavesNoTemporaryFile) {
  const std::string q = "select count(*), sum(y.qty) from l x left join l y on x.oid = y.oid";
  const auto in_memory = s_.execute(q).rows;
  s_.execute("set work_mem = '64kB'");
  s_.execute("set enable_mergejoin = off");
  s_.execute("set enable_nestloop = off");
  EXPECT_EQ(s_.execute(q).rows, in_memory);
  const std::string plan = explain(s_, q);
  EXPECT_NE(plan.find("Hash Left Join"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Batches: 1 "), std::string::npos) << plan;
  const std::filesystem::path tmp = std::filesystem::path(tmp_.data()) / "pgsql_tmp";
  auto empty = [&] { return !std::filesystem::exists(tmp) || std::filesystem::is_empty(tmp); };
  EXPECT_TRUE(empty()) << "a batch file outlived its statement";
  // Cancels keep coming until the statement ends, one way or the other.
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      s_.cancel();
    }
  });
  std::string error;
  try {
    s_.execute(q);
  } catch (const Error& e) {
    error = e.what();
  }
  done.store(true);
  canceller.join();
  EXPECT_TRUE(error.empty() || error == "canceling statement due to user request") << error;
  EXPECT_TRUE(empty()) << "a canceled join left a batch file";
}

// A FULL join whose only condition is no merge or hash clause cannot be run: PostgreSQL's
// error, with nothing planned.
TEST_F(OuterJoinTables, FullJoinNeedsAnEqualityCondition) {
  EXPECT_EQ(testing::error_of(s_, "select * from o full join c on o.cust < c.cid"),
            "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions");
}

class IndexedOuterJoinTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(IndexedOuterJoinTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "outer_joins_index.out"), 19u);
}

// A parameterized join relation: the nullable side (o join l) is built per row of c, its
// scan of o keyed on c.cid and l's keyed on o.id inside it; EXPLAIN ANALYZE's counts are
// PostgreSQL 15's (the inner join run once per outer row, its scans per row of theirs).
TEST_F(IndexedOuterJoinTables, ParameterizedJoinRunsPerOuterRow) {
  const std::string text = testing::plan_text(
      s_,
      "explain (analyze, timing off, costs off) select c.cid, o.id, l.line from c left join "
      "(o join l on l.oid = o.id) on o.cust = c.cid where c.cid < 3 order by 1, 2, 3");
  for (const char* line :
       {"Nested Loop Left Join (actual rows=180 loops=1)", "Nested Loop (actual rows=60 loops=3)",
        "Bitmap Heap Scan on o (actual rows=40 loops=3)", "Recheck Cond: (cust = c.cid)",
        "Index Only Scan using l_oid on l (actual rows=2 loops=120)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

// A date joined against timestamp and timestamptz keys: the inner index (or bitmap) scan
// takes the outer date as its key's type, as PostgreSQL's cross-type operators compare
// them; classes with expression members (`a.n = (sk.s)::numeric AND b.n = (sk.s)::numeric`
// joins a and b; with a constant, `(s)::numeric = '15'::numeric` restricts sk), an
// outer join's varchar = text key, CASE folding; real and double precision columns in
// one class (`a.r = b.f` and `c.f = a.r` give the join clause `a.r = c.f`, hashed as
// double), a semi join over them unique-ified, a BETWEEN inside a join's OR estimated as
// one range (pg15/cross_type_join.out).
TEST(CrossTypeJoinKeys, ParameterizedScansArePostgres) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "cross_type_join_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "cross_type_join.out"), 54u);
}

// An outer join's date = timestamp (and timestamptz) is a merge clause of one operator
// family (datetime_ops), each side in its index's order; a varchar merged with text
// skips and reads as much of each input as PostgreSQL's mergejoinscansel says
// (pg15/merge_cross_type.out, captured with hash and nested loop joins off).
TEST(CrossTypeJoinKeys, OuterJoinsMergeDatesWithTimestamps) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "cross_type_join_setup.sql");
  s.execute("set enable_hashjoin = off");
  s.execute("set enable_nestloop = off");
  EXPECT_EQ(testing::check_pg15_queries(s, "merge_cross_type.out"), 9u);
}

// Join clauses bounding an inner index key (`ji.a <= jo.lo`, two bounds on one key, a
// BETWEEN, a varchar key against text, a date or timestamp against timestamp and
// timestamptz keys): parameterized Index and Bitmap Heap Scans with runtime inequality
// keys, their 1/3 row estimate, a Memoize above in binary mode, semi and anti joins over
// them; an InitPlan's `$n` as a Bitmap Index Scan's key, alone or beside a join's
// parameters (pg15/param_ineq.out).
TEST(InequalityJoinKeys, ParameterizedScansArePostgres) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "param_ineq_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "param_ineq.out"), 30u);
}

}  // namespace
}  // namespace tp
