// Queries over tables through Session: results, EXPLAIN output (golden, in
// PostgreSQL's layout and arithmetic), EXPLAIN ANALYZE counters, ANALYZE.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/core/interrupts.h"
#include "engine/plan/planner.h"
#include "engine/session/analyze.h"
#include "engine/sql/parser.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::vector<std::string> column0(const ResultSet& r) {
  std::vector<std::string> out;
  for (const auto& row : r.rows) out.push_back(row[0]);
  return out;
}

std::string plan_text(Session& s, const std::string& sql) {
  std::string out;
  for (const auto& row : s.execute(sql).rows) out += row[0] + "\n";
  return out;
}

class Query : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("CREATE TABLE t (a int, b bigint)");
    // a = 1..1000, b = (a * 37) % 101 - 50
    s_->execute("INSERT INTO t SELECT i, (i * 37) % 101 - 50 FROM generate_series(1, 1000) s(i)");
  }
  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(Query, WhereOperatorsReturnTheMatchingRows) {
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 10"), "9");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a <= 10"), "10");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a > 990"), "10");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a >= 990"), "11");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a = 5"), "1");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a <> 5"), "999");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a != 5"), "999");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE 10 > a"), "9");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a BETWEEN 100 AND 199"), "100");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a NOT BETWEEN 100 AND 199"), "900");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a IN (1, 2, 3, 5000)"), "3");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a NOT IN (1, 2, 3)"), "997");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a NOT IN (1, NULL)"), "0");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 10 OR a > 995"), "14");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE NOT (a < 10 OR a > 995)"), "986");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE (a < 100 AND b = 0) OR a = 500"), "2");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 2.5"), "2");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a = 2.5"), "0");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a = NULL"), "0");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE b = -50"), "9");
}

TEST_F(Query, AggregatesAsPostgresPrintsThem) {
  ResultSet r =
      s_->execute("SELECT count(*), count(b), sum(a), avg(a), min(b), max(b), sum(b) FROM t");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.columns,
            (std::vector<std::string>{"count", "count", "sum", "avg", "min", "max", "sum"}));
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{"1000", "1000", "500500", "500.5000000000000000",
                                                 "-50", "50", "44"}));
  // No rows: count is 0, the others NULL (printed empty).
  r = s_->execute("SELECT count(*), sum(a), avg(a), min(a) FROM t WHERE a > 5000");
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{"0", "", "", ""}));
  EXPECT_EQ(scalar(*s_, "SELECT avg(a) FROM t WHERE a = 1"), "1.00000000000000000000");
  EXPECT_EQ(scalar(*s_, "SELECT avg(a) FROM t WHERE a IN (1, 2)"), "1.5000000000000000");
  EXPECT_EQ(scalar(*s_, "SELECT sum(a) AS total FROM t WHERE a <= 3"), "6");
}

TEST(NumericDivision, ScaleFollowsPostgres) {
  EXPECT_EQ(numeric_div_text(10, 3), "3.3333333333333333");
  EXPECT_EQ(numeric_div_text(0, 5), "0.00000000000000000000");
  EXPECT_EQ(numeric_div_text(-7, 2), "-3.5000000000000000");
  EXPECT_EQ(numeric_div_text(2, 3), "0.66666666666666666667");
  EXPECT_EQ(numeric_div_text(1000000, 1), "1000000.000000000000");
}

TEST_F(Query, OrderByAndLimit) {
  ResultSet r = s_->execute("SELECT a FROM t WHERE a <= 5 ORDER BY a DESC");
  EXPECT_EQ(column0(r), (std::vector<std::string>{"5", "4", "3", "2", "1"}));
  r = s_->execute("SELECT a, b FROM t ORDER BY b, a LIMIT 3");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0][1], "-50");
  EXPECT_LT(std::stoi(r.rows[0][0]), std::stoi(r.rows[1][0]));
  EXPECT_EQ(r.tag, "SELECT 3");
  r = s_->execute("SELECT b FROM t ORDER BY a LIMIT 2");
  EXPECT_EQ(column0(r), (std::vector<std::string>{"-13", "24"}));  // (37 % 101) - 50, 74 - 50
  r = s_->execute("SELECT a AS x FROM t ORDER BY x DESC LIMIT 1");
  EXPECT_EQ(r.columns[0], "x");
  EXPECT_EQ(column0(r), (std::vector<std::string>{"1000"}));
  EXPECT_EQ(s_->execute("SELECT * FROM t LIMIT 0").rows.size(), 0u);
  EXPECT_EQ(s_->execute("SELECT * FROM t ORDER BY 2 LIMIT 7").rows.size(), 7u);
}

TEST_F(Query, ErrorsNameWhatIsWrong) {
  EXPECT_EQ(error_of(*s_, "SELECT c FROM t"), "column \"c\" does not exist");
  EXPECT_EQ(error_of(*s_, "SELECT * FROM t WHERE zz = 1"), "column \"zz\" does not exist");
  EXPECT_EQ(error_of(*s_, "SELECT a, count(*) FROM t"),
            "column \"t.a\" must appear in the GROUP BY clause or be used in an aggregate "
            "function");
  EXPECT_EQ(error_of(*s_, "SELECT * FROM t WHERE a < 'x'"),
            "invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(error_of(*s_, "SELECT DISTINCT a FROM t ORDER BY a + 1"),
            "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
  EXPECT_EQ(error_of(*s_, "SELECT * FROM nope"), "relation \"nope\" does not exist");
}

// Before ANALYZE PostgreSQL assumes at least 10 pages of rows as wide as the
// columns say: (8192 - 24) / (4 + 8 + 24 + 4) = 204 rows per page. (The
// table really holds 185 per page: int8 alignment pads each tuple to 40 bytes.)
TEST_F(Query, ExplainBeforeAnalyzeUsesPostgresDefaults) {
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t"),
            "Seq Scan on t  (cost=0.00..30.40 rows=2040 width=12)\n");
  s_->execute("CREATE TABLE e (a int, b int)");
  // The classic estimate for an empty (int, int) table.
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM e"),
            "Seq Scan on e  (cost=0.00..32.60 rows=2260 width=8)\n");
}

TEST_F(Query, ExplainGoldenAfterAnalyze) {
  EXPECT_EQ(s_->execute("ANALYZE t").tag, "ANALYZE");
  // 1000 rows in 6 pages: 5 * seq_page_cost + 1000 * cpu_tuple_cost.
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t"),
            "Seq Scan on t  (cost=0.00..16.00 rows=1000 width=12)\n");
  // One qual operator per row (+2.50); count(*) one transition per row (+2.50),
  // + cpu_tuple_cost for the aggregate's row.
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT count(*) FROM t WHERE a < 100"),
            "Aggregate  (cost=18.75..18.76 rows=1 width=8)\n"
            "  ->  Seq Scan on t  (cost=0.00..18.50 rows=99 width=0)\n"
            "        Filter: (a < 100)\n");
  EXPECT_EQ(plan_text(*s_,
                      "EXPLAIN SELECT a FROM t WHERE a BETWEEN 1 AND 10 OR b IN (1, -2) "
                      "ORDER BY b DESC LIMIT 5"),
            "Limit  (cost=24.00..24.01 rows=5 width=12)\n"
            "  ->  Sort  (cost=24.00..24.07 rows=30 width=12)\n"
            "        Sort Key: b DESC\n"
            "        ->  Seq Scan on t  (cost=0.00..23.50 rows=30 width=12)\n"
            "              Filter: (((a >= 1) AND (a <= 10)) OR (b = ANY ('{1,-2}'::bigint[])))\n");
  EXPECT_EQ(plan_text(*s_, "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE a > -3 AND b <> 7"),
            "Seq Scan on t\n"
            "  Filter: ((a > '-3'::integer) AND (b <> 7))\n");
}

// An equality lookup in a small table, by hand: one index tuple (sel 1/1000
// of 1000), one index page at random_page_cost 4 + 0.0075 CPU; descent
// ceil(log2(1000)) * 0.0025 + (height 1 + 1) * 50 * 0.0025 = 0.275 at startup
// (1000 int keys need 3 leaves under a root, as in PostgreSQL); one heap page
// at 4 (min and max I/O agree, correlation does not matter) and
// cpu_tuple_cost 0.01: 0.28..8.29, PostgreSQL's well-known figure.
TEST_F(Query, IndexLookupCostByHand) {
  s_->execute("CREATE INDEX ON t (a)");
  s_->execute("ANALYZE t");
  EXPECT_EQ(s_->index_height(*s_->catalog().find("t_a_idx")), 1);
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t WHERE a = 500"),
            "Index Scan using t_a_idx on t  (cost=0.28..8.29 rows=1 width=12)\n"
            "  Index Cond: (a = 500)\n");
  ResultSet r = s_->execute("SELECT a, b FROM t WHERE a = 500");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], "500");
}

TEST_F(Query, CostSettingsAreHonoured) {
  s_->execute("ANALYZE t");
  s_->execute("SET cpu_tuple_cost = 0.02");
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t"),
            "Seq Scan on t  (cost=0.00..26.00 rows=1000 width=12)\n");
  s_->execute("SET seq_page_cost = 2");
  s_->execute("SET enable_seqscan = off");
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t"),
            "Seq Scan on t  (cost=10000000000.00..10000000032.00 rows=1000 width=12)\n");
  EXPECT_NE(error_of(*s_, "SET cpu_operator_cost = -1"), "");
}

TEST_F(Query, ExplainAnalyzeCountsRowsAndBuffers) {
  s_->execute("ANALYZE t");
  ResultSet r =
      s_->execute("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t WHERE a <= 100");
  std::vector<std::string> lines = column0(r);
  ASSERT_GE(lines.size(), 7u);
  EXPECT_EQ(lines[0], "Aggregate  (cost=18.75..18.76 rows=1 width=8) (actual rows=1 loops=1)");
  EXPECT_EQ(lines[1], "  Buffers: shared hit=6");
  EXPECT_EQ(lines[2],
            "  ->  Seq Scan on t  (cost=0.00..18.50 rows=100 width=0) (actual rows=100 loops=1)");
  EXPECT_EQ(lines[3], "        Filter: (a <= 100)");
  EXPECT_EQ(lines[4], "        Rows Removed by Filter: 900");
  EXPECT_EQ(lines[5].rfind("        Prefetch: distance avg=", 0), 0u) << lines[5];
  EXPECT_NE(lines[5].find(", in flight max="), std::string::npos) << lines[5];
  EXPECT_EQ(lines[6], "        Buffers: shared hit=6");
  EXPECT_EQ(lines[7].rfind("Planning Time: ", 0), 0u);
  EXPECT_EQ(lines[8].rfind("Execution Time: ", 0), 0u);
  // Cold: every page read once.
  s_->storage().evict_all();
  r = s_->execute("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t");
  EXPECT_EQ(r.rows[1][0].rfind("  Prefetch: distance avg=", 0), 0u);
  EXPECT_EQ(r.rows[2][0], "  Buffers: shared read=6");
  EXPECT_NE(r.rows[0][0].find("(actual time="), std::string::npos);
  EXPECT_NE(r.rows[0][0].find("rows=1000 loops=1)"), std::string::npos);
}

TEST_F(Query, ExplainJsonIsOneRow) {
  ResultSet r = s_->execute("EXPLAIN (FORMAT JSON) SELECT count(*) FROM t");
  ASSERT_EQ(r.rows.size(), 1u);
  const std::string& j = r.rows[0][0];
  EXPECT_NE(j.find("\"Node Type\": \"Aggregate\""), std::string::npos);
  EXPECT_NE(j.find("\"Node Type\": \"Seq Scan\""), std::string::npos);
  EXPECT_NE(j.find("\"Relation Name\": \"t\""), std::string::npos);
}

TEST_F(Query, AnalyzeStoresStatisticsInTheCatalog) {
  EXPECT_TRUE(s_->catalog().find("t")->stats.empty());
  s_->execute("ANALYZE");
  const RelationEntry* t = s_->catalog().find("t");
  ASSERT_FALSE(t->stats.empty());
  TableStats st = stats_from_catalog(t->stats);
  EXPECT_EQ(st.reltuples, 1000);
  ASSERT_EQ(st.columns.size(), 2u);
  EXPECT_EQ(st.columns[0].min_value, 1);
  EXPECT_EQ(st.columns[0].max_value, 1000);
  EXPECT_FLOAT_EQ(st.columns[0].n_distinct, -1.0f);  // unique
  EXPECT_FLOAT_EQ(st.columns[0].correlation, 1.0f);  // stored in order
  EXPECT_EQ(st.columns[1].min_value, -50);
  EXPECT_EQ(st.columns[1].max_value, 50);
  std::vector<std::string> d = describe_stats(*t);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[1].rfind("  a: min=1 max=1000 n_distinct=-1 correlation=1", 0), 0u) << d[1];
  EXPECT_EQ(s_->execute("VACUUM ANALYZE t").tag, "VACUUM");
  // The statistics survive reopening the data directory.
  s_.reset();
  s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
  EXPECT_EQ(stats_from_catalog(s_->catalog().find("t")->stats).reltuples, 1000);
  EXPECT_EQ(plan_text(*s_, "EXPLAIN SELECT * FROM t"),
            "Seq Scan on t  (cost=0.00..16.00 rows=1000 width=12)\n");
  EXPECT_EQ(error_of(*s_, "ANALYZE nope"), "relation \"nope\" does not exist");
}

// Ctrl-C sets cancel_requested(). Every plan shape stops at its next batch with
// PostgreSQL's message, holds no pins afterwards, and the next statement runs normally.
TEST(Cancel, StopsEveryPlanShapeAtItsNextBatch) {
  TempDir dir;
  Session s(testing::options_for(dir.data()));
  s.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
  s.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 20000) g ORDER BY random()");
  s.execute("CREATE INDEX t_a_idx ON t (a)");
  s.execute("ANALYZE t");
  struct Case {
    const char* setting;
    const char* query;
    const char* root;
    bool first_batch_before_cancel;
    size_t rows;  // what the query returns when it runs to the end
  };
  const Case cases[] = {
      {"RESET ALL", "SELECT * FROM t", "Seq Scan", true, 20000},
      {"SET enable_seqscan = off", "SELECT * FROM t ORDER BY a", "Index Scan", true, 20000},
      {"SET enable_indexscan = off", "SELECT * FROM t WHERE a BETWEEN 1 AND 1000",
       "Bitmap Heap Scan", true, 1000},
      {"RESET ALL", "SELECT count(*) FROM t", "Aggregate", false, 1},
      {"RESET ALL", "SELECT * FROM t ORDER BY b", "Sort", false, 20000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    s.execute("RESET ALL");
    s.execute(c.setting);
    sql::Statement st = sql::parse_statement(c.query);
    {
      PlanContext ctx = s.plan_context();
      PlannedQuery q = plan_select(ctx, std::get<sql::Select>(st));
      ASSERT_EQ(q.root->explain_name(), c.root);
      q.root->open();
      if (c.first_batch_before_cancel) {
        ASSERT_NE(q.root->next(), nullptr);
      }
      cancel_requested().store(true);
      std::string error;
      try {
        while (q.root->next()) {
        }
      } catch (const Error& e) {
        error = e.what();
      }
      EXPECT_EQ(error, "canceling statement due to user request");
      EXPECT_FALSE(cancel_requested().load());  // one request, one error
    }
    EXPECT_EQ(s.storage().pool().my_pin_count(), 0u);
    EXPECT_EQ(s.execute(c.query).rows.size(), c.rows);
  }
}

}  // namespace
}  // namespace tp
