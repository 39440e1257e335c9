// UNION [ALL] against PostgreSQL 15 over pg15/joins_index_setup.sql's tables
// (pg15/set_operations.out: plans, costs and rows; pg15/set_operations_errors.out): the
// append relation of a UNION ALL whose branches return the union's types (a branch
// PostgreSQL cannot pull up costed with its removed Subquery Scan), generate_union_paths
// otherwise (a Subquery Scan shown where it casts a column, the keys above read through
// it), HashAggregate or Sort + Unique for UNION, nested unions, a table in two branches
// (`o o_1`), ORDER BY by name or position and LIMIT / OFFSET over the whole; PostgreSQL's
// errors for mismatched branches and ORDER BY expressions; the Merge Append of
// generate_orderedappend_paths over branches with an index in ORDER BY's order.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class SetOperationTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  std::string plan(const std::string& sql) {
    std::string text;
    for (const auto& row : s_.execute(sql).rows) text += row.at(0) + "\n";
    return text;
  }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(SetOperationTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "set_operations.out"), 35u);
}

TEST_F(SetOperationTables, ErrorsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "set_operations_errors.out"), 9u);
}

// EXPLAIN ANALYZE: the Append returns every branch's rows, the HashAggregate one per
// distinct value, NULLs equal to each other.
TEST_F(SetOperationTables, AnalyzeCountsRowsPerNode) {
  const std::string text = plan(
      "explain (analyze, costs off, timing off) select cust from o where id < 5 union "
      "select cust from o where id < 3 union select null::int from r");
  EXPECT_NE(text.find("HashAggregate (actual rows=5 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Append (actual rows=16 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Seq Scan on o (actual rows=4 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Seq Scan on o o_1 (actual rows=2 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Seq Scan on r (actual rows=10 loops=1)"), std::string::npos) << text;
  // Sort + Unique keeps one NULL too.
  s_.execute("set enable_hashagg = off");
  const ResultSet r = s_.execute("select null::int from r union select null::int from c");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(s_.execute("explain select null::int from r union select null::int from c")
                  .rows.at(0)
                  .at(0)
                  .find("Unique") != std::string::npos);
}

// A LIMIT met in the first branch leaves the rest unread.
TEST_F(SetOperationTables, LimitStopsTheAppend) {
  const std::string text = plan(
      "explain (analyze, costs off, timing off) select id from o union all select cid from c "
      "limit 3");
  EXPECT_NE(text.find("Append (actual rows=3 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("never executed"), std::string::npos) << text;
}

// A Merge Append reads each branch in order and stops with the LIMIT: no branch is read
// beyond the rows the LIMIT lets through.
TEST_F(SetOperationTables, MergeAppendMergesInOrderAndStops) {
  const std::string text = plan(
      "explain (analyze, costs off, timing off) select cust from o union all select rid from r "
      "order by 1 limit 5");
  EXPECT_NE(text.find("Merge Append (actual rows=5 loops=1)"), std::string::npos) << text;
  // PostgreSQL reads a row at a time; tidepool's batches stop at the LIMIT's 5 rows.
  EXPECT_NE(text.find("Index Only Scan using o_cust on o (actual rows=5 loops=1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Index Only Scan using r_rid on r (actual rows=5 loops=1)"),
            std::string::npos)
      << text;
  const ResultSet r = s_.execute(
      "select rid from r where rid > 7 union all select cid from c where cid < 2 union all "
      "select 5 from r where rid = 0 order by 1");
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0][0], "0");
  EXPECT_EQ(r.rows[2][0], "5");
  EXPECT_EQ(r.rows[4][0], "9");
}

// Output names and types: the first branch's names, int4 with int8 as bigint, varchar
// with text as text.
TEST_F(SetOperationTables, ColumnsTakeTheFirstBranchsNamesAndTheCommonType) {
  const ResultSet r = s_.execute(
      "select id as k, note from o where id = 1 union all select cid, name from c "
      "where cid = 2 order by k");
  ASSERT_EQ(r.columns.size(), 2u);
  EXPECT_EQ(r.columns[0], "k");
  EXPECT_EQ(r.columns[1], "note");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1][1], "cust2");
  EXPECT_EQ(r.column_type_ids.at(0).type, TypeId::kInt8);
}

// What is not built is refused by name.
TEST_F(SetOperationTables, WhatIsNotBuiltIsRefusedByName) {
  auto refused = [&](const std::string& sql, const std::string& what) {
    const std::string e = testing::error_of(s_, sql);
    EXPECT_NE(e.find(what), std::string::npos) << sql << ": " << e;
    EXPECT_NE(e.find("not supported"), std::string::npos) << sql << ": " << e;
  };
  refused("select id from o intersect select rid from r", "INTERSECT");
  refused("select id from o except select rid from r", "EXCEPT");
  refused("select * from (select id from o union select rid from r) s", "UNION in a subquery");
  refused("select id from o where id in (select rid from r union select 1 from c)",
          "UNION in a subquery");
  refused("select * from generate_series(1, 3) union select 2", "a UNION branch over a function");
  refused("select count(*) from o union select rid from r", "an aggregate without GROUP BY");
}

}  // namespace
}  // namespace tp
