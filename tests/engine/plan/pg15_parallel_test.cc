// Parallel plans end to end against PostgreSQL 15.18: p1 (30,000 rows, 1,667 pages) and
// p1_small (17,000 rows, 945 pages) are built and analyzed as pg15/p1_setup.sql builds
// them (ANALYZE samples every row, so both systems hold the same statistics), and each
// EXPLAIN must print exactly what PostgreSQL printed for pg15/p1_explain.sql.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

class Pg15Parallel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir;
    s_ = new Session(testing::options_for(tmp_->data()));
    for (const char* sql : {
             "CREATE TABLE p1 (a int, b int, c bigint) WITH (fillfactor=10)",
             "INSERT INTO p1 SELECT i, i % 1000, i::bigint * 100000 "
             "FROM generate_series(1, 30000) s(i)",
             "CREATE TABLE p1_small (a int, b int, c bigint) WITH (fillfactor=10)",
             "INSERT INTO p1_small SELECT i, i % 1000, i::bigint * 100000 "
             "FROM generate_series(1, 17000) s(i)",
             "ANALYZE p1",
             "ANALYZE p1_small",
         })
      s_->execute(sql);
  }
  static void TearDownTestSuite() {
    delete s_;
    delete tmp_;
  }
  void SetUp() override { s_->execute("RESET ALL"); }

  // EXPLAIN's lines after `settings` (each a SET or ALTER TABLE statement).
  static std::string plan(const std::vector<std::string>& settings, const std::string& query) {
    s_->execute("RESET ALL");
    for (const std::string& st : settings) s_->execute(st);
    std::string out;
    for (const auto& row : s_->execute("EXPLAIN " + query).rows) out += row[0] + "\n";
    return out;
  }

  static TempDir* tmp_;
  static Session* s_;
};
TempDir* Pg15Parallel::tmp_ = nullptr;
Session* Pg15Parallel::s_ = nullptr;

const char* kSumCountAvg = "select sum(a), count(*), avg(b) from p1";

TEST_F(Pg15Parallel, TheTableIsPostgresSize) {
  EXPECT_EQ(testing::scalar(*s_, "SELECT pg_relation_size('p1')"), "13656064");
  EXPECT_EQ(testing::scalar(*s_, "SELECT pg_relation_size('p1_small')"), "7741440");
}

// At the defaults a 30,000-row table saves less CPU than parallel_setup_cost (1000).
TEST_F(Pg15Parallel, DefaultsStaySerial) {
  EXPECT_EQ(plan({}, kSumCountAvg),
            "Aggregate  (cost=2192.00..2192.01 rows=1 width=48)\n"
            "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=8)\n");
  EXPECT_EQ(plan({}, "select a from p1 where b < 10"),
            "Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "  Filter: (b < 10)\n");
}

TEST_F(Pg15Parallel, FinalizeGatherPartialAggregate) {
  EXPECT_EQ(plan({"set parallel_setup_cost = 0"}, kSumCountAvg),
            "Finalize Aggregate  (cost=1975.94..1975.95 rows=1 width=48)\n"
            "  ->  Gather  (cost=1975.82..1975.93 rows=1 width=48)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1975.82..1975.83 rows=1 width=48)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=8)\n");
  EXPECT_EQ(plan({"set parallel_setup_cost = 10"}, "select count(*) from p1 where b < 500"),
            "Finalize Aggregate  (cost=1919.76..1919.77 rows=1 width=8)\n"
            "  ->  Gather  (cost=1919.65..1919.76 rows=1 width=8)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1909.65..1909.66 rows=1 width=8)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=8824 width=0)\n"
            "                    Filter: (b < 500)\n");
  EXPECT_EQ(
      plan({"set parallel_setup_cost = 10"}, "select min(a), max(c), count(b) from p1"),
      "Finalize Aggregate  (cost=1985.94..1985.95 rows=1 width=20)\n"
      "  ->  Gather  (cost=1985.82..1985.93 rows=1 width=20)\n"
      "        Workers Planned: 1\n"
      "        ->  Partial Aggregate  (cost=1975.82..1975.83 rows=1 width=20)\n"
      "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=16)\n");
  EXPECT_EQ(plan({"set parallel_setup_cost = 10"}, "select sum(c), avg(c) from p1"),
            "Finalize Aggregate  (cost=1897.71..1897.72 rows=1 width=64)\n"
            "  ->  Gather  (cost=1897.59..1897.70 rows=1 width=64)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1887.59..1887.60 rows=1 width=64)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=8)\n");
}

TEST_F(Pg15Parallel, GatherForRows) {
  const std::vector<std::string> cheap = {"set parallel_setup_cost = 10"};
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10"),
            "Gather  (cost=10.00..1927.89 rows=303 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "        Filter: (b < 10)\n");
  // LIMIT 5: the serial scan's first rows come sooner.
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 limit 5"),
            "Limit  (cost=0.00..33.70 rows=5 width=4)\n"
            "  ->  Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "        Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select * from p1 where b < 10 limit 200"),
            "Limit  (cost=10.00..1275.93 rows=200 width=16)\n"
            "  ->  Gather  (cost=10.00..1927.89 rows=303 width=16)\n"
            "        Workers Planned: 1\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=16)\n"
            "              Filter: (b < 10)\n");
  // ORDER BY: each participant sorts its rows, the leader merges them (create_ordered_paths'
  // Gather Merge, rows = partial rows * workers); with enable_gathermerge = off, a Sort
  // over the Gather.
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan({"set parallel_setup_cost = 10", "set enable_gathermerge = off"},
                 "select a from p1 where b < 10 order by a"),
            "Sort  (cost=1940.38..1941.13 rows=303 width=4)\n"
            "  Sort Key: a\n"
            "  ->  Gather  (cost=10.00..1927.89 rows=303 width=4)\n"
            "        Workers Planned: 1\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(
      plan({"set parallel_setup_cost = 0", "set parallel_tuple_cost = 0.001"}, "select * from p1"),
      "Gather  (cost=0.00..1873.47 rows=30000 width=16)\n"
      "  Workers Planned: 1\n"
      "  ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=16)\n");
  // At parallel_tuple_cost 0.1, 30,000 rows cost more to pass than the scan saves.
  EXPECT_EQ(plan({"set parallel_setup_cost = 0"}, "select * from p1"),
            "Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=16)\n");
}

TEST_F(Pg15Parallel, MaxParallelWorkersPerGather) {
  EXPECT_EQ(plan({"set parallel_setup_cost = 10", "set max_parallel_workers_per_gather = 0"},
                 kSumCountAvg),
            "Aggregate  (cost=2192.00..2192.01 rows=1 width=48)\n"
            "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=8)\n");
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 4)");
  EXPECT_EQ(plan({"set parallel_setup_cost = 10", "set max_parallel_workers_per_gather = 1"},
                 kSumCountAvg),
            "Finalize Aggregate  (cost=1985.94..1985.95 rows=1 width=48)\n"
            "  ->  Gather  (cost=1985.82..1985.93 rows=1 width=48)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1975.82..1975.83 rows=1 width=48)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=8)\n");
  const std::vector<std::string> four = {"set parallel_setup_cost = 10",
                                         "set max_parallel_workers_per_gather = 4"};
  EXPECT_EQ(plan(four, kSumCountAvg),
            "Finalize Aggregate  (cost=1808.69..1808.70 rows=1 width=48)\n"
            "  ->  Gather  (cost=1808.25..1808.66 rows=4 width=48)\n"
            "        Workers Planned: 4\n"
            "        ->  Partial Aggregate  (cost=1798.25..1798.26 rows=1 width=48)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1742.00 rows=7500 width=8)\n");
  EXPECT_EQ(plan(four, "select a from p1 where b < 10"),
            "Gather  (cost=10.00..1801.05 rows=303 width=4)\n"
            "  Workers Planned: 4\n"
            "  ->  Parallel Seq Scan on p1  (cost=0.00..1760.75 rows=76 width=4)\n"
            "        Filter: (b < 10)\n");
  s_->execute("ALTER TABLE p1 RESET (parallel_workers)");
}

TEST_F(Pg15Parallel, ParallelWorkersReloption) {
  const std::string serial =
      "Aggregate  (cost=2192.00..2192.01 rows=1 width=48)\n"
      "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=8)\n";
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 1)");
  EXPECT_EQ(plan({}, kSumCountAvg), serial);
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 8)");
  // Capped by max_parallel_workers_per_gather (2).
  EXPECT_EQ(plan({"set parallel_setup_cost = 10"}, kSumCountAvg),
            "Finalize Aggregate  (cost=1895.98..1895.99 rows=1 width=48)\n"
            "  ->  Gather  (cost=1895.75..1895.96 rows=2 width=48)\n"
            "        Workers Planned: 2\n"
            "        ->  Partial Aggregate  (cost=1885.75..1885.76 rows=1 width=48)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1792.00 rows=12500 width=8)\n");
  // Eight workers still do not pay for parallel_setup_cost = 1000 here.
  EXPECT_EQ(plan({"set max_parallel_workers_per_gather = 8"}, kSumCountAvg), serial);
  EXPECT_EQ(
      plan({"set max_parallel_workers_per_gather = 8"}, "select count(*) from p1 where b < 500"),
      "Aggregate  (cost=2079.50..2079.51 rows=1 width=8)\n"
      "  ->  Seq Scan on p1  (cost=0.00..2042.00 rows=15000 width=0)\n"
      "        Filter: (b < 500)\n");
  EXPECT_EQ(
      plan({"set max_parallel_workers_per_gather = 8", "set parallel_leader_participation = off"},
           kSumCountAvg),
      serial);
  s_->execute("ALTER TABLE p1 RESET (parallel_workers)");
}

TEST_F(Pg15Parallel, LeaderParticipationOff) {
  const std::vector<std::string> off = {"set parallel_setup_cost = 10",
                                        "set parallel_leader_participation = off"};
  EXPECT_EQ(plan(off, kSumCountAvg),
            "Aggregate  (cost=2192.00..2192.01 rows=1 width=48)\n"
            "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=8)\n");
  EXPECT_EQ(plan(off, "select a from p1 where b < 10"),
            "Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "  Filter: (b < 10)\n");
}

// p1 has 1,667 pages = 13,336 kB.
TEST_F(Pg15Parallel, MinParallelTableScanSizeBoundary) {
  EXPECT_EQ(plan({"set parallel_setup_cost = 0", "set min_parallel_table_scan_size = '13336kB'"},
                 "select count(*) from p1"),
            "Finalize Aggregate  (cost=1887.70..1887.71 rows=1 width=8)\n"
            "  ->  Gather  (cost=1887.59..1887.70 rows=1 width=8)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1887.59..1887.60 rows=1 width=8)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=0)\n");
  EXPECT_EQ(plan({"set parallel_setup_cost = 0", "set min_parallel_table_scan_size = '13344kB'"},
                 "select count(*) from p1"),
            "Aggregate  (cost=2042.00..2042.01 rows=1 width=8)\n"
            "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=0)\n");
  // 555 pages: 1,667 >= 3 * 555, a second worker.
  EXPECT_EQ(plan({"set parallel_setup_cost = 0", "set min_parallel_table_scan_size = '4440kB'",
                  "set max_parallel_workers_per_gather = 4"},
                 "select count(*) from p1"),
            "Finalize Aggregate  (cost=1823.47..1823.48 rows=1 width=8)\n"
            "  ->  Gather  (cost=1823.25..1823.46 rows=2 width=8)\n"
            "        Workers Planned: 2\n"
            "        ->  Partial Aggregate  (cost=1823.25..1823.26 rows=1 width=8)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1792.00 rows=12500 width=0)\n");
}

TEST_F(Pg15Parallel, SmallTableOnlyByItsReloption) {
  EXPECT_EQ(plan({"set parallel_setup_cost = 0"}, "select count(*) from p1_small"),
            "Aggregate  (cost=1157.50..1157.51 rows=1 width=8)\n"
            "  ->  Seq Scan on p1_small  (cost=0.00..1115.00 rows=17000 width=0)\n");
  s_->execute("ALTER TABLE p1_small SET (parallel_workers = 2)");
  EXPECT_EQ(plan({"set parallel_setup_cost = 0"}, "select count(*) from p1_small"),
            "Finalize Aggregate  (cost=1033.76..1033.77 rows=1 width=8)\n"
            "  ->  Gather  (cost=1033.54..1033.75 rows=2 width=8)\n"
            "        Workers Planned: 2\n"
            "        ->  Partial Aggregate  (cost=1033.54..1033.55 rows=1 width=8)\n"
            "              ->  Parallel Seq Scan on p1_small  (cost=0.00..1015.83 rows=7083 "
            "width=0)\n");
  s_->execute("ALTER TABLE p1_small RESET (parallel_workers)");
}

// max_parallel_workers limits the workers a Gather starts, not the plan: PostgreSQL
// plans 2 and launches none, the leader doing all the work (its Prefetch lines and
// timings are tidepool's own and left out here).
TEST_F(Pg15Parallel, MaxParallelWorkersLimitsTheLaunchNotThePlan) {
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 2)");
  const std::vector<std::string> none = {"set parallel_setup_cost = 10",
                                         "set max_parallel_workers = 0"};
  EXPECT_EQ(plan(none, kSumCountAvg),
            "Finalize Aggregate  (cost=1895.98..1895.99 rows=1 width=48)\n"
            "  ->  Gather  (cost=1895.75..1895.96 rows=2 width=48)\n"
            "        Workers Planned: 2\n"
            "        ->  Partial Aggregate  (cost=1885.75..1885.76 rows=1 width=48)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1792.00 rows=12500 width=8)\n");
  std::string analyzed;
  for (const auto& row :
       s_->execute("EXPLAIN (ANALYZE, COSTS off, TIMING off) " + std::string(kSumCountAvg)).rows)
    if (row[0].find("Prefetch:") == std::string::npos &&
        row[0].find(" Time: ") == std::string::npos)
      analyzed += row[0] + "\n";
  EXPECT_EQ(analyzed,
            "Finalize Aggregate (actual rows=1 loops=1)\n"
            "  ->  Gather (actual rows=1 loops=1)\n"
            "        Workers Planned: 2\n"
            "        Workers Launched: 0\n"
            "        ->  Partial Aggregate (actual rows=1 loops=1)\n"
            "              ->  Parallel Seq Scan on p1 (actual rows=30000 loops=1)\n");
  s_->execute("ALTER TABLE p1 RESET (parallel_workers)");
}

// Both parallel-unsafe, Finalize over Gather and a plain Aggregate over the Gather
// compete on cost alone: eleven aggregates pay for partial aggregation, one does not.
TEST_F(Pg15Parallel, PlainAggregateOverGatherWhenFewRowsPass) {
  const std::vector<std::string> free = {"set parallel_setup_cost = 0",
                                         "set parallel_tuple_cost = 0"};
  EXPECT_EQ(plan(free,
                 "select sum(a), count(*), avg(b), min(c), max(c), sum(c), avg(c), count(b), "
                 "min(b), max(a), sum(b) from p1 where a > 29990"),
            "Finalize Aggregate  (cost=1887.79..1887.80 rows=1 width=152)\n"
            "  ->  Gather  (cost=1887.74..1887.75 rows=1 width=152)\n"
            "        Workers Planned: 1\n"
            "        ->  Partial Aggregate  (cost=1887.74..1887.75 rows=1 width=152)\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=6 width=16)\n"
            "                    Filter: (a > 29990)\n");
  EXPECT_EQ(plan(free, "select count(*) from p1 where a > 29990"),
            "Aggregate  (cost=1887.61..1887.62 rows=1 width=8)\n"
            "  ->  Gather  (cost=0.00..1887.59 rows=10 width=0)\n"
            "        Workers Planned: 1\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=6 width=0)\n"
            "              Filter: (a > 29990)\n");
}

// PostgreSQL's JSON: the node types without the text format's prefixes, Workers
// Planned a number, Parallel Aware on every node.
TEST_F(Pg15Parallel, JsonAsPostgresPrintsIt) {
  s_->execute("SET parallel_setup_cost = 10");
  const std::string j =
      s_->execute("EXPLAIN (FORMAT JSON) select count(*) from p1 where b < 500").rows.at(0).at(0);
  for (const char* field : {"\"Node Type\": \"Aggregate\",\n"
                            "      \"Strategy\": \"Plain\",\n"
                            "      \"Partial Mode\": \"Finalize\",\n"
                            "      \"Parallel Aware\": false,",
                            "\"Node Type\": \"Gather\",\n"
                            "          \"Parallel Aware\": false,",
                            "\"Workers Planned\": 1", "\"Partial Mode\": \"Partial\"",
                            "\"Node Type\": \"Seq Scan\",\n"
                            "                  \"Parallel Aware\": true,\n"
                            "                  \"Relation Name\": \"p1\"",
                            "\"Total Cost\": 1887.59", "\"Plan Rows\": 8824"})
    EXPECT_NE(j.find(field), std::string::npos) << field << "\n" << j;
}

// ORDER BY over the parallel scan: Gather Merge -> Sort -> Parallel Seq Scan, ascending,
// descending, on two keys, with LIMITs that bound each participant's Sort (create_ordered_paths'
// path, rows = partial rows * workers) and one larger than the rows.
TEST_F(Pg15Parallel, GatherMergeForOrderBy) {
  const std::vector<std::string> cheap = {"set parallel_setup_cost = 10"};
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a desc"),
            "Gather Merge  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "        Sort Key: a DESC\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a, b from p1 where b < 10 order by b, a desc"),
            "Gather Merge  (cost=1904.25..1924.72 rows=178 width=8)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1894.24..1894.69 rows=178 width=8)\n"
            "        Sort Key: b, a DESC\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=8)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a limit 10"),
            "Limit  (cost=1901.44..1902.59 rows=10 width=4)\n"
            "  ->  Gather Merge  (cost=1901.44..1921.91 rows=178 width=4)\n"
            "        Workers Planned: 1\n"
            "        ->  Sort  (cost=1891.43..1891.88 rows=178 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "                    Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a limit 100"),
            "Limit  (cost=1904.25..1915.75 rows=100 width=4)\n"
            "  ->  Gather Merge  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "        Workers Planned: 1\n"
            "        ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "                    Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a limit 1000"),
            "Limit  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "  ->  Gather Merge  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "        Workers Planned: 1\n"
            "        ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "                    Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select * from p1 where b < 100 order by c desc limit 50"),
            "Limit  (cost=1956.26..1962.01 rows=50 width=16)\n"
            "  ->  Gather Merge  (cost=1956.26..2159.35 rows=1766 width=16)\n"
            "        Workers Planned: 1\n"
            "        ->  Sort  (cost=1946.25..1950.67 rows=1766 width=16)\n"
            "              Sort Key: c DESC\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=1766 width=16)\n"
            "                    Filter: (b < 100)\n");
  EXPECT_EQ(plan(cheap, "select * from p1 where b < 100 order by c desc"),
            "Gather Merge  (cost=1992.84..2195.93 rows=1766 width=16)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1982.83..1987.25 rows=1766 width=16)\n"
            "        Sort Key: c DESC\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=1766 width=16)\n"
            "              Filter: (b < 100)\n");
  // Without a WHERE, the serial Sort wins unless a LIMIT makes the merge's start pay.
  EXPECT_EQ(plan(cheap, "select a from p1 order by a"),
            "Sort  (cost=4197.90..4272.90 rows=30000 width=4)\n"
            "  Sort Key: a\n"
            "  ->  Seq Scan on p1  (cost=0.00..1967.00 rows=30000 width=4)\n");
  EXPECT_EQ(plan(cheap, "select a from p1 order by a limit 10"),
            "Limit  (cost=2234.83..2235.98 rows=10 width=4)\n"
            "  ->  Gather Merge  (cost=2234.83..4264.23 rows=17647 width=4)\n"
            "        Workers Planned: 1\n"
            "        ->  Sort  (cost=2224.82..2268.93 rows=17647 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=4)\n");
}

// At parallel_tuple_cost 0.01 the merge wins for the whole table too.
TEST_F(Pg15Parallel, GatherMergeForTheWholeTable) {
  const std::vector<std::string> cheap = {"set parallel_setup_cost = 0",
                                          "set parallel_tuple_cost = 0.01"};
  EXPECT_EQ(plan(cheap, "select a from p1 order by a"),
            "Gather Merge  (cost=3088.22..3449.99 rows=17647 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=3088.21..3132.33 rows=17647 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=4)\n");
  EXPECT_EQ(
      plan(cheap, "select a, c from p1 order by c limit 20"),
      "Limit  (cost=2313.06..2313.47 rows=20 width=12)\n"
      "  ->  Gather Merge  (cost=2313.06..2674.82 rows=17647 width=12)\n"
      "        Workers Planned: 1\n"
      "        ->  Sort  (cost=2313.05..2357.17 rows=17647 width=12)\n"
      "              Sort Key: c\n"
      "              ->  Parallel Seq Scan on p1  (cost=0.00..1843.47 rows=17647 width=12)\n");
}

// At parallel_setup_cost 1000 the serial Sort stays cheaper.
TEST_F(Pg15Parallel, SerialSortWinsAtTheDefaults) {
  const std::vector<std::string> defaults;
  EXPECT_EQ(plan(defaults, "select a from p1 where b < 10 order by a"),
            "Sort  (cost=2054.49..2055.25 rows=303 width=4)\n"
            "  Sort Key: a\n"
            "  ->  Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "        Filter: (b < 10)\n");
  EXPECT_EQ(plan(defaults, "select a from p1 where b < 10 order by a limit 10"),
            "Limit  (cost=2048.55..2048.57 rows=10 width=4)\n"
            "  ->  Sort  (cost=2048.55..2049.31 rows=303 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "              Filter: (b < 10)\n");
}

// Two and four workers; with the leader out, generate_useful_gather_paths' Gather Merge
// (rows: the table's 303) beats create_ordered_paths' (76 per worker * 4 = 304).
TEST_F(Pg15Parallel, GatherMergeWorkersAndLeaderParticipation) {
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 2)");
  const std::vector<std::string> two = {"set parallel_setup_cost = 10"};
  EXPECT_EQ(plan(two, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1837.67..1867.07 rows=252 width=4)\n"
            "  Workers Planned: 2\n"
            "  ->  Sort  (cost=1827.65..1827.96 rows=126 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1823.25 rows=126 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(two, "select a from p1 where b < 10 order by a limit 50"),
            "Limit  (cost=1837.46..1843.29 rows=50 width=4)\n"
            "  ->  Gather Merge  (cost=1837.46..1866.86 rows=252 width=4)\n"
            "        Workers Planned: 2\n"
            "        ->  Sort  (cost=1827.44..1827.75 rows=126 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1823.25 rows=126 width=4)\n"
            "                    Filter: (b < 10)\n");
  s_->execute("ALTER TABLE p1 SET (parallel_workers = 4)");
  const std::vector<std::string> four = {"set parallel_setup_cost = 10",
                                         "set max_parallel_workers_per_gather = 4"};
  EXPECT_EQ(plan(four, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1773.18..1809.46 rows=303 width=4)\n"
            "  Workers Planned: 4\n"
            "  ->  Sort  (cost=1763.12..1763.31 rows=76 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1760.75 rows=76 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(four, "select a, b from p1 where b < 50 order by b desc, a limit 100"),
            "Limit  (cost=1786.89..1798.86 rows=100 width=8)\n"
            "  ->  Gather Merge  (cost=1786.89..1966.85 rows=1503 width=8)\n"
            "        Workers Planned: 4\n"
            "        ->  Sort  (cost=1776.83..1777.77 rows=376 width=8)\n"
            "              Sort Key: b DESC, a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1760.75 rows=376 width=8)\n"
            "                    Filter: (b < 50)\n");
  const std::vector<std::string> four_no_leader = {"set parallel_setup_cost = 10",
                                                   "set max_parallel_workers_per_gather = 4",
                                                   "set parallel_leader_participation = off"};
  EXPECT_EQ(plan(four_no_leader, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1773.18..1809.46 rows=303 width=4)\n"
            "  Workers Planned: 4\n"
            "  ->  Sort  (cost=1763.12..1763.31 rows=76 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1760.75 rows=76 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(four_no_leader, "select a from p1 where b < 10 order by a limit 20"),
            "Limit  (cost=1773.18..1775.58 rows=20 width=4)\n"
            "  ->  Gather Merge  (cost=1773.18..1809.46 rows=303 width=4)\n"
            "        Workers Planned: 4\n"
            "        ->  Sort  (cost=1763.12..1763.31 rows=76 width=4)\n"
            "              Sort Key: a\n"
            "              ->  Parallel Seq Scan on p1  (cost=0.00..1760.75 rows=76 width=4)\n"
            "                    Filter: (b < 10)\n");
  s_->execute("ALTER TABLE p1 RESET (parallel_workers)");
  // One worker without the leader does not pay for the merge.
  const std::vector<std::string> one_no_leader = {"set parallel_setup_cost = 10",
                                                  "set parallel_leader_participation = off"};
  EXPECT_EQ(plan(one_no_leader, "select a from p1 where b < 10 order by a"),
            "Sort  (cost=2054.49..2055.25 rows=303 width=4)\n"
            "  Sort Key: a\n"
            "  ->  Seq Scan on p1  (cost=0.00..2042.00 rows=303 width=4)\n"
            "        Filter: (b < 10)\n");
}

// With an index on a giving the order, the Index Scan competes with Gather Merge in the
// ordered relation: Gather Merge still wins without a LIMIT when few rows pass; the Index
// Scan wins under LIMIT 10 (its first rows come at once), for an index condition, and
// over the whole table.
TEST_F(Pg15Parallel, GatherMergeAgainstAnIndexGivingTheOrder) {
  s_->execute("CREATE INDEX p1_a ON p1 (a)");
  const std::vector<std::string> cheap = {"set parallel_setup_cost = 10"};
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1904.25..1924.72 rows=178 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a from p1 where b < 10 order by a limit 10"),
            "Limit  (cost=0.29..83.82 rows=10 width=4)\n"
            "  ->  Index Scan using p1_a on p1  (cost=0.29..2531.29 rows=303 width=4)\n"
            "        Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheap, "select a, b from p1 where a < 20000 order by a"),
            "Index Scan using p1_a on p1  (cost=0.29..1689.27 rows=19999 width=8)\n"
            "  Index Cond: (a < 20000)\n");
  const std::vector<std::string> cheaper = {"set parallel_setup_cost = 0",
                                            "set parallel_tuple_cost = 0.01"};
  EXPECT_EQ(plan(cheaper, "select a from p1 where b < 10 order by a"),
            "Gather Merge  (cost=1894.25..1897.90 rows=178 width=4)\n"
            "  Workers Planned: 1\n"
            "  ->  Sort  (cost=1894.24..1894.69 rows=178 width=4)\n"
            "        Sort Key: a\n"
            "        ->  Parallel Seq Scan on p1  (cost=0.00..1887.59 rows=178 width=4)\n"
            "              Filter: (b < 10)\n");
  EXPECT_EQ(plan(cheaper, "select a, b from p1 order by a"),
            "Index Scan using p1_a on p1  (cost=0.29..2456.29 rows=30000 width=8)\n");
  s_->execute("DROP INDEX p1_a");
}

}  // namespace
}  // namespace tp
