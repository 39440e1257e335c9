// Parallel Index, Index Only and Bitmap Heap Scans against PostgreSQL 15.18: pi and piv
// built as pg15/pi_setup.sql builds them (sampled whole by ANALYZE, piv VACUUM'd), then
// every statement of pg15/pi_explain.sql in order; each EXPLAIN prints exactly what
// PostgreSQL printed into pg15/pi_explain.out (which partial paths add_partial_path
// keeps, their workers and costs, Gather over the cheapest, Gather Merge over an ordered
// Parallel Index Scan, Partial Aggregates). Then the parallel plans' rows equal the
// serial plans' for 0 to 8 workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/session/session.h"
#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class Pg15ParallelIndex : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"pi_setup.sql"});
    s_ = &tables_->session();
  }
  static void TearDownTestSuite() {
    delete tables_;
    s_ = nullptr;
  }
  void SetUp() override { s_->execute("RESET ALL"); }

  // The rows of `sql`, in order when it has an ORDER BY, else sorted.
  static std::vector<std::string> rows(const std::string& sql) {
    std::vector<std::string> out;
    for (const auto& row : s_->execute(sql).rows) {
      std::string line;
      for (const auto& cell : row) line += (line.empty() ? "" : "|") + cell;
      out.push_back(line);
    }
    if (sql.find("order by") == std::string::npos) std::sort(out.begin(), out.end());
    return out;
  }
  static std::string top_node(const std::string& sql) {
    std::vector<std::string> plan = tables_->lines("EXPLAIN (COSTS OFF) " + sql);
    std::string all;
    for (const auto& l : plan) all += l + "\n";
    return all;
  }

  static testing::FixtureTables* tables_;
  static Session* s_;
};
testing::FixtureTables* Pg15ParallelIndex::tables_ = nullptr;
Session* Pg15ParallelIndex::s_ = nullptr;

TEST_F(Pg15ParallelIndex, EveryPlanIsPostgres) {
  EXPECT_GE(testing::compare_plans(*s_, "pi_explain.sql", "pi_explain.out"), 77u);
}

// Each query's rows with parallel plans forced (no setup or tuple cost, no size
// minimum) and 0 to 8 workers equal the serial plan's; the plan named must be the one
// that ran, or the comparison proves nothing.
TEST_F(Pg15ParallelIndex, ParallelRowsEqualSerialRowsFor0To8Workers) {
  struct Case {
    std::string sql;
    std::string node;        // in the parallel plan
    std::string extra = "";  // a setting the case needs besides the common ones
  };
  const std::vector<Case> cases = {
      {"select a, b, c from pi where c < 9000", "Parallel Index Scan using pi_c"},
      // Ten filters make the divided CPU worth a Gather Merge over the ordered scan.
      {"select a, c from pi where c > 100 and a <> 1 and a <> 2 and a <> 3 and a <> 4 "
       "and a <> 5 and a <> 6 and a <> 7 and a <> 8 and a <> 9 and a <> 10 order by c",
       "Gather Merge"},
      {"select a, c from pi where c > 100 and a <> 1 and a <> 2 and a <> 3 and a <> 4 "
       "and a <> 5 and a <> 6 and a <> 7 and a <> 8 and a <> 9 and a <> 10 order by c desc limit "
       "2000",
       "Parallel Index Scan Backward"},
      // One primitive scan per IN-list element, shared out by the participants (the
      // filters keep CPU the larger part of the cost).
      {"select b from piv where b in (3, 44, 85, 126, 167, 208, 249, 290, 331, 372, 413, 454, 495,"
       " 536, 577, 618, 659, 700, 741, 782, 823, 864, 905, 946, 987) and b <> 3 and b <> 44 and b "
       "<> 85 and b <> 126 a"
       "nd b <> 167 and b <> 208 and b <> 249 and b <> 290 and b <> 331 and b <> 372",
       "Parallel Index Only Scan using piv_b", "SET enable_bitmapscan = off"},
      {"select a, b, c from pi where b < 100", "Parallel Bitmap Heap Scan"},
      {"select a, b, c from pi where b < 200 or c < 5000", "Parallel Bitmap Heap Scan"},
      {"select count(*), sum(a), max(c) from pi where b < 200", "Parallel Bitmap Heap Scan"},
      {"select a from piv where a < 20000", "Parallel Index Only Scan using piv_a"},
      {"select count(*), sum(a) from piv where a > 77", "Parallel Index Only Scan"},
      // SELECT DISTINCT: a Unique in each participant over its ordered share, a
      // HashAggregate in each, an Incremental Sort in each under the Gather Merge.
      {"select distinct b from piv where b > 3", "->  Unique", "SET enable_hashagg = off"},
      {"select distinct b from pi where c < 20000", "->  HashAggregate"},
      {"select distinct b, c from pi where b < 300", "Incremental Sort",
       "SET enable_hashagg = off; SET enable_bitmapscan = off"},
  };
  for (const Case& c : cases) {
    s_->execute("RESET ALL");
    s_->execute("SET max_parallel_workers_per_gather = 0");
    const std::vector<std::string> serial = rows(c.sql);
    ASSERT_FALSE(serial.empty()) << c.sql;
    int ran_parallel = 0;  // worker counts whose plan had c.node
    for (int workers = 0; workers <= 8; ++workers) {
      s_->execute("RESET ALL");
      for (const char* st : {"SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
                             "SET min_parallel_table_scan_size = 0",
                             "SET min_parallel_index_scan_size = 0", "SET enable_seqscan = off"})
        s_->execute(st);
      s_->execute("SET max_parallel_workers_per_gather = " + std::to_string(std::max(1, workers)));
      s_->execute("ALTER TABLE pi SET (parallel_workers = " + std::to_string(workers) + ")");
      s_->execute("ALTER TABLE piv SET (parallel_workers = " + std::to_string(workers) + ")");
      for (std::string_view rest = c.extra; !rest.empty();) {
        const size_t end = std::min(rest.find(';'), rest.size());
        s_->execute(std::string(rest.substr(0, end)));
        rest.remove_prefix(std::min(end + 1, rest.size()));
      }
      const std::string plan = top_node(c.sql);
      if (workers > 0 && plan.find(c.node) != std::string::npos) ++ran_parallel;
      EXPECT_EQ(rows(c.sql), serial) << c.sql << " with " << workers << " workers\n" << plan;
    }
    EXPECT_GE(ran_parallel, 4) << c.sql << ": too few plans with " << c.node;
  }
  s_->execute("ALTER TABLE pi RESET (parallel_workers)");
  s_->execute("ALTER TABLE piv RESET (parallel_workers)");
}

// EXPLAIN ANALYZE adds up the participants: every row once, the bitmap's pages once
// between them (the serial scan's Heap Blocks), the Bitmap Index Scan run once.
TEST_F(Pg15ParallelIndex, AnalyzeSumsTheParticipants) {
  const std::string sql = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM pi WHERE b < 100";
  auto heap_blocks = [](const std::vector<std::string>& plan) {
    for (const std::string& l : plan)
      if (l.find("Heap Blocks:") != std::string::npos) return l.substr(l.find("Heap Blocks:"));
    return std::string("none");
  };
  s_->execute("SET max_parallel_workers_per_gather = 0");
  const std::string serial_blocks = heap_blocks(tables_->lines(sql));
  EXPECT_NE(serial_blocks.find("exact="), std::string::npos) << serial_blocks;
  s_->execute("RESET ALL");
  for (const char* st : {"SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0",
                         "SET enable_seqscan = off", "SET max_parallel_workers_per_gather = 2"})
    s_->execute(st);
  s_->execute("ALTER TABLE pi SET (parallel_workers = 2)");
  const std::vector<std::string> plan = tables_->lines(sql);
  s_->execute("ALTER TABLE pi RESET (parallel_workers)");
  std::string out;
  for (const std::string& l : plan) out += l + "\n";
  EXPECT_NE(out.find("Gather (actual rows=3000 loops=1)"), std::string::npos) << out;
  EXPECT_NE(out.find("Workers Launched: 2"), std::string::npos) << out;
  EXPECT_NE(out.find("Parallel Bitmap Heap Scan on pi (actual rows=1000 loops=3)"),
            std::string::npos)
      << out;
  EXPECT_EQ(heap_blocks(plan), serial_blocks) << out;
  EXPECT_NE(out.find("Bitmap Index Scan on pi_b (actual rows=3000 loops=1)"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace tp
