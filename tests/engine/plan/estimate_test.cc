// Row estimates that need what an index knows (PostgreSQL's
// get_actual_variable_range): a range below the first histogram bound. And the
// table counts (pg_class's reltuples / relpages) an index build, ANALYZE and
// TRUNCATE leave, against PostgreSQL 15.18's EXPLAIN of the same statements.
#include <gtest/gtest.h>

#include "engine/session/analyze.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

int estimated_rows(Session& s, const std::string& query) {
  ResultSet r = s.execute("EXPLAIN " + query);
  const std::string& line = r.rows[0][0];
  size_t at = line.find("rows=");
  EXPECT_NE(at, std::string::npos) << line;
  return at == std::string::npos ? -1 : std::stoi(line.substr(at + 5));
}

TEST(Estimate, RangeAtTheLowEndOfAUniqueKeyUsesTheIndexMinimum) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE test (major int PRIMARY KEY, minor int)");
  s.execute("INSERT INTO test VALUES (generate_series(0, 199999), random()*1000)");
  s.execute("ANALYZE test");
  // 91 rows match. Without the index's actual minimum the histogram's first
  // bound (the smallest sampled value) cuts the range and the estimate
  // collapses to 1 row.
  int rows = estimated_rows(s, "SELECT * FROM test WHERE major BETWEEN 10 AND 100");
  EXPECT_GE(rows, 45);
  EXPECT_LE(rows, 180);
  rows = estimated_rows(s, "SELECT * FROM test WHERE major BETWEEN 100000 AND 101999");
  EXPECT_GE(rows, 1600);
  EXPECT_LE(rows, 2400);
}

std::string first_line(Session& s, const std::string& query) {
  return s.execute("EXPLAIN " + query).rows.at(0).at(0);
}

TEST(Estimate, IndexBuildRecordsTheTableCountsAsPostgreSQL) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t6 (a int, b int)");
  // Never analyzed: ten pages at the width's density.
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..32.60 rows=2260 width=8)");
  s.execute("INSERT INTO t6 SELECT i, i % 50 FROM generate_series(1, 10000) s(i)");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..146.70 rows=10170 width=8)");
  // The index build counted 10,000 rows in 45 pages.
  s.execute("CREATE INDEX t6_a ON t6 (a)");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..145.00 rows=10000 width=8)");
  // More rows: the recorded density times the pages the file has now.
  s.execute("INSERT INTO t6 SELECT i, i % 50 FROM generate_series(1, 5000) s(i)");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..215.89 rows=14889 width=8)");
  s.execute("ANALYZE t6");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..217.00 rows=15000 width=8)");
  // TRUNCATE forgets the counts (never vacuumed again) but keeps the columns' statistics.
  s.execute("TRUNCATE t6");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6"),
            "Seq Scan on t6  (cost=0.00..32.60 rows=2260 width=8)");
  EXPECT_EQ(first_line(s, "SELECT * FROM t6 WHERE b = 3"),
            "Seq Scan on t6  (cost=0.00..38.25 rows=45 width=8)");
  // A PRIMARY KEY built on an empty table leaves it looking never vacuumed.
  s.execute("CREATE TABLE t7 (k int PRIMARY KEY, v int)");
  EXPECT_EQ(first_line(s, "SELECT * FROM t7"),
            "Seq Scan on t7  (cost=0.00..32.60 rows=2260 width=8)");
}

TEST(Estimate, CountsSurviveARestartAndShowInDescribe) {
  testing::TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 10000) s(i)");
    s.execute("CREATE INDEX ON t (a)");
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(first_line(s, "SELECT * FROM t"),
            "Seq Scan on t  (cost=0.00..145.00 rows=10000 width=8)");
  const std::vector<std::string> lines = describe_stats(*s.catalog().find("t"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "Statistics: reltuples=10000 relpages=45 (from VACUUM or CREATE INDEX; not analyzed)");
}

}  // namespace
}  // namespace tp
