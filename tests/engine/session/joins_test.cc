// Inner joins against PostgreSQL 15.20 over the four tables of pg15/joins_setup.sql
// (orders with NULL customers, customers keyed by bigint, regions keyed by int, order
// lines; no indexes): FROM lists, JOIN ... ON and USING, CROSS JOIN, self-joins under
// aliases, an equivalence class over three tables, Join Filters of inequalities and
// ORs across tables, computed columns and ORDER BY over the join, LIMIT. Each query's
// plan (Hash Join, Merge Join over Sorts, Nested Loop over a Materialize), costs, widths
// and rows are PostgreSQL's (pg15/joins.out), and so are the name errors
// (pg15/joins_errors.out).
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

std::string explain(Session& s, const std::string& sql) {
  return testing::plan_text(s, "explain " + sql);
}

class JoinTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(JoinTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "joins.out"), 17u);
}

TEST_F(JoinTables, NameErrorsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "joins_errors.out"), 9u);
}

// The join methods' settings: without hash joins the same join is a Merge Join over two
// Sorts, without those too a Nested Loop; disabling nested loops leaves one when it is
// the only method (no equality to hash or merge on).
TEST_F(JoinTables, EnableSettingsChooseTheMethod) {
  const char* q = "select o.id, c.name from o join c on o.cust = c.cid";
  EXPECT_NE(explain(s_, q).find("Hash Join"), std::string::npos);
  s_.execute("set enable_hashjoin = off");
  EXPECT_NE(explain(s_, q).find("Merge Join"), std::string::npos) << explain(s_, q);
  s_.execute("set enable_mergejoin = off");
  const std::string nl = explain(s_, q);
  EXPECT_NE(nl.find("Nested Loop"), std::string::npos) << nl;
  EXPECT_NE(nl.find("Join Filter: (o.cust = c.cid)"), std::string::npos) << nl;
  s_.execute("set enable_nestloop = off");
  EXPECT_NE(explain(s_, "select * from r, c where r.rid < c.region").find("Nested Loop"),
            std::string::npos);
  // Each method returns the same rows.
  s_.execute("reset all");
  const auto want = s_.execute(std::string(q) + " order by 1, 2").rows;
  for (const char* off : {"enable_hashjoin", "enable_mergejoin"}) {
    s_.execute(std::string("set ") + off + " = off");
    EXPECT_EQ(s_.execute(std::string(q) + " order by 1, 2").rows, want) << off;
  }
}

// The same tables with indexes (pg15/joins_index_setup.sql): parameterized index scans
// on a Nested Loop's inner side (`Index Cond: (oid = o.id)`, one scan per outer row),
// Merge Joins over an index's order with mergejoinscansel's fractions, inner-unique
// joins, ORDER BY keys a constant makes redundant; PostgreSQL's plans and rows.
class IndexedJoinTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(IndexedJoinTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "joins_index.out"), 13u);
}

// A parameterized inner scan runs once per outer row, each with that row's value, and
// EXPLAIN ANALYZE shows the loops and the rows per loop as PostgreSQL does (Heap Fetches a
// total over them).
TEST_F(IndexedJoinTables, InnerIndexScanRunsPerOuterRow) {
  const std::string q =
      "select c.cid, o.id from c join o on o.cust = c.cid where c.cid < 3 order by 2";
  std::string text;
  for (const auto& r : s_.execute("explain (analyze, timing off, costs off) " + q).rows)
    text += r.at(0) + "\n";
  // PostgreSQL's choice: a parameterized Bitmap Heap Scan, its bitmap built per outer row.
  EXPECT_NE(text.find("Bitmap Heap Scan on o (actual rows=40 loops=3)"), std::string::npos) << text;
  EXPECT_NE(text.find("Recheck Cond: (cust = c.cid)"), std::string::npos) << text;
  EXPECT_NE(text.find("Bitmap Index Scan on o_cust (actual rows=40 loops=3)"), std::string::npos)
      << text;
  EXPECT_EQ(s_.execute(q).rows.size(), 120u);
  s_.execute("set enable_bitmapscan = off");
  text.clear();
  for (const auto& r : s_.execute("explain (analyze, timing off, costs off) " + q).rows)
    text += r.at(0) + "\n";
  EXPECT_NE(text.find("Index Scan using o_cust on o (actual rows=40 loops=3)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Index Cond: (cust = c.cid)"), std::string::npos) << text;
  EXPECT_EQ(s_.execute(q).rows.size(), 120u);
  text.clear();
  for (const auto& r : s_.execute("explain (analyze, timing off, costs off) select o.id, l.line "
                                  "from o join l on l.oid = o.id where o.id between 100 and 104")
                           .rows)
    text += r.at(0) + "\n";
  EXPECT_NE(text.find("Index Only Scan using l_oid on l (actual rows=6 loops=5)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Heap Fetches: 30"), std::string::npos) << text;
}

// Join clauses no index key holds move into the parameterized scan (PostgreSQL's
// ppi_clauses): its Filter reads the outer row's values, its rows count them, and a
// Memoize keys on their outer sides (pg15/param_moved.out; pg15/param_moved_nl.out with
// hash and merge joins off). EXPLAIN ANALYZE's counts are PostgreSQL 15's.
TEST_F(IndexedJoinTables, JoinClausesMoveIntoTheParameterizedScan) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "param_moved.out"), 7u);
  s_.execute("set enable_hashjoin = off");
  s_.execute("set enable_mergejoin = off");
  EXPECT_EQ(testing::check_pg15_queries(s_, "param_moved_nl.out"), 7u);
  auto analyzed = [&](const std::string& q) {
    return testing::plan_text(s_, "explain (analyze, timing off, costs off) " + q);
  };
  std::string text = analyzed(
      "select o.id, c.name from o join c on c.cid = o.cust and (c.region < 3 or o.amount > 90) "
      "where o.id < 40 order by 1");
  EXPECT_NE(text.find("Index Scan using c_cid on c (actual rows=0 loops=39)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Filter: ((region < 3) OR (o.amount > '90'::numeric))\n"
                      "              Rows Removed by Filter: 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Nested Loop (actual rows=11 loops=1)"), std::string::npos) << text;
  text = analyzed(
      "select count(*) from o join c on c.cid = o.cust and c.name <> o.note || 'x' "
      "where o.id < 2000");
  EXPECT_NE(text.find("Cache Key: (o.note || 'x'::text), o.cust"), std::string::npos) << text;
  EXPECT_NE(text.find("Hits: 0  Misses: 1999"), std::string::npos) << text;
  EXPECT_NE(text.find("Nested Loop (actual rows=1979 loops=1)"), std::string::npos) << text;
}

// right_merge_direction: an index is useful for a merge in the direction the ORDER BY
// wants the merge key's class, wherever in the ORDER BY it stands, so a backward scan
// feeds a descending Merge Join (hash joins and nested loops off: pg15/merge_desc.out).
TEST_F(IndexedJoinTables, MergeJoinsRunInTheOrderByDirection) {
  s_.execute("set enable_hashjoin = off");
  s_.execute("set enable_nestloop = off");
  EXPECT_EQ(testing::check_pg15_queries(s_, "merge_desc.out"), 9u);
}

// A semi join's right side unique-ified by a HashAggregate that its statistics said was
// small (ten values analyzed, twenty thousand since) still answers when the groups
// outgrow hash_mem: the table stays in memory, as a DISTINCT's does, where PostgreSQL
// would spill it (it failed with "needs more than 0 MB" before).
TEST_F(IndexedJoinTables, UniqueifiedSideOutgrowingHashMemStillAnswers) {
  s_.execute("create table u (k int)");
  s_.execute("insert into u select i % 10 from generate_series(1, 100) i");
  s_.execute("analyze u");
  s_.execute("insert into u select i from generate_series(1, 20000) i");
  s_.execute("set work_mem = '64kB'");
  const std::string q = "select count(*) from o where o.id < 300 and o.id in (select k from u)";
  const std::string plan = explain(s_, q);
  EXPECT_NE(plan.find("HashAggregate"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Group Key: u.k"), std::string::npos) << plan;
  EXPECT_EQ(s_.execute(q).rows.at(0).at(0), "299");
}

// Equalities across types hash and merge as the operator compares them: real with double
// precision by hash (PostgreSQL's float family hashes both alike), date with timestamptz by
// merge only (no cross-type hash family); each gives the rows of a plain nested loop.
TEST_F(JoinTables, CrossTypeEqualitiesHashAndMerge) {
  s_.execute("create table xr (r real, d date)");
  s_.execute("create table xd (f float8, tz timestamptz, k int)");
  s_.execute(
      "insert into xr select (i % 300) / 4.0, date '2020-01-01' + i % 400 "
      "from generate_series(1, 2000) i");
  s_.execute(
      "insert into xd select (i % 500) / 4.0, timestamptz '2020-01-01 00:00+00' + "
      "(i % 700) * interval '1 day', i from generate_series(1, 1000) i");
  s_.execute("set timezone = 'UTC'");
  s_.execute("analyze xr");
  s_.execute("analyze xd");
  const std::string by_float = "select xr.r, xd.k from xr join xd on xr.r = xd.f order by 1, 2";
  const std::string by_date =
      "select xr.d, xd.k from xr join xd on xr.d = xd.tz where xd.k < 100 order by 1, 2";
  EXPECT_NE(explain(s_, by_float).find("Hash Cond: (xr.r = xd.f)"), std::string::npos)
      << explain(s_, by_float);
  EXPECT_NE(explain(s_, by_date).find("Merge Join"), std::string::npos) << explain(s_, by_date);
  const auto hashed = s_.execute(by_float).rows;
  const auto merged = s_.execute(by_date).rows;
  s_.execute("set enable_hashjoin = off");
  s_.execute("set enable_mergejoin = off");
  EXPECT_NE(explain(s_, by_float).find("Nested Loop"), std::string::npos);
  EXPECT_EQ(s_.execute(by_float).rows, hashed);
  EXPECT_EQ(s_.execute(by_date).rows, merged);
  EXPECT_EQ(hashed.size(), 4000u);
  EXPECT_FALSE(merged.empty());
  // A semi join over date = timestamptz is unique-ified by sorting (its operator does
  // not hash): PostgreSQL 15's plan, cost and count.
  const std::string semi =
      "select count(*) from xd where exists (select 1 from xr where xr.d = xd.tz and xr.r < 2)";
  const std::string plan = explain(s_, semi);
  EXPECT_NE(plan.find("Nested Loop  (cost=35.41..775.16 rows=75 width=0)"), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("Unique  (cost=35.41..35.66 rows=48 width=4)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Sort Key: xr.d"), std::string::npos) << plan;
  EXPECT_EQ(s_.execute(semi).rows.at(0).at(0), "56");
}

// A table whose restrictions are false makes the join empty: no scan runs.
TEST_F(JoinTables, ContradictionGivesNoRows) {
  EXPECT_TRUE(s_.execute("select * from o, c where o.cust = c.cid and 1 = 2").rows.empty());
  EXPECT_TRUE(
      s_.execute("select * from o, c where o.cust = c.cid and o.id = 1 and o.id = 2").rows.empty());
}

}  // namespace
}  // namespace tp
