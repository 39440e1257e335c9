// Two Sessions on one Database in one process: what they share (tables, rows,
// the database-wide settings) and what each keeps for itself (its settings,
// its cancel flag).
#include "engine/session/database.h"

#include <gtest/gtest.h>

#include "engine/core/interrupts.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::shared_ptr<Database> open_database(const std::string& dir,
                                        std::vector<std::string> settings = {}) {
  return Database::open(DatabaseOptions{.data_dir = dir, .settings = std::move(settings)});
}

TEST(TwoSessions, SeeEachOthersTablesAndRows) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  Session a(db), b(db);
  a.execute("CREATE TABLE t (x int, y int)");
  EXPECT_NE(b.catalog().find("t"), nullptr);
  EXPECT_EQ(b.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)").tag,
            "INSERT 0 1000");
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t"), "1000");
  a.execute("INSERT INTO t VALUES (5000, 1)");
  EXPECT_EQ(scalar(b, "SELECT max(x) FROM t"), "5000");
  b.execute("CREATE INDEX t_x ON t (x)");
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t WHERE x BETWEEN 10 AND 19"), "10");
  a.execute("DROP TABLE t");
  EXPECT_EQ(error_of(b, "SELECT count(*) FROM t"), "relation \"t\" does not exist");
}

TEST(TwoSessions, FailedStatementInOneLeavesTheOthersViewUnchanged) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  Session a(db), b(db);
  a.execute("CREATE TABLE t (x int)");
  a.execute("INSERT INTO t SELECT i FROM generate_series(1, 500) s(i)");
  uint64_t pages = a.catalog().find("t")->pages;
  // Fails after thousands of rows went into the table's file.
  EXPECT_EQ(error_of(b,
                     "INSERT INTO t SELECT 3000000000 - i * 100 FROM "
                     "generate_series(1, 100000) s(i)"),
            "integer out of range");
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t"), "500");
  EXPECT_EQ(scalar(a, "SELECT sum(x) FROM t"), "125250");
  EXPECT_EQ(a.catalog().find("t")->pages, pages);
  EXPECT_EQ(error_of(b, "CREATE TABLE t (y int)"), "relation \"t\" already exists");
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t"), "500");
}

TEST(TwoSessions, PerSessionSettingsDoNotLeak) {
  TempDir tmp;
  auto db = open_database(tmp.data(), {"work_mem=8MB"});
  Session a(db), b(db);
  a.execute("SET enable_seqscan = off");
  a.execute("SET work_mem = '16MB'");
  a.execute("SET random_seed = 7");
  EXPECT_EQ(scalar(a, "SHOW enable_seqscan"), "off");
  EXPECT_EQ(scalar(b, "SHOW enable_seqscan"), "on");
  EXPECT_EQ(scalar(b, "SHOW work_mem"), "8MB");  // the --set value, not a's
  EXPECT_EQ(scalar(b, "SHOW random_seed"), "0");
  // A session opened later starts from the Database's values too.
  Session c(db);
  EXPECT_EQ(scalar(c, "SHOW work_mem"), "8MB");
  a.execute("RESET work_mem");
  EXPECT_EQ(scalar(a, "SHOW work_mem"), "8MB");
  a.execute("RESET ALL");
  EXPECT_EQ(scalar(a, "SHOW enable_seqscan"), "on");
}

TEST(TwoSessions, StackDepthLimitIsEachSessionsOwn) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  Session a(db), b(db);
  a.execute("SET max_stack_depth = '100kB'");
  std::string deep = "SELECT " + std::string(200, '(') + "1" + std::string(200, ')');
  EXPECT_EQ(error_of(a, deep), "stack depth limit exceeded");
  EXPECT_EQ(scalar(b, deep), "1");  // b's 2MB, though a set 100kB last
  EXPECT_EQ(error_of(a, deep), "stack depth limit exceeded");
}

TEST(TwoSessions, DatabaseWideSettingIsOneValueForAll) {
  TempDir tmp;
  auto db = open_database(tmp.data(), {"shared_buffers=2MB"});
  Session a(db), b(db);
  EXPECT_EQ(scalar(b, "SHOW shared_buffers"), "2MB");
  a.execute("SET shared_buffers = '1MB'");
  EXPECT_EQ(scalar(b, "SHOW shared_buffers"), "1MB");
  EXPECT_EQ(b.storage().pool().shared_buffers(), 128);
  EXPECT_EQ(&a.storage(), &b.storage());
  ResultSet all = b.execute("SHOW ALL");
  bool found = false;
  for (const auto& row : all.rows)
    if (row[0] == "shared_buffers") found = row[1] == "1MB";
  EXPECT_TRUE(found);
  // RESET puts back the Database's starting value (--set), for everyone.
  b.execute("RESET shared_buffers");
  EXPECT_EQ(scalar(a, "SHOW shared_buffers"), "2MB");
  EXPECT_EQ(a.storage().pool().shared_buffers(), 256);
  a.execute("SET io_method = sync");
  EXPECT_EQ(scalar(b, "SHOW io_method"), "sync");
  b.execute("RESET ALL");  // database-wide settings included
  EXPECT_EQ(scalar(a, "SHOW io_method"), "worker");
  // A refused value changes nothing for anyone.
  EXPECT_NE(error_of(a, "SET io_workers = 33"), "");
  EXPECT_EQ(scalar(b, "SHOW io_workers"), "3");
}

TEST(TwoSessions, SettingScopesAreDeclaredInTheDefinitions) {
  std::vector<std::string> database_wide;
  for (const SettingDef& d : Settings::definitions())
    if (d.scope == SettingScope::kDatabase) database_wide.push_back(d.name);
  EXPECT_EQ(database_wide, (std::vector<std::string>{"shared_buffers", "io_method", "io_workers",
                                                     "io_direct", "io_max_concurrency"}));
}

TEST(Database, SecondOpenInOneProcessIsRefused) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  const std::string want = "data directory \"" + tmp.data() + "\" is already open in this process";
  for (const std::string& spelling :
       {tmp.data(), tmp.data() + "/.",
        tmp.path() + "/../" + std::filesystem::path(tmp.path()).filename().string() + "/data"}) {
    try {
      open_database(spelling);
      FAIL() << "second open of " << spelling << " succeeded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is already open in this process"), std::string::npos)
          << e.what();
      EXPECT_NE(e.hint().find("Session(std::shared_ptr<Database>)"), std::string::npos);
    }
  }
  try {
    Session own(testing::options_for(tmp.data()));
    FAIL() << "a Session with its own Database opened the directory again";
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), want);
  }
  db.reset();
  auto again = open_database(tmp.data());  // closed: it opens again
  EXPECT_NE(again, nullptr);
}

TEST(Database, OutlivesItsSessionsAndTheirOrder) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  auto a = std::make_unique<Session>(db);
  Session b(db);
  a->execute("CREATE TABLE t (x int)");
  a->execute("SET enable_sort = off");
  a.reset();
  b.execute("INSERT INTO t VALUES (1), (2)");
  EXPECT_EQ(scalar(b, "SELECT count(*) FROM t"), "2");
  db.reset();  // b still holds it
  EXPECT_EQ(scalar(b, "SELECT count(*) FROM t"), "2");
}

TEST(TwoSessions, CancelOfOneLeavesTheOtherRunning) {
  TempDir tmp;
  auto db = open_database(tmp.data());
  Session a(db), b(db);
  a.execute("CREATE TABLE t (x int)");
  // During b's statement, a (idle) is canceled: b commits, and a's next
  // statement runs (a cancel of an idle session does nothing).
  db->data_dir().set_before_commit_hook([&] { a.cancel(); });
  EXPECT_EQ(b.execute("INSERT INTO t VALUES (1)").tag, "INSERT 0 1");
  db->data_dir().set_before_commit_hook({});
  EXPECT_EQ(a.execute("INSERT INTO t VALUES (2)").tag, "INSERT 0 1");
  // b cancels its own running statement: it fails, a goes on.
  db->data_dir().set_before_commit_hook([&] { b.cancel(); });
  EXPECT_EQ(error_of(b, "INSERT INTO t VALUES (3)"), "canceling statement due to user request");
  db->data_dir().set_before_commit_hook({});
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t"), "2");
  EXPECT_EQ(scalar(b, "SELECT count(*) FROM t"), "2");
  EXPECT_FALSE(cancel_requested().load());  // the process-wide (Ctrl-C) flag was not used
}

}  // namespace
}  // namespace tp
