// Parallel plans return what the serial plan returns: every aggregate over int and
// bigint columns (sums past 64 bits, numeric avg), with and without a WHERE that leaves
// few or no rows, and plain rows through Gather (compared as sets: Gather does not keep
// the order) and ORDER BY through Gather Merge (compared in order), for 1 to 8 planned
// workers, with and without the leader, and when no worker can start
// (max_parallel_workers = 0). Runs threads: labelled concurrency.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

using Rows = std::vector<std::vector<std::string>>;

class ParallelResults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir;
    s_ = new Session(testing::options_for(tmp_->data()));
    // 30,000 rows at fillfactor 10: 1,667 pages. c reaches 9e18, so sum(c) needs
    // more than 64 bits; b - 500 makes half of the b values negative.
    s_->execute("CREATE TABLE t (a int, b int, c bigint) WITH (fillfactor=10)");
    s_->execute(
        "INSERT INTO t SELECT i, i % 1000 - 500, i::bigint * 300000000000000 "
        "FROM generate_series(1, 30000) s(i) ORDER BY random()");
    // Smaller than one chunk of blocks: 5 pages.
    s_->execute("CREATE TABLE tiny (a int, b int, c bigint) WITH (fillfactor=10)");
    s_->execute("INSERT INTO tiny SELECT i, i, i FROM generate_series(1, 80) s(i)");
    s_->execute("ANALYZE");
  }
  static void TearDownTestSuite() {
    delete s_;
    delete tmp_;
  }

  static Rows run(const std::string& sql, bool sort) {
    Rows rows = s_->execute(sql).rows;
    if (sort) std::sort(rows.begin(), rows.end());
    return rows;
  }
  static std::string plan_of(const std::string& sql) {
    std::string plan;
    for (const auto& row : s_->execute("EXPLAIN " + sql).rows) plan += row[0] + "\n";
    return plan;
  }

  static TempDir* tmp_;
  static Session* s_;
};
TempDir* ParallelResults::tmp_ = nullptr;
Session* ParallelResults::s_ = nullptr;

const char* kAggregates =
    "SELECT sum(a), count(*), avg(b), min(c), max(c), sum(c), avg(c), count(b), min(b), "
    "max(a), sum(b) FROM ";
const char* kWheres[] = {"", " WHERE b < 0", " WHERE a > 29990", " WHERE a < 0"};

TEST_F(ParallelResults, AggregatesEqualTheSerialPlanForEveryWorkerCount) {
  for (const char* table : {"t", "tiny"}) {
    s_->execute("RESET ALL");
    s_->execute("SET max_parallel_workers_per_gather = 0");
    std::vector<Rows> serial;
    for (const char* where : kWheres)
      serial.push_back(run(std::string(kAggregates) + table + where, false));
    for (int workers = 1; workers <= 8; ++workers) {
      for (bool leader : {true, false}) {
        // One worker without the leader divides nothing: the serial plan is cheaper.
        if (workers == 1 && !leader) continue;
        SCOPED_TRACE(std::string(table) + " workers=" + std::to_string(workers) +
                     (leader ? " with leader" : " without leader"));
        s_->execute("RESET ALL");
        s_->execute("SET max_parallel_workers_per_gather = 8");
        s_->execute("SET parallel_setup_cost = 0");
        s_->execute("SET parallel_tuple_cost = 0");
        s_->execute(std::string("SET parallel_leader_participation = ") + (leader ? "on" : "off"));
        s_->execute(std::string("ALTER TABLE ") + table +
                    " SET (parallel_workers = " + std::to_string(workers) + ")");
        for (size_t w = 0; w < std::size(kWheres); ++w) {
          std::string q = std::string(kAggregates) + table + kWheres[w];
          // Finalize / Partial Aggregate; or, where few rows pass, a plain Aggregate over
          // the Gather is cheaper (as PostgreSQL finds it).
          ASSERT_NE(plan_of(q).find("Gather"), std::string::npos) << plan_of(q);
          EXPECT_EQ(run(q, false), serial[w]) << q;
        }
      }
    }
    s_->execute(std::string("ALTER TABLE ") + table + " RESET (parallel_workers)");
  }
}

TEST_F(ParallelResults, RowsThroughGatherAreTheSerialRows) {
  const std::vector<std::pair<std::string, bool>> queries = {
      {"SELECT a, c FROM t WHERE b < -490", true},
      {"SELECT * FROM t WHERE a > 29900", true},
      {"SELECT a FROM t WHERE b < -490 ORDER BY a LIMIT 7", false},
      {"SELECT a, b FROM t WHERE b >= 495 ORDER BY b DESC, a", false},
  };
  s_->execute("RESET ALL");
  s_->execute("SET max_parallel_workers_per_gather = 0");
  std::vector<Rows> serial;
  for (const auto& [q, sort] : queries) serial.push_back(run(q, sort));
  for (int workers : {1, 2, 3, 5}) {
    SCOPED_TRACE("workers=" + std::to_string(workers));
    s_->execute("RESET ALL");
    s_->execute("SET max_parallel_workers_per_gather = 8");
    s_->execute("SET parallel_setup_cost = 0");
    s_->execute("SET parallel_tuple_cost = 0");
    s_->execute("ALTER TABLE t SET (parallel_workers = " + std::to_string(workers) + ")");
    std::string analyzed;
    for (const auto& row : s_->execute("EXPLAIN ANALYZE " + queries[0].first).rows)
      analyzed += row[0] + "\n";
    EXPECT_NE(analyzed.find("Workers Launched: " + std::to_string(workers)), std::string::npos)
        << analyzed;
    for (size_t i = 0; i < queries.size(); ++i) {
      ASSERT_NE(plan_of(queries[i].first).find("Gather"), std::string::npos)
          << plan_of(queries[i].first);
      EXPECT_EQ(run(queries[i].first, queries[i].second), serial[i]) << queries[i].first;
    }
  }
  // A Limit above the Gather stops it early.
  EXPECT_EQ(run("SELECT * FROM t LIMIT 5", false).size(), 5u);
  s_->execute("ALTER TABLE t RESET (parallel_workers)");
}

// ORDER BY through Gather Merge returns the serial plan's rows in the serial order (rows
// equal on every key may differ in order: compared by key there), for 1..4 workers with
// and without the leader, with LIMITs; EXPLAIN ANALYZE counts every participant's Sort.
TEST_F(ParallelResults, OrderByThroughGatherMergeIsTheSerialOrder) {
  const std::vector<std::string> queries = {
      "SELECT a, b FROM t WHERE b < -400 ORDER BY a",
      "SELECT a, c FROM t ORDER BY c DESC LIMIT 25",
      "SELECT a, b FROM t WHERE b >= 450 ORDER BY b DESC, a",
      "SELECT * FROM t WHERE a < 5000 ORDER BY b, c DESC LIMIT 300",
      "SELECT a FROM tiny ORDER BY a DESC",
  };
  const std::string by_b = "SELECT b FROM t WHERE b < -450 ORDER BY b";  // duplicates
  s_->execute("RESET ALL");
  s_->execute("SET max_parallel_workers_per_gather = 0");
  std::vector<Rows> serial;
  for (const std::string& q : queries) serial.push_back(run(q, false));
  const Rows serial_b = run(by_b, false);
  for (int workers = 1; workers <= 4; ++workers)
    for (bool leader : {true, false}) {
      if (workers == 1 && !leader) continue;  // the serial Sort is cheaper, as in PostgreSQL
      SCOPED_TRACE("workers=" + std::to_string(workers) + (leader ? " with" : " without") +
                   " leader");
      s_->execute("RESET ALL");
      s_->execute("SET max_parallel_workers_per_gather = 8");
      s_->execute("SET parallel_setup_cost = 0");
      s_->execute("SET parallel_tuple_cost = 0");
      s_->execute(std::string("SET parallel_leader_participation = ") + (leader ? "on" : "off"));
      for (const char* table : {"t", "tiny"})
        s_->execute(std::string("ALTER TABLE ") + table +
                    " SET (parallel_workers = " + std::to_string(workers) + ")");
      for (size_t i = 0; i < queries.size(); ++i) {
        ASSERT_NE(plan_of(queries[i]).find("Gather Merge"), std::string::npos)
            << plan_of(queries[i]);
        EXPECT_EQ(run(queries[i], false), serial[i]) << queries[i];
      }
      EXPECT_EQ(run(by_b, false), serial_b);
      std::string analyzed;
      for (const auto& row : s_->execute("EXPLAIN ANALYZE " + queries[0]).rows)
        analyzed += row[0] + "\n";
      EXPECT_NE(analyzed.find("Workers Launched: " + std::to_string(workers)), std::string::npos)
          << analyzed;
      const int participants = workers + (leader ? 1 : 0);
      EXPECT_NE(analyzed.find("loops=" + std::to_string(participants) + ")"), std::string::npos)
          << analyzed;
    }
  for (const char* table : {"t", "tiny"})
    s_->execute(std::string("ALTER TABLE ") + table + " RESET (parallel_workers)");
}

// No worker can start: the leader runs the whole plan (even without participation, as
// PostgreSQL's Gather does when it launched none).
TEST_F(ParallelResults, NoWorkerAvailableMeansTheLeaderAlone) {
  s_->execute("RESET ALL");
  const std::string q = std::string(kAggregates) + "t";
  Rows serial = run(q, false);
  // Two planned workers: with one and no leader the parallel plan would not pay.
  s_->execute("ALTER TABLE t SET (parallel_workers = 2)");
  s_->execute("SET parallel_setup_cost = 0");
  s_->execute("SET max_parallel_workers = 0");
  for (const char* leader : {"on", "off"}) {
    s_->execute(std::string("SET parallel_leader_participation = ") + leader);
    ASSERT_EQ(plan_of(q).rfind("Finalize Aggregate", 0), 0u) << plan_of(q);
    EXPECT_EQ(run(q, false), serial) << leader;
    std::string analyzed;
    for (const auto& row : s_->execute("EXPLAIN ANALYZE " + q).rows) analyzed += row[0] + "\n";
    EXPECT_NE(analyzed.find("Workers Launched: 0"), std::string::npos) << analyzed;
  }
  s_->execute("ALTER TABLE t RESET (parallel_workers)");
}

}  // namespace
}  // namespace tp
