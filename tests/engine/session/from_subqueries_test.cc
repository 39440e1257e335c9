// Subqueries in FROM and WITH queries pulled up into the query around them, against
// PostgreSQL 15.20 over pg15/joins_index_setup.sql's tables (pg15/from_subqueries.out):
// column aliases, expressions in the subquery's select list (in quals, ORDER BY and
// GROUP BY above it), a subquery's WHERE filtering its table before the join's clauses,
// parameterized index and bitmap scans on a table joined to a pulled-up one, nested
// subqueries, a table written inside and outside a subquery (EXPLAIN's `o o_1`), WITH
// queries referenced once or NOT MATERIALIZED, LEFT JOINs around subqueries, USING
// beside them, EXISTS / NOT EXISTS / IN (SELECT ...) reading a subquery's columns (and
// EXPLAIN's names in PostgreSQL's range-table order: EXISTS's tables before the FROM
// subqueries', IN's after). Errors are PostgreSQL's (pg15/from_subqueries_errors.out); what
// PostgreSQL would plan as a Subquery Scan or a CTE Scan is refused by name.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class FromSubqueryTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(FromSubqueryTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "from_subqueries.out"), 50u);
}

TEST_F(FromSubqueryTables, ErrorsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "from_subqueries_errors.out"), 19u);
}

// The table joined to a pulled-up subquery is scanned once per row of it: the subquery's
// WHERE filters its table, and the inner side's loops are the rows that passed.
TEST_F(FromSubqueryTables, ParameterizedInnerSideLoopsOncePerSubqueryRow) {
  std::string text;
  for (const auto& row :
       s_.execute("explain (analyze, costs off, timing off) select s.id, l.qty from (select id, "
                  "cust from o where id between 100 and 110) s join l on l.oid = s.id")
           .rows)
    text += row.at(0) + "\n";
  EXPECT_NE(text.find("Nested Loop (actual rows=66 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Seq Scan on o (actual rows=11 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Bitmap Heap Scan on l (actual rows=6 loops=11)"), std::string::npos) << text;
  EXPECT_NE(text.find("Index Cond: (oid = o.id)"), std::string::npos) << text;
}

// Output columns take the subquery's names (its aliases, then the FROM item's column
// aliases), and `*` lists them in the subquery's order.
TEST_F(FromSubqueryTables, OutputColumnsAreTheSubquerysNames) {
  const ResultSet r = s_.execute(
      "select * from (select id, cust + 1 as k, note from o where id = 3) s(a) join r on "
      "r.rid = s.a");
  ASSERT_EQ(r.columns.size(), 5u);
  EXPECT_EQ(r.columns[0], "a");
  EXPECT_EQ(r.columns[1], "k");
  EXPECT_EQ(r.columns[2], "note");
  EXPECT_EQ(r.columns[3], "rid");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][1], "4");
}

// What PostgreSQL plans on its own (a Subquery Scan, a CTE Scan, a PlaceHolderVar) is
// refused with its name, not planned differently.
TEST_F(FromSubqueryTables, WhatIsNotBuiltIsRefusedByName) {
  auto refused = [&](const std::string& sql, const std::string& what) {
    const std::string e = testing::error_of(s_, sql);
    EXPECT_NE(e.find(what), std::string::npos) << sql << ": " << e;
    EXPECT_NE(e.find("not supported"), std::string::npos) << sql << ": " << e;
  };
  refused("select * from (select count(*) as n from o) s join c on s.n = c.cid",
          "GROUP BY or aggregates (a Subquery Scan)");
  refused("select * from (select id from o order by id limit 5) s join c on s.id = c.cid",
          "ORDER BY, LIMIT or OFFSET (a Subquery Scan)");
  refused("select * from (select distinct cust from o) s join c on s.cust = c.cid",
          "DISTINCT (a Subquery Scan)");
  refused("with w as (select id from o) select * from w join w w2 on w.id = w2.id",
          "referenced more than once (a CTE Scan)");
  refused("with w as materialized (select id from o) select * from w join c on w.id = c.cid",
          "AS MATERIALIZED (a CTE Scan)");
  refused(
      "select c.name, s.k from c left join (select id, 1 as k, cust from o) s on c.cid = "
      "s.cust",
      "PlaceHolderVar");
  refused("select * from lateral (select 1) s", "a subquery in FROM without a FROM clause");
  refused("with recursive w as (select 1) select * from w", "WITH RECURSIVE");
  refused(
      "select * from (select id from o where exists (select 1 from c where c.cid = o.cust)) s "
      "join r on r.rid = s.id",
      "a subquery in an expression");
}

// A WITH query nothing reads is not planned, but its names are checked as PostgreSQL's
// parser checks them.
TEST_F(FromSubqueryTables, UnreferencedWithQueryIsCheckedNotPlanned) {
  EXPECT_EQ(s_.execute("with w as (select cid from c where region < 0) select count(*) from o "
                       "join c on o.cust = c.cid where o.id < 10")
                .rows.at(0)
                .at(0),
            "9");
  EXPECT_EQ(testing::error_of(s_,
                              "with w as (select * from nosuch_table) select count(*) from o "
                              "join c on o.cust = c.cid where o.id < 10"),
            "relation \"nosuch_table\" does not exist");
  EXPECT_EQ(testing::error_of(s_,
                              "with w as (select nope from c) select count(*) from o join c "
                              "on o.cust = c.cid"),
            "column \"nope\" does not exist");
  // Not built is no error for a WITH query nothing reads.
  EXPECT_EQ(s_.execute("with w as (select count(*) from c) select count(*) from o join c on "
                       "o.cust = c.cid where o.id < 10")
                .rows.at(0)
                .at(0),
            "9");
}

}  // namespace
}  // namespace tp
