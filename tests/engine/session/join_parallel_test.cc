// Parallel joins against PostgreSQL 15.20 over pg15/joins_setup.sql's tables, under
// parallel costs low enough for these small tables (the fixture was captured with the
// same settings, and enable_parallel_hash off: tidepool builds no Parallel Hash):
// Gathers over partial Hash Joins whose Hash each participant builds, partial Nested
// Loops, semi and anti joins, a partial join under a second join, a Gather over a
// table's Parallel Seq Scan as a join input. Plans, costs and rows are PostgreSQL's
// (pg15/join_parallel.out); the rows are the serial plan's whatever the workers do.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class ParallelJoinTables : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::run_pg15_setup(s_, "joins_setup.sql");
    for (const char* set :
         {"set parallel_setup_cost = 0", "set parallel_tuple_cost = 0",
          "set min_parallel_table_scan_size = 0", "set min_parallel_index_scan_size = 0",
          "set enable_parallel_hash = off"})
      s_.execute(set);
  }

  std::string explain(const std::string& sql) {
    std::string text;
    for (const auto& row : s_.execute("explain (analyze, costs off, timing off) " + sql).rows)
      text += row.at(0) + "\n";
    return text;
  }

  // The rows of `sql` as the serial plan returns them, sorted.
  std::vector<std::vector<std::string>> serial_rows(const std::string& sql) {
    s_.execute("set max_parallel_workers_per_gather = 0");
    auto rows = s_.execute(sql).rows;
    s_.execute("reset max_parallel_workers_per_gather");
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  std::vector<std::vector<std::string>> sorted_rows(const std::string& sql) {
    auto rows = s_.execute(sql).rows;
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(ParallelJoinTables, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_parallel.out"), 15u);
}

// Each participant runs the join over its share of o's blocks and the whole of c:
// EXPLAIN ANALYZE adds the workers' figures (three loops of the join and of the Parallel
// Seq Scan, whose rows add up to the table's; each participant's Hash has all of c).
TEST_F(ParallelJoinTables, AnalyzeSumsTheParticipants) {
  const std::string q = "select o.id, c.name from o join c on o.cust = c.cid";
  const std::string text = explain(q);
  EXPECT_NE(text.find("Gather (actual rows=19794 loops=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Workers Planned: 2"), std::string::npos) << text;
  EXPECT_NE(text.find("Workers Launched: 2"), std::string::npos) << text;
  EXPECT_NE(text.find("Hash Join (actual rows=6598 loops=3)"), std::string::npos) << text;
  EXPECT_NE(text.find("Parallel Seq Scan on o (actual rows=6667 loops=3)"), std::string::npos)
      << text;
  EXPECT_EQ(sorted_rows(q), serial_rows(q));
}

// The rows do not depend on who runs the join: the leader alone (no worker may start),
// the workers alone (parallel_leader_participation off), a partial Nested Loop and a
// partial anti join.
TEST_F(ParallelJoinTables, RowsAreTheSerialPlansWhoeverRuns) {
  const std::string queries[] = {
      "select o.id, c.name, r.label from o join c on o.cust = c.cid join r on r.rid = c.region "
      "where o.amount > 90",
      "select o.id, c.cid from o, c where o.cust < c.cid and c.cid < 2 and o.id < 200",
      "select o.id from o where not exists (select 1 from c where c.cid = o.cust and c.region "
      "< 11)"};
  for (const std::string& q : queries) {
    const auto want = serial_rows(q);
    EXPECT_NE(explain(q).find("Gather"), std::string::npos) << q;
    EXPECT_EQ(sorted_rows(q), want) << q;
    s_.execute("set max_parallel_workers = 0");
    EXPECT_NE(explain(q).find("Workers Launched: 0"), std::string::npos) << q;
    EXPECT_EQ(sorted_rows(q), want) << q;
    s_.execute("reset max_parallel_workers");
    s_.execute("set parallel_leader_participation = off");
    EXPECT_EQ(sorted_rows(q), want) << q;
    s_.execute("reset parallel_leader_participation");
  }
}

// Without parallel plans (max_parallel_workers_per_gather = 0) the join is serial.
TEST_F(ParallelJoinTables, NoGatherWithoutWorkers) {
  s_.execute("set max_parallel_workers_per_gather = 0");
  EXPECT_EQ(explain("select o.id, c.name from o join c on o.cust = c.cid").find("Gather"),
            std::string::npos);
}

}  // namespace
}  // namespace tp
