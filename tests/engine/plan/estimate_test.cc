// Row estimates that need what an index knows (PostgreSQL's
// get_actual_variable_range): a range below the first histogram bound.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tp
