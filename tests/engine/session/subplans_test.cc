// Subqueries PostgreSQL 15 runs as InitPlans and SubPlans, against pg15/subplans_setup.sql's
// tables (t with NULLs in v, u unindexed, w indexed on k, n holding a NULL): uncorrelated
// scalar subqueries in WHERE and in the select list (`k = $0`, NULL when no row), an
// uncorrelated EXISTS and NOT EXISTS (`One-Time Filter: $0`), NOT IN as a hashed SubPlan
// with NULLs on either side and an empty subquery; correlated scalar subqueries as
// SubPlans run per row (an inner index scan's runtime key from the outer row). Plans, costs and
// rows are PostgreSQL 15.20's (pg15/subplans.out), errors too (pg15/subplans_errors.out, among them
// 21000).
#include <gtest/gtest.h>

#include "engine/core/error.h"
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

class SubPlanTables : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "subplans_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(SubPlanTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "subplans.out"), 65u);
}

TEST_F(SubPlanTables, ErrorsArePostgres) {
  const std::vector<std::string> lines =
      testing::fixture_lines("tests/engine/session/pg15/subplans_errors.out");
  ASSERT_EQ(lines.size(), 10u);
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    const std::string sql = lines[i].substr(2);
    try {
      s_.execute(sql);
      ADD_FAILURE() << sql << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), lines[i + 1].substr(2)) << sql;
    }
  }
  try {
    s_.execute("select id from t where k = (select k from u)");
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "21000");
  }
}

// An InitPlan runs once, when its value is first read; never when nothing reads it.
TEST_F(SubPlanTables, InitPlanRunsOnceOrNever) {
  std::string text = explain(s_, "select id from t where k = (select max(x) from u where z = 3)");
  EXPECT_NE(text.find("InitPlan 1 (returns $0)\n    ->  Aggregate (actual rows=1 loops=1)"),
            std::string::npos)
      << text;
  // A false One-Time Filter: the scan below never starts.
  text = explain(s_, "select id from t where exists (select 1 from u where z = 99)");
  EXPECT_NE(text.find("->  Seq Scan on t (never executed)"), std::string::npos) << text;
  // EXISTS stops at the first row.
  text = explain(s_, "select count(*) from t where exists (select 1 from u)");
  EXPECT_NE(text.find("Seq Scan on u (actual rows=1 loops=1)"), std::string::npos) << text;
  // No row reads the value: the InitPlan never runs.
  s_.execute("create table e (k int)");
  text = explain(s_, "select k from e where k = (select max(x) from u)");
  EXPECT_NE(text.find("->  Aggregate (never executed)"), std::string::npos) << text;
}

// The hashed SubPlan reads its rows once; NOT IN follows SQL's NULL rules.
TEST_F(SubPlanTables, HashedSubPlanRunsOnce) {
  const std::string text = explain(s_, "select count(*) from t where v not in (select z from u)");
  EXPECT_NE(text.find("SubPlan 1\n          ->  Seq Scan on u (actual rows=3000 loops=1)"),
            std::string::npos)
      << text;
  EXPECT_EQ(s_.execute("select count(*) from t where v not in (select a from n)").rows.at(0).at(0),
            "0");
  EXPECT_EQ(s_.execute("select count(*) from t where v not in (select a from n where a > 5)")
                .rows.at(0)
                .at(0),
            "2000");
}

// NOT IN over more rows than hash_mem holds: a plain SubPlan read again per row, over a
// Materialize (none with enable_material off); PostgreSQL 15.20's plans, costs and loops.
TEST_F(SubPlanTables, PlainSubPlanBeyondHashMem) {
  s_.execute("create table b (x int)");
  s_.execute("insert into b select i from generate_series(1, 6000) i");
  s_.execute("analyze b");
  s_.execute("set work_mem = '64kB'");
  const std::string q =
      "select id from t where id < 20 and v not in (select x + 90 from b) order by id";
  auto plan = [&] {
    std::string text;
    for (const auto& row : s_.execute("explain " + q).rows) text += row.at(0) + "\n";
    return text;
  };
  EXPECT_EQ(plan(),
            "Sort  (cost=171041.17..171041.19 rows=10 width=4)\n"
            "  Sort Key: t.id\n"
            "  ->  Seq Scan on t  (cost=0.00..171041.00 rows=10 width=4)\n"
            "        Filter: ((id < 20) AND (NOT (SubPlan 1)))\n"
            "        SubPlan 1\n"
            "          ->  Materialize  (cost=0.00..156.00 rows=6000 width=4)\n"
            "                ->  Seq Scan on b  (cost=0.00..102.00 rows=6000 width=4)\n");
  std::string text = explain(s_, q);
  EXPECT_NE(text.find("->  Materialize (actual rows=6000 loops=19)"), std::string::npos) << text;
  EXPECT_NE(text.find("->  Seq Scan on b (actual rows=6000 loops=1)"), std::string::npos) << text;
  EXPECT_EQ(s_.execute(q).rows.size(), 18u);
  s_.execute("set enable_material = off");
  EXPECT_EQ(plan(),
            "Sort  (cost=117041.17..117041.19 rows=10 width=4)\n"
            "  Sort Key: t.id\n"
            "  ->  Seq Scan on t  (cost=0.00..117041.00 rows=10 width=4)\n"
            "        Filter: ((id < 20) AND (NOT (SubPlan 1)))\n"
            "        SubPlan 1\n"
            "          ->  Seq Scan on b  (cost=0.00..102.00 rows=6000 width=4)\n");
  text = explain(s_, q);
  EXPECT_NE(text.find("->  Seq Scan on b (actual rows=6000 loops=19)"), std::string::npos) << text;
  // NULLs: a NULL on the left, or among the rows, makes NOT IN NULL (the row filtered out).
  EXPECT_EQ(s_.execute("select count(*) from t where v not in (select x from b)").rows.at(0).at(0),
            "19");
  s_.execute("insert into b values (null)");
  EXPECT_EQ(s_.execute("select count(*) from t where v not in (select x from b)").rows.at(0).at(0),
            "0");
}

// An index scan whose Filter runs a SubPlan hands up each row that passes at once: a
// Merge Join whose other side runs out reads 11 rows and runs the SubPlan 11 times, as
// PostgreSQL's EXPLAIN ANALYZE shows for the same tables (not a batch of them).
TEST_F(SubPlanTables, FilterSubPlanRunsOnlyForRowsTheParentReads) {
  s_.execute("create table ma (k int, v int)");
  s_.execute("insert into ma select i, i % 7 from generate_series(1, 3000) i");
  s_.execute("create index ma_k on ma (k)");
  s_.execute("create table mb (k int)");
  s_.execute("insert into mb select i from generate_series(1, 10) i");
  s_.execute("analyze ma");
  s_.execute("analyze mb");
  s_.execute("set enable_hashjoin = off");
  s_.execute("set enable_nestloop = off");
  const std::string text = explain(s_,
                                   "select count(*) from ma join mb on ma.k = mb.k where (select "
                                   "count(*) from mb b2 where b2.k = ma.v) >= 0");
  EXPECT_NE(text.find("Index Scan using ma_k on ma (actual rows=11 loops=1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("->  Aggregate (actual rows=1 loops=11)"), std::string::npos) << text;
}

// A correlated SubPlan runs once per outer row, rescanning its plan with the row's
// values; what is not built yet is refused by name.
TEST_F(SubPlanTables, CorrelatedSubPlanRunsPerRow) {
  const std::string text =
      explain(s_, "select id from t where v = (select max(y) from w where w.k = t.k)");
  // PostgreSQL runs it for the rows whose v is NULL too (the operator's arguments first).
  EXPECT_NE(text.find("->  Aggregate (actual rows=1 loops=2000)"), std::string::npos) << text;
  EXPECT_NE(text.find("Index Scan using w_k on w (actual rows=1 loops=2000)"), std::string::npos)
      << text;
  // Over a join: the outer row's columns of any of its tables are the parameters.
  const std::string joined = explain(
      s_, "select t.id, (select count(*) from u where u.k = t.k) from t join w on w.k = t.id");
  EXPECT_NE(joined.find("->  Aggregate (actual rows=1 loops=500)"), std::string::npos) << joined;
  try {
    s_.execute("select id from t where k = 1 or exists (select 1 from u where u.k = t.k)");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a correlated EXISTS inside an expression"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.sqlstate(), "0A000");
  }
}

// A correlated subquery's (or a LATERAL one's) outer value compared with an index key
// of another type: the value as it is (int8 against an int4 key, text against text, a
// date against a timestamptz key through the cross-type operator) or cast to the key's
// type (`n = (p.k)::numeric`, `b = (p.k + 1)`, NULLIF), computed once per outer row;
// an InitPlan's value of another width or varchar's text (`(v)::text = $0`) too; an
// inequality over either bounds the key (`Index Cond: (i < $0)`, `(t <= p.name)` for
// `p.name >= t`), paired with the key's other bounds as clauselist_selectivity pairs
// a pseudo-constant (pg15/subplan_keys.out over pg15/subplan_keys_setup.sql).
TEST(SubPlanKeys, OuterValuesOfOtherTypesAreIndexKeys) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "subplan_keys_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "subplan_keys.out"), 25u);
}

}  // namespace
}  // namespace tp
