// The Database's locks (engine/session/table_locks.h): the lock manager's
// modes and waits on their own, then what sessions see through them: a read
// waits for a write of its table (and only of its table), lock_timeout ends a
// wait with PostgreSQL's error, a failed write leaves other tables' cached
// pages alone. Runs under ThreadSanitizer too (the "concurrency" label).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "engine/core/interrupts.h"
#include "engine/session/database.h"
#include "engine/session/session.h"
#include "engine/session/table_locks.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

const LockObject kT = LockObject::of_table("t");

// Runs `take` on a thread and reports whether it got its lock within `ms`.
bool granted_within(LockManager& m, LockMode mode, int ms) {
  std::atomic<bool> got{false};
  std::thread th([&] {
    try {
      StatementLocks l(m, ms);
      l.take({{kT, mode}});
      got = true;
    } catch (const Error&) {
    }
  });
  th.join();
  return got;
}

TEST(LockManager, SharesTogetherExclusiveAlone) {
  LockManager m;
  StatementLocks a(m, 0);
  a.take({{kT, LockMode::kShare}});
  EXPECT_TRUE(granted_within(m, LockMode::kShare, 50));
  EXPECT_FALSE(granted_within(m, LockMode::kExclusive, 50));
  a.release_all();
  EXPECT_TRUE(granted_within(m, LockMode::kExclusive, 50));
}

TEST(LockManager, LockTimeoutIsPostgresError) {
  LockManager m;
  StatementLocks a(m, 0);
  a.take({{kT, LockMode::kExclusive}});
  try {
    StatementLocks b(m, 30);
    b.take({{kT, LockMode::kShare}});
    FAIL() << "granted under an exclusive lock";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "canceling statement due to lock timeout");
    EXPECT_EQ(e.sqlstate(), "55P03");
    EXPECT_NE(e.detail().find("table t"), std::string::npos) << e.detail();
  }
  // The failed waiter left nothing behind: only a's lock is there.
  auto rows = m.snapshot();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].holders, 1);
  EXPECT_EQ(rows[0].waiting, 0);
}

TEST(LockManager, ShareQueuesBehindAWaitingExclusiveButWatchDoesNot) {
  LockManager m;
  StatementLocks reader(m, 0);
  reader.take({{kT, LockMode::kShare}});
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    StatementLocks w(m, 0);
    w.take({{kT, LockMode::kExclusive}});
    writer_done = true;
  });
  // Wait (bounded) until the writer is queued.
  for (int i = 0; i < 500; ++i) {
    auto rows = m.snapshot();
    bool queued = false;
    for (const auto& r : rows) queued = queued || (r.mode == LockMode::kExclusive && r.waiting);
    if (queued) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_FALSE(granted_within(m, LockMode::kShare, 50));  // behind the writer
  EXPECT_TRUE(granted_within(m, LockMode::kWatch, 50));   // not behind it
  EXPECT_FALSE(writer_done.load());
  reader.release_all();
  writer.join();
  EXPECT_TRUE(writer_done.load());
}

TEST(LockManager, CancelEndsAWaitAndGivesBackEverything) {
  LockManager m;
  StatementLocks holder(m, 0);
  holder.take({{LockObject::of_table("b"), LockMode::kExclusive}});
  std::atomic<bool> cancel{false};
  std::string error;
  std::thread th([&] {
    StatementCancelScope scope(cancel);
    try {
      StatementLocks l(m, 0);
      // "a" is granted, then "b" waits; the cancel must give "a" back too.
      l.take({{LockObject::of_table("a"), LockMode::kExclusive},
              {LockObject::of_table("b"), LockMode::kShare}});
    } catch (const Error& e) {
      error = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  cancel = true;
  th.join();
  EXPECT_EQ(error, "canceling statement due to user request");
  holder.release_all();
  EXPECT_TRUE(m.snapshot().empty());
}

TEST(LockManager, StatementLocksTakesEachObjectOnceInItsStrongestMode) {
  LockManager m;
  StatementLocks l(m, 0);
  l.take({{kT, LockMode::kShare},
          {LockObject::database(), LockMode::kShare},
          {kT, LockMode::kExclusive}});
  EXPECT_TRUE(l.holds(kT, LockMode::kExclusive));
  EXPECT_TRUE(l.holds(LockObject::database(), LockMode::kWatch));
  EXPECT_FALSE(l.holds(LockObject::writer(), LockMode::kExclusive));
  EXPECT_EQ(l.exclusive_tables(), std::vector<std::string>{"t"});
  EXPECT_EQ(m.snapshot().size(), 2u);
}

class SessionLocks : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = Database::open(DatabaseOptions{.data_dir = tmp_.data(), .settings = {}});
    Session s(db_);
    s.execute("CREATE TABLE t (k int PRIMARY KEY, v int)");
    s.execute("CREATE TABLE u (k int, v int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    s.execute("INSERT INTO u SELECT i, i FROM generate_series(1, 1000) s(i)");
  }
  TempDir tmp_;
  std::shared_ptr<Database> db_;
};

TEST_F(SessionLocks, AReadWaitsForAWriteOfItsTableOnly) {
  StatementLocks writer(db_->locks(), 0);  // stands for an INSERT into t that runs long
  writer.take({{LockObject::writer(), LockMode::kExclusive}, {kT, LockMode::kExclusive}});
  Session s(db_);
  s.execute("SET lock_timeout = 100");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM u"), "1000");  // another table: no wait
  try {
    s.execute("SELECT count(*) FROM t");
    FAIL() << "read t under a write of t";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "canceling statement due to lock timeout");
    EXPECT_EQ(e.sqlstate(), "55P03");
  }
  // Writes wait for the writer lock; DROP of t waits for t.
  EXPECT_EQ(error_of(s, "INSERT INTO u VALUES (1, 1)"), "canceling statement due to lock timeout");
  EXPECT_EQ(error_of(s, "DROP TABLE t"), "canceling statement due to lock timeout");
  writer.release_all();
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "1000");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM u"), "1000");  // the timed-out INSERT left nothing
}

TEST_F(SessionLocks, ADatabaseWideSetWaitsForEveryStatement) {
  StatementLocks reader(db_->locks(), 0);  // a SELECT running in another session
  reader.take({{LockObject::database(), LockMode::kShare}, {kT, LockMode::kShare}});
  Session s(db_);
  s.execute("SET lock_timeout = 50");
  EXPECT_EQ(error_of(s, "SET shared_buffers = '2MB'"), "canceling statement due to lock timeout");
  EXPECT_EQ(scalar(s, "SHOW shared_buffers"), "128MB");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "1000");  // a read shares with the reader
  EXPECT_EQ(s.execute("SELECT * FROM pg_stat_io").returns_rows, true);  // a view: watch mode
  reader.release_all();
  s.execute("SET shared_buffers = '2MB'");
  EXPECT_EQ(scalar(s, "SHOW shared_buffers"), "2MB");
}

TEST_F(SessionLocks, AFailedWriteLeavesOtherTablesPagesInThePool) {
  Session reader(db_);
  Session writer(db_);
  scalar(reader, "SELECT count(*) FROM u");  // u cached
  // A unique violation rolls t back; u's cached pages must stay.
  EXPECT_NE(error_of(writer, "INSERT INTO t VALUES (1001, 0), (5, 0)"), "");
  ResultSet r =
      reader.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*) FROM u");
  std::string plan;
  for (const auto& row : r.rows) plan += row[0] + "\n";
  EXPECT_NE(plan.find("Buffers: shared hit="), std::string::npos) << plan;
  EXPECT_EQ(plan.find("read="), std::string::npos) << plan;
  EXPECT_EQ(scalar(reader, "SELECT count(*) FROM t"), "1000");
}

// Readers of t and u, writers of t and u (one of them failing half its
// statements on a unique key), all at once: every count a reader sees is one
// a commit left, and at the end every committed row is there.
TEST_F(SessionLocks, ReadersAndWritersSideBySideSeeOnlyCommittedStates) {
  constexpr int kRounds = 30;
  constexpr int kBatch = 20;
  std::atomic<bool> stop{false};
  std::vector<std::string> failures(4);
  auto writer = [&](int id, const std::string& table, bool collide) {
    try {
      Session s(db_);
      for (int round = 0; round < kRounds; ++round) {
        const int first = 2000 + id * 100000 + round * kBatch;
        const bool fails = collide && round % 2 == 1;  // a key that is there already
        std::string sql =
            fails
                ? "INSERT INTO " + table + " VALUES (" + std::to_string(first) + ", 0), (1, 0)"
                : "INSERT INTO " + table + " SELECT i, 0 FROM generate_series(" +
                      std::to_string(first) + ", " + std::to_string(first + kBatch - 1) + ") s(i)";
        std::string err = error_of(s, sql);
        if (fails ? err.find("duplicate key") == std::string::npos : !err.empty())
          failures[size_t(id)] = "round " + std::to_string(round) + ": '" + err + "'";
      }
    } catch (const std::exception& e) {
      failures[size_t(id)] = e.what();
    }
  };
  auto reader = [&](int id) {
    try {
      Session s(db_);
      while (!stop.load()) {
        for (const char* table : {"t", "u"}) {
          int64_t n = std::stoll(scalar(s, std::string("SELECT count(*) FROM ") + table));
          if ((n - 1000) % kBatch != 0)
            failures[size_t(id)] = std::string(table) + " seen with " + std::to_string(n) + " rows";
        }
      }
    } catch (const std::exception& e) {
      failures[size_t(id)] = e.what();
    }
  };
  std::thread r0(reader, 0);
  std::thread r1(reader, 1);
  std::thread w2(writer, 2, "t", true);
  std::thread w3(writer, 3, "u", false);
  w2.join();
  w3.join();
  stop = true;
  r0.join();
  r1.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  Session s(db_);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), std::to_string(1000 + (kRounds / 2) * kBatch));
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM u"), std::to_string(1000 + kRounds * kBatch));
  EXPECT_EQ(scalar(s, "SELECT tp_verify('t_pkey')").rfind("index \"t_pkey\" is valid", 0), 0u);
}

// DDL churn in one session (tables created, filled, indexed, truncated and
// dropped: files created and removed, pages forgotten, catalogs committed)
// while others read t through its index and watch the views: every read
// exact, no view failing.
TEST_F(SessionLocks, DdlChurnBesideReadsAndViews) {
  std::atomic<bool> stop{false};
  std::vector<std::string> failures(3);
  std::thread churn([&] {
    try {
      Session s(db_);
      for (int round = 0; round < 12; ++round) {
        s.execute("CREATE TABLE x (a int, b int)");
        s.execute("INSERT INTO x SELECT i, i FROM generate_series(1, 500) s(i)");
        s.execute("CREATE INDEX x_a ON x (a)");
        if (round % 3 == 0) s.execute("TRUNCATE x");
        if (round % 3 == 1) s.execute("DROP INDEX x_a");
        if (round % 4 == 0) s.execute("ANALYZE");
        s.execute("DROP TABLE x");
      }
    } catch (const std::exception& e) {
      failures[0] = e.what();
    }
    stop = true;
  });
  std::thread reader([&] {
    try {
      Session s(db_);
      s.execute("SET enable_seqscan = off");
      while (!stop.load()) {
        if (scalar(s, "SELECT sum(v) FROM t WHERE k BETWEEN 100 AND 199") != "14950")
          failures[1] = "wrong sum through the index";
        if (scalar(s, "SELECT count(*) FROM u") != "1000") failures[1] = "wrong count of u";
      }
    } catch (const std::exception& e) {
      failures[1] = e.what();
    }
  });
  std::thread watcher([&] {
    try {
      Session s(db_);
      while (!stop.load()) {
        s.execute("SELECT * FROM pg_aios");
        s.execute("SELECT * FROM pg_stat_io");
      }
    } catch (const std::exception& e) {
      failures[2] = e.what();
    }
  });
  churn.join();
  reader.join();
  watcher.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  Session s(db_);
  EXPECT_EQ(s.catalog().find("x"), nullptr);
}

}  // namespace
}  // namespace tp
