// SELECT DISTINCT over joins against PostgreSQL 15.20, over the tables of
// pg15/joins_setup.sql and (with indexes) pg15/joins_index_setup.sql: inner, outer, semi
// and anti joins; ORDER BY's entries first in the DISTINCT order with their directions,
// LIMIT and OFFSET; keys an equivalence class makes one or WHERE fixes; expressions;
// HashAggregate, Unique over a Sort, Unique over a path already in order (an index
// scan's, a Merge Join's). Plans, costs, widths and rows are PostgreSQL's, and so is the
// error for an ORDER BY outside the select list (pg15/join_distinct_errors.out).
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class JoinDistinct : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(JoinDistinct, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_distinct.out"), 17u);
}

// The same queries captured with enable_hashagg off: Unique over a Sort or over a path
// already in order.
TEST_F(JoinDistinct, WithoutHashAggregatePlansAndRowsArePostgres) {
  s_.execute("set enable_hashagg = off");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_distinct_sorted.out"), 17u);
}

TEST_F(JoinDistinct, ErrorsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_distinct_errors.out"), 8u);
}

// DISTINCT and GROUP BY over a join WHERE proves empty: over PostgreSQL's dummy relation
// (a Result with `One-Time Filter: false`), one group estimated, aggregates without
// GROUP BY still returning their one row; with enable_hashagg off too.
TEST_F(JoinDistinct, OverAnEmptyJoinArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_upper_empty.out"), 7u);
  s_.execute("set enable_hashagg = off");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_upper_empty_sorted.out"), 7u);
}

// What is not built over a join is refused by name.
TEST_F(JoinDistinct, RefusalsNameWhatIsMissing) {
  const std::pair<const char*, const char*> cases[] = {
      {"select distinct on (c.region) c.region, c.cid from o join c on o.cust = c.cid",
       "SELECT DISTINCT ON over a join"},
      {"select distinct count(*) from o join c on o.cust = c.cid",
       "SELECT DISTINCT over a join's groups or aggregates"},
  };
  for (const auto& [q, what] : cases) {
    try {
      s_.execute(q);
      ADD_FAILURE() << q << ": no error";
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()), std::string(what) + " is not supported yet") << q;
    }
  }
}

class IndexedJoinDistinct : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(IndexedJoinDistinct, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_distinct_index.out"), 4u);
}

// ORDER BY ... LIMIT over a join: an index leading with the first ORDER BY key is kept
// for ordering (pathkeys_useful_for_ordering), so a Nested Loop (inner, left, semi, anti)
// over it feeds the Limit in order, as in PostgreSQL's plans; a Merge Join on
// `o.cust * 2 = l.qty` returns rows in l.qty's order (one class to PostgreSQL), which an
// Incremental Sort completes.
TEST_F(IndexedJoinDistinct, OrderedOuterIndexFeedsTheLimit) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_order_limit.out"), 12u);
}

// An outer join's `l.oid = o.cust * 2`: the column side's index order is a merge input
// (PostgreSQL's single-member class for each side), so the Merge Right Join reads l_oid
// rather than sorting l (PostgreSQL 15.20's plan and count, hash and nested loop joins
// off).
TEST_F(IndexedJoinDistinct, ColumnSideOfAnExpressionJoinIsAMergeInput) {
  s_.execute("set enable_hashjoin = off");
  s_.execute("set enable_nestloop = off");
  const std::string q = "select count(l.line) from l right join o on l.oid = o.cust * 2";
  std::vector<std::string> plan;
  for (const auto& row : s_.execute("explain " + q).rows) plan.push_back(row.at(0));
  const std::vector<std::string> want = {
      "Aggregate  (cost=5737.47..5737.48 rows=1 width=8)",
      "  ->  Merge Right Join  (cost=1757.06..5437.47 rows=120000 width=4)",
      "        Merge Cond: (l.oid = ((o.cust * 2)))",
      "        ->  Index Only Scan using l_oid on l  (cost=0.29..1430.69 rows=30000 width=8)",
      "        ->  Sort  (cost=1756.77..1806.77 rows=20000 width=4)",
      "              Sort Key: ((o.cust * 2))",
      "              ->  Seq Scan on o  (cost=0.00..328.00 rows=20000 width=4)"};
  EXPECT_EQ(plan, want);
  EXPECT_EQ(s_.execute(q).rows.at(0).at(0), "118524");
}

}  // namespace
}  // namespace tp
