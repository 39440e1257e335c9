// Two threads, each with its own Session over one Database, run statements at
// the same time: the statement lock puts them one after the other, and every
// row each thread inserted is there at the end. Runs under ThreadSanitizer too
// (the "concurrency" label).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <string>
#include <thread>

#include "engine/session/database.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

constexpr int kRounds = 40;
constexpr int kRowsPerInsert = 25;

// Inserts into `own` and reads both tables; returns the first failure seen.
// With `resize_pool`, every tenth round also changes shared_buffers, which
// rebuilds the pool the other thread's session reads through.
std::string client(const std::shared_ptr<Database>& db, const std::string& own,
                   const std::string& other, bool resize_pool) {
  try {
    Session s(db);
    for (int round = 1; round <= kRounds; ++round) {
      if (resize_pool && round % 10 == 0)
        s.execute(round % 20 == 0 ? "SET shared_buffers = '1MB'" : "SET shared_buffers = '2MB'");
      s.execute("INSERT INTO " + own + " SELECT i, " + std::to_string(round) +
                " FROM generate_series(1, " + std::to_string(kRowsPerInsert) + ") s(i)");
      std::string mine = scalar(s, "SELECT count(*) FROM " + own);
      if (mine != std::to_string(round * kRowsPerInsert))
        return own + " holds " + mine + " rows after round " + std::to_string(round);
      int64_t theirs = std::stoll(scalar(s, "SELECT count(*) FROM " + other));
      if (theirs < 0 || theirs > kRounds * kRowsPerInsert || theirs % kRowsPerInsert != 0)
        return other + " holds " + std::to_string(theirs) + " rows (a statement seen halfway)";
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void run_two_clients(const std::vector<std::string>& settings, bool resize_pool = false) {
  TempDir tmp;
  auto db = Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = settings});
  {
    Session setup(db);
    setup.execute("CREATE TABLE a (k int, round int)");
    setup.execute("CREATE TABLE b (k int, round int)");
    setup.execute("CREATE INDEX b_k ON b (k)");  // b's inserts maintain an index too
  }
  std::string error_a, error_b;
  std::thread ta([&] { error_a = client(db, "a", "b", resize_pool); });
  std::thread tb([&] { error_b = client(db, "b", "a", false); });
  ta.join();
  tb.join();
  EXPECT_EQ(error_a, "");
  EXPECT_EQ(error_b, "");
  Session check(db);
  const std::string all = std::to_string(kRounds * kRowsPerInsert);
  EXPECT_EQ(scalar(check, "SELECT count(*) FROM a"), all);
  EXPECT_EQ(scalar(check, "SELECT count(*) FROM b"), all);
  EXPECT_EQ(scalar(check, "SELECT sum(round) FROM b WHERE k = 7"),
            std::to_string(kRounds * (kRounds + 1) / 2));
  EXPECT_EQ(check.catalog().find("a")->rows, uint64_t(kRounds * kRowsPerInsert));
}

TEST(DatabaseConcurrency, TwoThreadsTwoSessionsKeepEveryRow) {
  run_two_clients({});
}

TEST(DatabaseConcurrency, TwoThreadsWithSyncIo) {
  run_two_clients({"io_method=sync", "shared_buffers=1MB"});
}

// SET shared_buffers in one session rebuilds the pool that the other thread's
// session uses between its statements.
TEST(DatabaseConcurrency, PoolResizedByOneSessionWhileTheOtherRuns) {
  run_two_clients({"shared_buffers=1MB"}, true);
}

// Session::cancel() from another thread, while the statement runs: the hook
// holds the statement at its commit until the other thread has canceled it.
TEST(DatabaseConcurrency, CancelFromAnotherThreadStopsThatSessionsStatement) {
  TempDir tmp;
  auto db = Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {}});
  Session a(db), b(db);
  a.execute("CREATE TABLE t (x int)");
  std::latch in_statement(1), canceled(1);
  db->data_dir().set_before_commit_hook([&] {
    in_statement.count_down();
    canceled.wait();
  });
  std::string a_error;
  std::thread runner([&] { a_error = error_of(a, "INSERT INTO t VALUES (1)"); });
  in_statement.wait();
  a.cancel();
  canceled.count_down();
  runner.join();
  db->data_dir().set_before_commit_hook({});
  EXPECT_EQ(a_error, "canceling statement due to user request");
  EXPECT_EQ(b.execute("INSERT INTO t VALUES (2)").tag, "INSERT 0 1");
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM t"), "1");
}

// A table whose aggregate always runs as Finalize Aggregate -> Gather (3 workers).
void make_parallel_table(Session& s) {
  s.execute("CREATE TABLE p (a bigint, b int) WITH (fillfactor=50)");
  s.execute("INSERT INTO p SELECT i, i % 7 FROM generate_series(1, 30000) s(i)");
  s.execute("ALTER TABLE p SET (parallel_workers = 3)");
}

void force_parallel(Session& s) {
  s.execute("SET max_parallel_workers_per_gather = 3");
  s.execute("SET parallel_setup_cost = 0");
  s.execute("SET parallel_tuple_cost = 0");
}

// One session's parallel queries (workers pinning pages of the shared pool) while
// another session rebuilds the pool and moves it to another I/O method: the statement
// lock keeps the rebuild out of the parallel statement, whose workers have all ended
// (pins released) before it gives the lock up.
TEST(DatabaseConcurrency, ParallelQueriesWhileAnotherSessionResizesThePool) {
  TempDir tmp;
  auto db = Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {}});
  Session a(db), b(db);
  make_parallel_table(a);
  force_parallel(a);
  ASSERT_NE(scalar(a, "EXPLAIN SELECT sum(a), count(*) FROM p").find("Finalize Aggregate"),
            std::string::npos);
  std::string a_error;
  std::thread parallel([&] {
    for (int round = 0; round < 12 && a_error.empty(); ++round) {
      std::string got = error_of(a, "SELECT sum(a), count(*), max(a) FROM p");
      if (!got.empty()) a_error = got;
      auto r = a.execute("SELECT sum(a), count(*), max(a) FROM p");
      if (r.rows.at(0) != std::vector<std::string>{"450015000", "30000", "30000"})
        a_error = "round " + std::to_string(round) + ": " + r.rows[0][0];
    }
  });
  const char* changes[] = {"SET shared_buffers = '2MB'", "SET io_method = sync",
                           "SET shared_buffers = '4MB'", "SET io_method = worker"};
  for (int i = 0; i < 8; ++i) b.execute(changes[i % 4]);
  parallel.join();
  EXPECT_EQ(a_error, "");
  EXPECT_EQ(db->storage().pool().pins_held(), 0u);
}

// Session::cancel() from another thread reaches the workers of a parallel statement:
// the statement fails with the cancel error and the session runs the next one.
TEST(DatabaseConcurrency, CancelStopsAParallelStatement) {
  TempDir tmp;
  auto db = Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {}});
  Session a(db);
  make_parallel_table(a);
  force_parallel(a);
  std::atomic<bool> canceled{false};
  std::thread runner([&] {
    // Bounded: each statement is short, so the cancel may land between two of them.
    for (int i = 0; i < 2000 && !canceled; ++i)
      if (error_of(a, "SELECT sum(a), count(*) FROM p") ==
          "canceling statement due to user request")
        canceled = true;
  });
  for (int i = 0; i < 20000 && !canceled; ++i) {
    a.cancel();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  runner.join();
  EXPECT_TRUE(canceled.load());
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM p"), "30000");
  EXPECT_EQ(db->storage().pool().pins_held(), 0u);
}

}  // namespace
}  // namespace tp
