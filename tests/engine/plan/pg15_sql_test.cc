// The SQL added for planner fidelity, end to end against PostgreSQL 15.18: q1 is built
// and analyzed as pg15/q1_setup.sql builds it (20,000 rows, sampled whole, so both
// systems hold the same statistics), and each statement of pg15/q1_explain.sql must
// print exactly the plan PostgreSQL printed into pg15/q1_explain.out (read here as
// psql wrote it). The results of the same SQL are checked against a reference
// computed from the rows' definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::psql_results;
using testing::read_fixture;
using testing::script_statements;

class Pg15Sql : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"q1_setup.sql"});
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
testing::FixtureTables* Pg15Sql::tables_ = nullptr;
Session* Pg15Sql::s_ = nullptr;

TEST_F(Pg15Sql, EveryPlanIsPostgres) {
  std::vector<std::string> queries = script_statements(read_fixture("q1_explain.sql"));
  std::vector<std::vector<std::string>> plans = psql_results(read_fixture("q1_explain.out"));
  ASSERT_EQ(queries.size(), plans.size());
  ASSERT_GE(queries.size(), 66u);
  for (size_t i = 0; i < queries.size(); ++i) EXPECT_EQ(lines(queries[i]), plans[i]) << queries[i];
}

// q1's rows, from q1_setup.sql's definition, as the reference.
struct Row {
  int64_t a, b, c, d;
};
std::vector<Row> reference_rows() {
  std::vector<Row> rows;
  for (int64_t i = 1; i <= 20000; ++i) rows.push_back({i, i % 100, (i * 7919) % 20000, i / 50});
  return rows;
}

std::vector<std::string> column(Session& s, const std::string& sql) {
  std::vector<std::string> out;
  for (const auto& row : s.execute(sql).rows) out.push_back(row[0]);
  return out;
}

TEST_F(Pg15Sql, NullTestsOnColumnsWithoutNulls) {
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a IS NULL"), "0");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a IS NOT NULL"), "20000");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE d ISNULL OR c = 3"), "1");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE c < 100 AND d NOTNULL"), "100");
  // The index scans PostgreSQL plans for them return the same rows.
  EXPECT_TRUE(column(*s_, "SELECT a FROM q1 WHERE a IS NULL ORDER BY a DESC").empty());
  EXPECT_TRUE(column(*s_, "SELECT a FROM q1 WHERE a IS NULL ORDER BY a").empty());
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 WHERE a IS NOT NULL AND a < 4 ORDER BY a"),
            (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT NULL IS NULL"), "t");
  EXPECT_EQ(testing::scalar(*s_, "SELECT 1 IS NULL"), "f");
}

TEST_F(Pg15Sql, BetweenSymmetricTakesTheBoundsInEitherOrder) {
  for (const char* sql : {"SELECT a FROM q1 WHERE a BETWEEN SYMMETRIC 20 AND 17 ORDER BY a",
                          "SELECT a FROM q1 WHERE a BETWEEN SYMMETRIC 17 AND 20 ORDER BY a",
                          "SELECT a FROM q1 WHERE a BETWEEN 17 AND 20 ORDER BY a"})
    EXPECT_EQ(column(*s_, sql), (std::vector<std::string>{"17", "18", "19", "20"})) << sql;
  EXPECT_TRUE(column(*s_, "SELECT a FROM q1 WHERE a BETWEEN 20 AND 17").empty());
  int64_t outside = 0;
  for (const Row& r : reference_rows()) outside += r.b < 5 || r.b > 10;
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE b NOT BETWEEN SYMMETRIC 10 AND 5"),
            std::to_string(outside));
}

TEST_F(Pg15Sql, OffsetAndFetchFirstCutTheOrderedRows) {
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 ORDER BY a LIMIT 3 OFFSET 10"),
            (std::vector<std::string>{"11", "12", "13"}));
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 ORDER BY a OFFSET 10 LIMIT 3"),
            (std::vector<std::string>{"11", "12", "13"}));
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 ORDER BY a DESC OFFSET 2 ROWS FETCH NEXT 2 ROWS ONLY"),
            (std::vector<std::string>{"19998", "19997"}));
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 ORDER BY a FETCH FIRST ROW ONLY"),
            (std::vector<std::string>{"1"}));
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 ORDER BY a OFFSET 19998"),
            (std::vector<std::string>{"19999", "20000"}));
  EXPECT_TRUE(column(*s_, "SELECT a FROM q1 OFFSET 20000").empty());
  EXPECT_TRUE(column(*s_, "SELECT a FROM q1 ORDER BY a LIMIT 0 OFFSET 5").empty());
  // A sorted (bounded) scan and a seq scan with OFFSET beyond a batch.
  EXPECT_EQ(column(*s_, "SELECT c FROM q1 ORDER BY c LIMIT 2 OFFSET 5000"),
            (std::vector<std::string>{"5000", "5001"}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE b = 7"), "200");
  EXPECT_EQ(column(*s_, "SELECT a FROM q1 WHERE b = 7 OFFSET 198").size(), 2u);
  // Over a system view too.
  EXPECT_TRUE(column(*s_, "SELECT * FROM pg_stat_io OFFSET 100000").empty());
}

TEST_F(Pg15Sql, CountOneAndDistinctAggregates) {
  std::set<int64_t> bs, ds, cs;
  int64_t sum_distinct_c = 0;
  for (const Row& r : reference_rows()) {
    bs.insert(r.b);
    ds.insert(r.d);
    if (r.b < 3 && cs.insert(r.c).second) sum_distinct_c += r.c;
  }
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(1) FROM q1 WHERE a > 19990"), "10");
  ResultSet r = s_->execute("SELECT count(DISTINCT b), count(DISTINCT d), count(d) FROM q1");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{std::to_string(bs.size()),
                                                 std::to_string(ds.size()), "20000"}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT sum(DISTINCT c) FROM q1 WHERE b < 3"),
            std::to_string(sum_distinct_c));
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(DISTINCT a) FROM q1"), "20000");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(DISTINCT b) FROM q1 WHERE a < 0"), "0");
}

TEST_F(Pg15Sql, MinAndMaxFromInitPlansGiveTheAggregatesResults) {
  int64_t max_d_c4 = -1, min_a_b50 = -1;
  for (const Row& r : reference_rows()) {
    if (r.c == 4) max_d_c4 = std::max(max_d_c4, r.d);
    if (r.b < 50 && min_a_b50 < 0) min_a_b50 = r.a;
  }
  ASSERT_EQ(lines("EXPLAIN SELECT min(a) FROM q1 WHERE b < 50")[0].rfind("Result", 0), 0u);
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(d) FROM q1 WHERE c = 4"), std::to_string(max_d_c4));
  EXPECT_EQ(testing::scalar(*s_, "SELECT min(a) FROM q1 WHERE b < 50"), std::to_string(min_a_b50));
  ResultSet r = s_->execute("SELECT min(a), max(a), min(a) FROM q1 WHERE a < 100");
  EXPECT_EQ(r.rows.at(0), (std::vector<std::string>{"1", "99", "1"}));
  // No row: NULL, as the plain Aggregate (which count(*) forces) gives.
  ASSERT_EQ(
      lines("EXPLAIN SELECT min(a), max(a) FROM q1 WHERE a < 10 AND b > 50")[0].rfind("Result", 0),
      0u);
  r = s_->execute("SELECT min(a), max(a) FROM q1 WHERE a < 10 AND b > 50");
  ResultSet plain = s_->execute("SELECT min(a), max(a), count(*) FROM q1 WHERE a < 10 AND b > 50");
  ASSERT_EQ(r.rows.at(0).size(), 2u);
  EXPECT_EQ(r.rows[0][0], plain.rows.at(0)[0]);
  EXPECT_EQ(r.rows[0][1], plain.rows[0][1]);
  // EXPLAIN ANALYZE runs each InitPlan once and reads one row of it.
  std::vector<std::string> a = lines("EXPLAIN (ANALYZE, TIMING OFF) SELECT min(a), max(a) FROM q1");
  ASSERT_GE(a.size(), 11u);
  EXPECT_EQ(a[1], "  InitPlan 1 (returns $0)");
  EXPECT_NE(a[2].find("(actual rows=1 loops=1)"), std::string::npos) << a[2];
  EXPECT_EQ(a[6], "  InitPlan 2 (returns $1)");
  EXPECT_NE(a[8].find("Index Only Scan Backward using q1_a on q1 q1_1"), std::string::npos) << a[8];
}

// A numeric constant against an integer column compares in numeric, as PostgreSQL
// plans it, and returns the rows the exact comparison selects.
TEST_F(Pg15Sql, NumericComparisonsSelectTheExactRows) {
  struct Case {
    const char* where;
    bool (*holds)(const Row&);
  };
  const Case cases[] = {
      {"a < 100.5", [](const Row& r) { return r.a < 101; }},
      {"NOT (a < 10.5)", [](const Row& r) { return r.a > 10; }},
      {"a = 5.0", [](const Row& r) { return r.a == 5; }},
      {"a <> 5.5", [](const Row&) { return true; }},
      {"a = 5.5", [](const Row&) { return false; }},
      {"a BETWEEN 1.5 AND 7", [](const Row& r) { return r.a >= 2 && r.a <= 7; }},
      {"a IN (1, 2.5, 3)", [](const Row& r) { return r.a == 1 || r.a == 3; }},
      {"a NOT IN (1, 2.5, 3)", [](const Row& r) { return r.a != 1 && r.a != 3; }},
      {"b >= -4.5 AND c <= -0.5", [](const Row&) { return false; }},
      {"b < 9223372036854775808", [](const Row&) { return true; }},
      {"b > -9223372036854775809.5", [](const Row&) { return true; }},
  };
  const std::vector<Row> rows = reference_rows();
  for (const Case& c : cases) {
    int64_t n = 0;
    for (const Row& r : rows) n += c.holds(r);
    EXPECT_EQ(testing::scalar(*s_, std::string("SELECT count(*) FROM q1 WHERE ") + c.where),
              std::to_string(n))
        << c.where;
  }
  EXPECT_EQ(lines("EXPLAIN SELECT * FROM q1 WHERE a < 100.5")[1],
            "  Filter: ((a)::numeric < 100.5)");
}

TEST_F(Pg15Sql, ArithmeticOverAggregatesHasPostgresTypesAndErrors) {
  ResultSet r = s_->execute("SELECT max(a) + 1, count(*) * 2, -min(a), 1 + count(*) FROM q1");
  EXPECT_EQ(r.columns, (std::vector<std::string>{"?column?", "?column?", "?column?", "?column?"}));
  EXPECT_EQ(r.rows.at(0), (std::vector<std::string>{"20001", "40000", "-1", "20001"}));
  EXPECT_EQ(r.column_types, (std::vector<ValueType>{ValueType::kInt4, ValueType::kInt8,
                                                    ValueType::kInt4, ValueType::kInt8}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(a) % 7 AS m FROM q1 WHERE b = 3"),
            std::to_string(19903 % 7));
  // NULL in, NULL out (the InitPlan returned nothing).
  EXPECT_EQ(testing::scalar(*s_, "SELECT max(a) + 1 FROM q1 WHERE a > 90000"), "");
  EXPECT_EQ(testing::error_of(*s_, "SELECT max(a) / 0 FROM q1"), "division by zero");
  EXPECT_EQ(testing::error_of(*s_, "SELECT max(a) * 2147483647 FROM q1"), "integer out of range");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) * 2147483647 FROM q1"), "42949672940000");
  EXPECT_EQ(testing::error_of(*s_, "SELECT avg(a) + 1 FROM q1"),
            "avg() (a numeric result) in an expression over aggregates is not supported");
  EXPECT_EQ(testing::error_of(*s_, "SELECT max(a) + b FROM q1"),
            "column \"q1.b\" must appear in the GROUP BY clause or be used in an aggregate "
            "function");
}

// Incremental Sort returns what a full sort returns: checked against the reference rows
// sorted in full, for plans PostgreSQL gives an Incremental Sort.
TEST_F(Pg15Sql, IncrementalSortOrdersLikeAFullSort) {
  std::vector<Row> rows = reference_rows();
  std::vector<Row> want = rows;
  std::stable_sort(want.begin(), want.end(),
                   [](const Row& x, const Row& y) { return x.c != y.c ? x.c < y.c : x.a < y.a; });
  std::vector<Row> filtered;
  for (const Row& r : want)
    if (r.b < 50) filtered.push_back(r);
  const std::string q = "SELECT c, a FROM q1 WHERE b < 50 ORDER BY c, a LIMIT 10 OFFSET 5";
  ASSERT_EQ(lines("EXPLAIN " + q)[1].find("Incremental Sort"), 6u);
  ResultSet r = s_->execute(q);
  ASSERT_EQ(r.rows.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(r.rows[i][0], std::to_string(filtered[5 + i].c));
    EXPECT_EQ(r.rows[i][1], std::to_string(filtered[5 + i].a));
  }
  // Descending on the presorted key, ascending on the rest, across many groups (d has
  // 50 rows a value).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& x, const Row& y) { return x.d != y.d ? x.d > y.d : x.b < y.b; });
  s_->execute("CREATE INDEX q1_d ON q1 (d)");
  const std::string all = "SELECT d, b FROM q1 ORDER BY d DESC, b LIMIT 500";
  std::vector<std::string> plan = lines("EXPLAIN " + all);
  r = s_->execute(all);
  s_->execute("DROP INDEX q1_d");
  ASSERT_NE(plan.at(1).find("Incremental Sort"), std::string::npos) << plan[1];
  ASSERT_EQ(r.rows.size(), 500u);
  for (size_t i = 0; i < 500; ++i) {
    ASSERT_EQ(r.rows[i][0], std::to_string(rows[i].d)) << i;
    ASSERT_EQ(r.rows[i][1], std::to_string(rows[i].b)) << i;
  }
}

// BitmapOr arms that index only part of an arm, or take the other restrictions into
// their index conditions, return the rows the WHERE clause selects.
TEST_F(Pg15Sql, BitmapOrArmsReturnTheSelectedRows) {
  struct Case {
    const char* where;
    bool (*holds)(const Row&);
  };
  const Case cases[] = {
      {"(a < 10 AND b = 3) OR (c BETWEEN 100 AND 120 AND b < 5)",
       [](const Row& r) {
         return (r.a < 10 && r.b == 3) || (r.c >= 100 && r.c <= 120 && r.b < 5);
       }},
      {"(a BETWEEN 5 AND 10 OR a BETWEEN 100 AND 110) AND a < 108",
       [](const Row& r) {
         return ((r.a >= 5 && r.a <= 10) || (r.a >= 100 && r.a <= 110)) && r.a < 108;
       }},
      {"(a < 50 AND b <> 3) OR c = 17",
       [](const Row& r) { return (r.a < 50 && r.b != 3) || r.c == 17; }},
      {"((a < 50 AND b <> 3) OR c = 17) AND a > 20",
       [](const Row& r) { return ((r.a < 50 && r.b != 3) || r.c == 17) && r.a > 20; }},
  };
  const std::vector<Row> rows = reference_rows();
  for (const Case& c : cases) {
    const std::string where = std::string(" FROM q1 WHERE ") + c.where;
    int64_t n = 0;
    for (const Row& r : rows) n += c.holds(r);
    EXPECT_EQ(testing::scalar(*s_, "SELECT count(*)" + where), std::to_string(n)) << c.where;
  }
}

TEST_F(Pg15Sql, QualifiedNamesAndRefusalsNameTheConstruct) {
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM public.q1"), "20000");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM foo.q1"), "relation \"foo.q1\" does not exist");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM pg_catalog.q1"),
            "relation \"pg_catalog.q1\" does not exist");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM public.pg_stat_io"),
            "relation \"public.pg_stat_io\" does not exist");
  EXPECT_EQ(testing::error_of(*s_, "SELECT DISTINCT ON (b + 1) b FROM q1"),
            "SELECT DISTINCT ON over an expression is not supported yet");
  // Typed as PostgreSQL types them: an integer is no boolean, and has no LIKE.
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM q1 WHERE a IS TRUE"),
            "argument of IS TRUE must be type boolean, not type integer");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM q1 WHERE a IS NOT DISTINCT FROM 3"),
            "IS NOT DISTINCT FROM is not supported");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM q1 ORDER BY a FETCH FIRST 3 ROWS WITH TIES"),
            "FETCH FIRST ... WITH TIES is not supported");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM q1 OFFSET -1"), "OFFSET must not be negative");
  EXPECT_EQ(testing::error_of(*s_, "SELECT * FROM q1 LIMIT 5 FETCH FIRST 3 ROWS ONLY"),
            "syntax error at or near \"FETCH\"");
  EXPECT_EQ(testing::error_of(*s_, "SELECT 1 OFFSET 1"),
            "OFFSET is supported in queries over a table only");
  EXPECT_EQ(testing::error_of(*s_,
                              "INSERT INTO q2 SELECT DISTINCT i, i, i FROM "
                              "generate_series(1, 3) s(i)"),
            "SELECT DISTINCT is supported in queries over a table only");
  EXPECT_EQ(testing::error_of(*s_,
                              "INSERT INTO q2 SELECT i, i + 100000, i FROM "
                              "generate_series(1, 3) s(i) OFFSET 1"),
            "OFFSET is supported in queries over a table only");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q2"), "5000");
  // What PostgreSQL accepts and tidepool does not build is refused by name.
  const std::pair<const char*, const char*> refused[] = {
      {"SELECT b, count(*) FROM q1 GROUP BY ROLLUP (b)", "GROUP BY ROLLUP is not supported"},
      {"SELECT DISTINCT count(*) FROM q1 HAVING count(*) > 1",
       "SELECT DISTINCT with HAVING is not supported yet"},
      {"SELECT * FROM q1 ORDER BY a USING <", "ORDER BY ... USING is not supported"},
      {"SELECT * FROM q1 WHERE a IN (SELECT 1)", "a subquery without FROM is not supported yet"},
      {"SELECT * FROM q1, q2 WHERE q1.a = 1 OR EXISTS (SELECT 1 FROM q2 x WHERE x.b = q1.b)",
       "a correlated EXISTS inside an expression is not supported yet"},
      {"SELECT * FROM q1 WHERE (a IN (SELECT a FROM q2)) IS TRUE",
       "IN (SELECT ...) inside an expression is not supported yet"},
      {"SELECT * FROM q1 WHERE a = 1 OR EXISTS (SELECT 1 FROM q2 WHERE q2.a = q1.a)",
       "a correlated EXISTS inside an expression is not supported yet"},
      {"SELECT (SELECT 1) FROM q1", "a subquery without FROM is not supported yet"},
      {"SELECT * FROM (SELECT 1) s",
       "a subquery in FROM without a FROM clause is not supported yet"},
      {"SELECT * FROM (VALUES (1)) s", "VALUES in FROM is not supported"},
      {"SELECT * FROM (SELECT a FROM q1 LIMIT 1) s",
       "a subquery in FROM with ORDER BY, LIMIT or OFFSET (a Subquery Scan) is not supported yet"},
      {"SELECT sum(a) FILTER (WHERE b = 1) FROM q1", "aggregate FILTER is not supported"},
      {"SELECT count(*) OVER () FROM q1", "window functions are not supported"},
      {"SELECT * FROM q1 FOR UPDATE", "SELECT ... FOR UPDATE / FOR SHARE is not supported"},
      {"SELECT * FROM q1 TABLESAMPLE SYSTEM (10)", "TABLESAMPLE is not supported"},
      {"SELECT * FROM q1 INTERSECT SELECT * FROM q1", "INTERSECT is not supported"},
      {"SELECT * FROM q1 WHERE a NOT LIKE '1%'", "operator does not exist: integer !~~ unknown"},
      {"SELECT * FROM q1 WHERE a SIMILAR TO '1%'", "SIMILAR TO is not supported"},
      {"SELECT * FROM q1 WHERE a < ANY ('{1,2}')",
       "< ANY (...) is not supported; = ANY and <> ALL are"},
      {"SELECT * FROM q1 WHERE a = ANY ('{1,x}')", "invalid input syntax for type integer: \"x\""},
      {"SELECT * FROM q1 FULL JOIN q2 USING (a)", "FULL JOIN with USING is not supported yet"},
      {"SELECT * FROM q1 NATURAL JOIN q2", "NATURAL JOIN is not supported"},
      {"SELECT * FROM q1 x, LATERAL (SELECT 1) y",
       "a subquery in FROM without a FROM clause is not supported yet"},
      {"SELECT DISTINCT ON (q1.a) q1.a FROM q1, q2",
       "SELECT DISTINCT ON over a join is not supported yet"},
      // GROUP BY over a join is planned; an ambiguous key is PostgreSQL's own error.
      {"SELECT a FROM q1, q2 GROUP BY a", "column reference \"a\" is ambiguous"},
  };
  for (const auto& [sql, error] : refused) EXPECT_EQ(testing::error_of(*s_, sql), error) << sql;
}

// A qualified column names its FROM item by alias (or by the table's name without one),
// with the schema when written; anything else is PostgreSQL's 42P01, after the relation
// itself is found (a missing table is the error given first).
TEST_F(Pg15Sql, QualifiedColumnsNameTheirFromItem) {
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(q1.a) FROM q1 WHERE q1.a < 10"), "9");
  EXPECT_EQ(testing::scalar(*s_, "SELECT x.a FROM q1 x WHERE x.a = 7"), "7");
  EXPECT_EQ(testing::scalar(*s_, "SELECT public.q1.a FROM q1 WHERE public.q1.a = 7"), "7");
  EXPECT_EQ(testing::scalar(*s_, "SELECT s.i FROM generate_series(4, 4) s(i)"), "4");
  EXPECT_EQ(lines("SELECT q1.* FROM q1 WHERE a = 3"), lines("SELECT * FROM q1 WHERE a = 3"));
  const std::pair<const char*, const char*> wrong[] = {
      {"SELECT x.a FROM q1", "missing FROM-clause entry for table \"x\""},
      {"SELECT a FROM q1 WHERE x.a = 1", "missing FROM-clause entry for table \"x\""},
      {"SELECT a FROM q1 ORDER BY x.a", "missing FROM-clause entry for table \"x\""},
      {"SELECT x.* FROM q1", "missing FROM-clause entry for table \"x\""},
      {"SELECT q1.a", "missing FROM-clause entry for table \"q1\""},
      {"SELECT q1.a FROM q1 x", "invalid reference to FROM-clause entry for table \"q1\""},
      {"SELECT foo.q1.a FROM q1", "invalid reference to FROM-clause entry for table \"q1\""},
      {"SELECT x.a FROM nosuch", "relation \"nosuch\" does not exist"},
      {"SELECT a.b.c.d FROM q1", "cross-database references are not implemented: a.b.c.d"},
      {"SELECT a.b.c.d.e FROM q1", "improper qualified name (too many dotted names): a.b.c.d.e"},
  };
  for (const auto& [sql, error] : wrong) EXPECT_EQ(testing::error_of(*s_, sql), error) << sql;
  const Error e = [&] {
    try {
      s_->execute("SELECT q1.a FROM q1 x");
    } catch (const Error& err) {
      return err;
    }
    return Error("no error");
  }();
  EXPECT_EQ(e.sqlstate(), "42P01");
  EXPECT_EQ(e.hint(), "Perhaps you meant to reference the table alias \"x\".");
  EXPECT_EQ(e.position(), 8);
}

// PostgreSQL's = ANY (array) and <> ALL (array) are IN and NOT IN.
TEST_F(Pg15Sql, ArrayComparisonsAreInLists) {
  EXPECT_EQ(lines("EXPLAIN SELECT * FROM q1 WHERE a = ANY ('{1,2}')"),
            lines("EXPLAIN SELECT * FROM q1 WHERE a IN (1, 2)"));
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a = ANY ('{1,2,2,5}'::int[])"),
            "3");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a = ANY (ARRAY[7, 8])"), "2");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a <> ALL ('{1,2,3}') AND a < 6"),
            "2");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a = ANY ('{}')"), "0");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM q1 WHERE a = ANY ('{2.5, 3}'::numeric[])"),
            "1");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM ONLY q1"), "20000");
}

}  // namespace
}  // namespace tp
