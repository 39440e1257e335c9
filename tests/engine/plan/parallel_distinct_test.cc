// SELECT DISTINCT through parallel plans returns the distinct values of the rows'
// definition: the partial distinct relation (a HashAggregate in each participant under
// a Gather, then the final HashAggregate or Unique), a Gather Merge sorting each share in
// the DISTINCT order under a Unique, and a Unique of no keys per participant, for 1 to 4
// planned workers with and without the leader. Runs threads: labelled concurrency.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

class ParallelDistinct : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir;
    s_ = new Session(testing::options_for(tmp_->data()));
    // 30,000 rows at fillfactor 10 (1,667 pages): a partial path with one worker by size.
    s_->execute("CREATE TABLE t (a int, b int, c bigint) WITH (fillfactor=10)");
    s_->execute(
        "INSERT INTO t SELECT i, i % 1000, i::bigint * 100000 FROM generate_series(1, 30000) "
        "s(i)");
    s_->execute("ANALYZE t");
  }
  static void TearDownTestSuite() {
    delete s_;
    delete tmp_;
  }

  static std::vector<std::string> rows(const std::string& sql) {
    std::vector<std::string> out;
    for (const auto& row : s_->execute(sql).rows) {
      std::string r;
      for (size_t i = 0; i < row.size(); ++i) r += (i ? "|" : "") + row[i];
      out.push_back(r);
    }
    return out;
  }
  static std::string plan_of(const std::string& sql) {
    std::string plan;
    for (const auto& row : s_->execute("EXPLAIN " + sql).rows) plan += row[0] + "\n";
    return plan;
  }

  static TempDir* tmp_;
  static Session* s_;
};
TempDir* ParallelDistinct::tmp_ = nullptr;
Session* ParallelDistinct::s_ = nullptr;

// The distinct b (i % 1000) of the rows with `lo <= i <= hi`, ascending or descending.
std::vector<std::string> distinct_b(int64_t lo, int64_t hi, bool descending) {
  std::set<int64_t> seen;
  for (int64_t i = std::max<int64_t>(lo, 1); i <= std::min<int64_t>(hi, 30000); ++i)
    seen.insert(i % 1000);
  std::vector<std::string> out;
  for (int64_t v : seen) out.push_back(std::to_string(v));
  std::sort(out.begin(), out.end(), [&](const std::string& x, const std::string& y) {
    return descending ? std::stoll(x) > std::stoll(y) : std::stoll(x) < std::stoll(y);
  });
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(ParallelDistinct, EveryParallelShapeReturnsTheDistinctValues) {
  std::vector<std::string> pairs;  // distinct (b, a) for a < 2000
  for (int64_t i = 1; i < 2000; ++i)
    pairs.push_back(std::to_string(i % 1000) + "|" + std::to_string(i));
  for (int workers = 1; workers <= 4; ++workers) {
    for (bool leader : {true, false}) {
      if (workers == 1 && !leader) continue;  // nothing to divide: the serial plan wins
      SCOPED_TRACE("workers=" + std::to_string(workers) + (leader ? " with" : " without") +
                   " leader");
      s_->execute("RESET ALL");
      s_->execute("SET parallel_setup_cost = 0");
      s_->execute("SET parallel_tuple_cost = 0");
      s_->execute(std::string("SET parallel_leader_participation = ") + (leader ? "on" : "off"));
      s_->execute("ALTER TABLE t SET (parallel_workers = " + std::to_string(workers) + ")");
      const std::string hashed = "SELECT DISTINCT b FROM t";
      EXPECT_NE(plan_of(hashed).find("Gather"), std::string::npos) << plan_of(hashed);
      EXPECT_EQ(sorted(rows(hashed)), sorted(distinct_b(1, 30000, false)));
      EXPECT_EQ(sorted(rows("SELECT DISTINCT b, a FROM t WHERE a < 2000")), sorted(pairs));
      EXPECT_EQ(rows("SELECT DISTINCT b FROM t WHERE a > 29500 ORDER BY b DESC"),
                distinct_b(29501, 30000, true));
      // No DISTINCT keys left: one row per participant, then one.
      EXPECT_EQ(rows("SELECT DISTINCT b FROM t WHERE b = 7"), std::vector<std::string>{"7"});
      s_->execute("SET enable_hashagg = off");  // the Gather Merge under a Unique
      const std::string merged = "SELECT DISTINCT b FROM t ORDER BY b LIMIT 20";
      EXPECT_NE(plan_of(merged).find("Gather Merge"), std::string::npos) << plan_of(merged);
      std::vector<std::string> first = distinct_b(1, 30000, false);
      first.resize(20);
      EXPECT_EQ(rows(merged), first);
    }
  }
  s_->execute("ALTER TABLE t RESET (parallel_workers)");
  s_->execute("RESET ALL");
}

}  // namespace
}  // namespace tp
