// ALTER TABLE ... SET / RESET (storage options): PostgreSQL's errors, the value kept in
// the catalog across a reopen, and the planner honouring parallel_workers.
#include <gtest/gtest.h>

#include "engine/core/interrupts.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::TempDir;

int parallel_workers(Session& s, const char* table) {
  return s.catalog().find(table)->parallel_workers;
}

std::string workers_planned(Session& s, const std::string& query) {
  for (const auto& row : s.execute("EXPLAIN " + query).rows)
    if (row[0].find("Workers Planned") != std::string::npos) return row[0];
  return "";
}

TEST(AlterTable, SetAndResetParallelWorkersSurviveReopen) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    EXPECT_EQ(parallel_workers(s, "t"), -1);
    ResultSet r = s.execute("ALTER TABLE t SET (parallel_workers = 8)");
    EXPECT_EQ(r.tag, "ALTER TABLE");
    EXPECT_EQ(parallel_workers(s, "t"), 8);
    s.execute("ALTER TABLE t SET (fillfactor = 50, parallel_workers = '3')");
  }
  {
    Session s(testing::options_for(tmp.data()));
    EXPECT_EQ(parallel_workers(s, "t"), 3);
    EXPECT_EQ(s.catalog().find("t")->fillfactor, 50);
    s.execute("ALTER TABLE t RESET (parallel_workers)");
    EXPECT_EQ(parallel_workers(s, "t"), -1);
    EXPECT_EQ(s.catalog().find("t")->fillfactor, 50);
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(parallel_workers(s, "t"), -1);
  s.execute("ALTER TABLE t RESET (fillfactor, no_such_option)");  // unknown names: ignored
  EXPECT_EQ(s.catalog().find("t")->fillfactor, 100);
}

// A cancel at the last moment (just before the catalog is replaced) leaves the option as
// it was, in this process and after a reopen.
// CREATE INDEX ... WITH (deduplicate_items): PostgreSQL's boolean spellings, its
// errors, the option kept in the catalog across a reopen and shown by \d's source.
TEST(CreateIndexOptions, DeduplicateItemsIsKeptAndChecked) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i % 4 FROM generate_series(1, 20000) s(i)");
    s.execute("CREATE INDEX t_on ON t (b)");
    s.execute("CREATE INDEX t_off ON t (b) WITH (deduplicate_items = of)");
    s.execute("CREATE INDEX t_yes ON t (b) WITH (DEDUPLICATE_ITEMS = 'Yes')");
    s.execute("CREATE INDEX t_bare ON t (b) WITH (deduplicate_items)");
    EXPECT_EQ(error_of(s, "CREATE INDEX x ON t (b) WITH (deduplicate_items = o)"),
              "invalid value for boolean option \"deduplicate_items\": o");
    EXPECT_EQ(error_of(s, "CREATE INDEX x ON t (b) WITH (dedup = on)"),
              "unrecognized parameter \"dedup\"");
    EXPECT_EQ(error_of(s, "CREATE INDEX x ON t (b) WITH (fillfactor = 70)"),
              "index storage option \"fillfactor\" is not supported");
    EXPECT_EQ(
        error_of(s, "CREATE INDEX x ON t (b) WITH (deduplicate_items = on, deduplicate_items = 0)"),
        "parameter \"deduplicate_items\" specified more than once");
    EXPECT_EQ(s.catalog().find("x"), nullptr);
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_FALSE(s.catalog().find("t_on")->deduplicate_items.has_value());
  EXPECT_EQ(s.catalog().find("t_off")->deduplicate_items, std::optional<bool>(false));
  EXPECT_EQ(s.catalog().find("t_yes")->deduplicate_items, std::optional<bool>(true));
  EXPECT_EQ(s.catalog().find("t_bare")->deduplicate_items, std::optional<bool>(true));
  // 20,000 entries of 4 values: PostgreSQL 15's builds give 19 pages, and 57 with
  // deduplicate_items = off.
  EXPECT_EQ(testing::scalar(s, "SELECT pg_relation_size('t_on') / 8192"), "19");
  EXPECT_EQ(testing::scalar(s, "SELECT pg_relation_size('t_off') / 8192"), "57");
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t WHERE b = 1"), "5000");
}

TEST(AlterTable, CancelAtCommitChangesNothing) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int) WITH (parallel_workers = 2)");
    s.data_dir().set_before_commit_hook([] { cancel_requested().store(true); });
    EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers = 6)"),
              "canceling statement due to user request");
    s.data_dir().set_before_commit_hook({});
    EXPECT_EQ(parallel_workers(s, "t"), 2);
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(parallel_workers(s, "t"), 2);
}

TEST(AlterTable, CreateTableWithParallelWorkers) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int) WITH (parallel_workers = 3, fillfactor = 20)");
  EXPECT_EQ(parallel_workers(s, "t"), 3);
  EXPECT_EQ(s.catalog().find("t")->fillfactor, 20);
}

TEST(AlterTable, ErrorsAreWordedAsPostgres) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int)");
  s.execute("CREATE INDEX t_a ON t (a)");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers = 2000)"),
            "value 2000 out of bounds for option \"parallel_workers\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers = -1)"),
            "value -1 out of bounds for option \"parallel_workers\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers = 'abc')"),
            "invalid value for integer option \"parallel_workers\": abc");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers)"),
            "invalid value for integer option \"parallel_workers\": true");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (foo = 1)"), "unrecognized parameter \"foo\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t RESET (parallel_workers = 1)"),
            "RESET must not include values for parameters");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET (parallel_workers = 2, parallel_workers = 3)"),
            "parameter \"parallel_workers\" specified more than once");
  EXPECT_EQ(error_of(s, "ALTER TABLE nosuch SET (parallel_workers = 2)"),
            "relation \"nosuch\" does not exist");
  EXPECT_EQ(error_of(s, "ALTER TABLE t_a SET (parallel_workers = 2)"),
            "unrecognized parameter \"parallel_workers\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t SET ()"), "syntax error at or near \")\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t_a SET (deduplicate_items = off)"),
            "cannot change the options of index \"t_a\"");
  EXPECT_EQ(error_of(s, "ALTER TABLE t_a SET (deduplicate_items = maybe)"),
            "invalid value for boolean option \"deduplicate_items\": maybe");
  try {
    s.execute("ALTER TABLE t SET (parallel_workers = 1025)");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.detail(), "Valid values are between \"0\" and \"1024\".");
  }
  // Nothing changed; the bounds themselves are accepted, a fraction rounds as PostgreSQL's.
  EXPECT_EQ(parallel_workers(s, "t"), -1);
  s.execute("ALTER TABLE t SET (parallel_workers = 1024)");
  EXPECT_EQ(parallel_workers(s, "t"), 1024);
  s.execute("ALTER TABLE t SET (PARALLEL_WORKERS = 2.5)");
  EXPECT_EQ(parallel_workers(s, "t"), 2);
  ResultSet r = s.execute("ALTER TABLE IF EXISTS nosuch SET (parallel_workers = 2)");
  EXPECT_EQ(r.tag, "ALTER TABLE");
  EXPECT_EQ(r.notices, std::vector<std::string>{"relation \"nosuch\" does not exist, skipping"});
}

// 18 rows per page at fillfactor 10: 900 rows are 50 pages, far below
// min_parallel_table_scan_size; the option plans a parallel scan all the same, capped
// by max_parallel_workers_per_gather, and 0 means none.
TEST(AlterTable, PlannerHonoursParallelWorkers) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int, c bigint) WITH (fillfactor = 10)");
  s.execute("INSERT INTO t SELECT i, i, i FROM generate_series(1, 900) s(i)");
  s.execute("SET parallel_setup_cost = 0");
  s.execute("SET parallel_tuple_cost = 0");
  const std::string q = "SELECT count(*) FROM t";
  EXPECT_EQ(workers_planned(s, q), "");
  s.execute("ALTER TABLE t SET (parallel_workers = 8)");
  EXPECT_EQ(workers_planned(s, q), "        Workers Planned: 2");
  s.execute("SET max_parallel_workers_per_gather = 8");
  EXPECT_EQ(workers_planned(s, q), "        Workers Planned: 8");
  s.execute("SET max_parallel_workers_per_gather = 0");
  EXPECT_EQ(workers_planned(s, q), "");
  s.execute("RESET max_parallel_workers_per_gather");
  s.execute("ALTER TABLE t SET (parallel_workers = 0)");
  EXPECT_EQ(workers_planned(s, q), "");
  s.execute("ALTER TABLE t RESET (parallel_workers)");
  EXPECT_EQ(workers_planned(s, q), "");
}

}  // namespace
}  // namespace tp
