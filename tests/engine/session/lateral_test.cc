// LATERAL subqueries against PostgreSQL 15.20 over pg15/joins_index_setup.sql's tables
// (pg15/lateral.out): those PostgreSQL pulls up (is_simple_subquery) join the query, their
// WHERE conjuncts over the tables before them becoming join clauses of the lowest join
// holding those tables (a LEFT JOIN LATERAL's decide its matches), through FROM lists,
// CROSS JOIN, JOIN ... ON, LEFT JOIN ... ON true, references in the select list, column
// aliases, unqualified names, a LATERAL inside a LATERAL, grouping above. Errors are
// PostgreSQL's (pg15/lateral_errors.out): 42P10 across a RIGHT or FULL join, a table
// written after the subquery, LATERAL before a table name. Those PostgreSQL plans on its
// own (pg15/lateral_alone.out) are a parameterized relation joined by Nested Loops.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class LateralTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(LateralTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "lateral.out"), 16u);
}

TEST_F(LateralTables, ErrorsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "lateral_errors.out"), 9u);
}

// LEFT JOIN LATERAL keeps the outer rows the subquery has no row for, with NULLs.
TEST_F(LateralTables, LeftJoinLateralKeepsRowsWithoutMatch) {
  const ResultSet r = s_.execute(
      "select c.cid, s.id from c left join lateral (select o.id from o where o.cust = c.cid "
      "and o.id < 3) s on true where c.cid < 4 order by c.cid");
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(r.rows[0][1], "");  // cid 0: no order below id 3
  EXPECT_EQ(r.rows[1][1], "1");
  EXPECT_EQ(r.rows[2][1], "2");
  EXPECT_EQ(r.rows[3][1], "");
}

// Planned on their own (ORDER BY, LIMIT, OFFSET, DISTINCT): a Nested Loop over the
// subquery's plan, parameterized by the table before it, a binary Memoize over it
// where PostgreSQL adds one (pg15/lateral_alone.out).
TEST_F(LateralTables, PlannedAlonePlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "lateral_alone.out"), 4u);
}

// Top-N per outer row under a binary Memoize keyed by the lateral reference
// (pg15/lateral_setup.sql: ten thousand rows reading a hundred keys).
TEST(LateralMemoize, PlansAndRowsArePostgres) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "lateral_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "lateral_memo.out"), 5u);
}

// The subquery's plan runs once per outer row, its outer column a runtime index key.
TEST_F(LateralTables, SubqueryPlanLoopsOncePerOuterRow) {
  std::string text = testing::plan_text(
      s_,
      "explain (analyze, costs off, timing off) select r.rid, s.line from r join lateral "
      "(select l.line from l where l.oid = r.rid order by l.line limit 2) s on true");
  EXPECT_NE(text.find("Nested Loop (actual rows=18 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Limit (actual rows=2 loops=10)"), std::string::npos) << text;
  EXPECT_NE(text.find("Index Cond: (oid = r.rid)"), std::string::npos) << text;
}

// What PostgreSQL plans with more than one parameterized relation or a Subquery Scan of
// its own is refused by name, not planned differently.
TEST_F(LateralTables, WhatIsNotBuiltIsRefusedByName) {
  auto refused = [&](const std::string& sql, const std::string& what) {
    const std::string e = testing::error_of(s_, sql);
    EXPECT_NE(e.find(what), std::string::npos) << sql << ": " << e;
    EXPECT_NE(e.find("not supported"), std::string::npos) << sql << ": " << e;
  };
  refused("select c.cid, s.n from c, lateral (select count(*) as n from o where o.cust = c.cid) s",
          "LATERAL subquery with aggregates");
  refused(
      "select c.cid, s.id from c join lateral (select o.id from o where o.cust = c.cid order by "
      "o.id limit 2) s on s.id > c.cid * 10",
      "a join condition over a LATERAL subquery");
  refused(
      "select c.cid, s.id, r.label from c, lateral (select o.id, o.id % 10 as rr from o where "
      "o.cust = c.cid order by o.id limit 1) s, r where r.rid = s.rr",
      "a join condition over a LATERAL subquery");
  refused(
      "select o.id, s.x from o, c, lateral (select l.line as x from l where l.oid = o.id and "
      "l.qty = c.region limit 1) s",
      "reading two relations before it");
  refused(
      "select c.cid, s.id from c, lateral (select o.id from o join l on l.oid = o.id where "
      "o.cust = c.cid limit 1) s",
      "over a join");
  refused("select * from c, lateral generate_series(1, c.region) g", "LATERAL over a function");
}

}  // namespace
}  // namespace tp
