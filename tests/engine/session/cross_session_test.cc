// One session watching another's running statement, each on its own thread:
// pg_aios shows the other's reads in flight, pg_stat_activity its I/O waits,
// pg_buffercache its buffers being read (and stays whole across a resize),
// pg_cancel_backend stops it, and pg_stat_io counts the I/O of every thread
// (sessions' threads that have ended, parallel workers). The watcher's
// statements take no table lock (watch mode), or they would wait for the
// watched statement to end. Reads are slowed with aio's transfer delay so they
// last long enough to be seen; every wait for something to show up gives up
// after a few seconds. Runs under ThreadSanitizer too (the "concurrency" label).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "aio/faults.h"
#include "engine/session/database.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using namespace std::chrono_literals;
using testing::scalar;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

constexpr auto kGiveUpAfter = 10s;

std::shared_ptr<Database> open_db(const TempDir& tmp) {
  return Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {"io_method=worker"}});
}

// A table of about 900 pages (fillfactor 10), returned cold; its reads are slowed
// by `delay` each while the guard lives.
class SlowTable {
 public:
  SlowTable(Session& s, std::chrono::microseconds delay) {
    s.execute("CREATE TABLE big (a int, b int) WITH (fillfactor = 10)");
    s.execute("INSERT INTO big SELECT i, i FROM generate_series(1, 20000) s(i)");
    relnumber_ = s.catalog().find("big")->relnumber;
    s.storage().evict_all();
    aio::set_transfer_delay(relnumber_, delay);
  }
  ~SlowTable() { aio::set_transfer_delay(relnumber_, 0us); }
  SlowTable(const SlowTable&) = delete;
  SlowTable& operator=(const SlowTable&) = delete;

 private:
  uint32_t relnumber_ = 0;
};

// Runs cold scans of `big` in `a` on a thread until `stop` is set or time runs out.
class ScanLoop {
 public:
  ScanLoop(Database& db, Session& a, std::atomic<bool>& stop) {
    thread_ = std::thread([&db, &a, &stop, this] {
      try {
        auto deadline = Clock::now() + kGiveUpAfter;
        while (!stop.load() && Clock::now() < deadline) {
          db.storage().evict_all();
          std::string n = a.execute("SELECT count(*) FROM big").rows.at(0).at(0);
          if (n != "20000") error_ = "count(*) gave " + n;
          ++scans_;
        }
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~ScanLoop() {
    if (thread_.joinable()) thread_.join();
  }
  // Waits for the thread; returns its error ("" if none).
  std::string join() {
    thread_.join();
    return error_;
  }
  bool running() const { return thread_.joinable(); }
  int scans() const { return scans_.load(); }

 private:
  std::thread thread_;
  std::string error_;
  std::atomic<int> scans_{0};
};

// Runs `query` in session b until it returns a row (or kGiveUpAfter passes)
// while a's thread scans big cold again and again; returns that row (empty
// if none came).
std::vector<std::string> first_row_during_cold_scans(Database& db, Session& a, Session& b,
                                                     const std::string& query) {
  std::atomic<bool> stop{false};
  std::vector<std::string> seen;
  ScanLoop scan(db, a, stop);
  auto deadline = Clock::now() + kGiveUpAfter;
  while (seen.empty() && Clock::now() < deadline) {
    ResultSet r = b.execute(query);
    if (!r.rows.empty()) seen = r.rows[0];
    std::this_thread::sleep_for(1ms);
  }
  stop = true;
  EXPECT_EQ(scan.join(), "");
  return seen;
}

TEST(CrossSession, PgAiosShowsAnotherSessionsReadsInFlight) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  SlowTable big(a, 10ms);
  std::vector<std::string> seen = first_row_during_cold_scans(
      *db, a, b, "SELECT relation, operation, state, blocks FROM pg_aios WHERE relation = 'big'");
  ASSERT_FALSE(seen.empty()) << "pg_aios never showed the other session's reads";
  EXPECT_EQ(seen[0], "big");
  EXPECT_EQ(seen[1], "read");
  EXPECT_GE(std::stoi(seen[3]), 1);
}

// pg_buffercache reads every buffer header while the other session's reads
// fill them: some row shows a read in flight, held by the read's own pin.
TEST(CrossSession, PgBuffercacheShowsAnotherSessionsReadsInProgress) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  SlowTable big(a, 10ms);
  std::vector<std::string> seen = first_row_during_cold_scans(
      *db, a, b,
      "SELECT relation, relblocknumber, isdirty, pinning_backends FROM pg_buffercache "
      "WHERE io_in_progress");
  ASSERT_FALSE(seen.empty()) << "pg_buffercache never showed a read in progress";
  EXPECT_EQ(seen[0], "big");
  EXPECT_EQ(seen[2], "f");
  EXPECT_GE(std::stoi(seen[3]), 1);
}

// One session resizes the pool while another reads pg_buffercache: each read
// sees the whole pool before or after the resize, never a pool half swapped.
TEST(CrossSession, PgBuffercacheWhileAnotherSessionResizesThePool) {
  TempDir tmp;
  auto db =
      Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {"shared_buffers=1MB"}});
  Session a(db), b(db);
  std::atomic<bool> done{false};
  std::string a_error;
  std::thread resizer([&] {
    try {
      for (int round = 0; round < 8; ++round)
        a.execute(round % 2 == 0 ? "SET shared_buffers = '2MB'" : "SET shared_buffers = '1MB'");
    } catch (const std::exception& e) {
      a_error = e.what();
    }
    done = true;
  });
  int reads = 0;
  while (!done.load() || reads == 0) {
    size_t n = b.execute("SELECT bufferid FROM pg_buffercache").rows.size();
    EXPECT_TRUE(n == 128 || n == 256) << n;
    ++reads;
  }
  resizer.join();
  EXPECT_EQ(a_error, "");
  EXPECT_EQ(b.execute("SELECT * FROM pg_buffercache").rows.size(), 128u);
}

TEST(CrossSession, PgStatActivityShowsAnotherSessionsIoWaits) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  SlowTable big(a, 10ms);
  const std::string query =
      "SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE pid = " +
      std::to_string(a.activity().pid);
  std::atomic<bool> stop{false};
  int samples = 0, io_samples = 0;
  std::vector<std::string> io_row;
  {
    ScanLoop scan(*db, a, stop);
    auto deadline = Clock::now() + kGiveUpAfter;
    // A may be caught between waits (or between scans): sample until one shows IO.
    while (io_samples == 0 && Clock::now() < deadline) {
      ResultSet r = b.execute(query);
      ASSERT_EQ(r.rows.size(), 1u);
      ++samples;
      if (r.rows[0][1] == "IO") {
        ++io_samples;
        io_row = r.rows[0];
      }
      std::this_thread::sleep_for(1ms);
    }
    stop = true;
    EXPECT_EQ(scan.join(), "");
  }
  ASSERT_EQ(io_samples, 1) << "no IO wait in " << samples << " samples";
  EXPECT_EQ(io_row[0], "active");
  EXPECT_TRUE(io_row[2] == "DataFileRead" || io_row[2] == "AioIoCompletion") << io_row[2];
  EXPECT_EQ(io_row[3], "SELECT count(*) FROM big");
  // Once the statement is over, the wait is gone.
  ResultSet after = b.execute(query);
  EXPECT_EQ(after.rows.at(0)[0], "idle");
  EXPECT_EQ(after.rows.at(0)[1], "");
}

TEST(CrossSession, CancelByPidFromAnotherSession) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  std::string a_error, a_sqlstate;
  {
    SlowTable big(a, 20ms);  // ~60 reads over 3 workers: about half a second a scan
    std::thread runner([&] {
      try {
        a.execute("SELECT count(*) FROM big");
      } catch (const Error& e) {
        a_error = e.what();
        a_sqlstate = e.sqlstate();
      }
    });
    const std::string pid = std::to_string(a.activity().pid);
    auto deadline = Clock::now() + kGiveUpAfter;
    bool active = false;
    while (!active && Clock::now() < deadline) {
      active = scalar(b, "SELECT state FROM pg_stat_activity WHERE pid = " + pid) == "active";
      if (!active) std::this_thread::sleep_for(1ms);
    }
    ResultSet r = b.execute("SELECT pg_cancel_backend(" + pid + ")");
    runner.join();
    ASSERT_TRUE(active) << "the other session's statement never showed as active";
    EXPECT_EQ(r.rows.at(0).at(0), "t");
    EXPECT_TRUE(r.notices.empty());
  }
  EXPECT_EQ(a_error, "canceling statement due to user request");
  EXPECT_EQ(a_sqlstate, "57014");
  // The canceled session goes on.
  EXPECT_EQ(scalar(a, "SELECT count(*) FROM big"), "20000");
  EXPECT_EQ(scalar(b, "SELECT state FROM pg_stat_activity WHERE pid = " +
                          std::to_string(a.activity().pid)),
            "idle");
}

TEST(CrossSession, PgStatIoCountsEveryThreadsReads) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session setup(db);
  setup.execute("CREATE TABLE t (a int, b int)");
  setup.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i)");
  setup.execute("CREATE TABLE p (a bigint, b int) WITH (fillfactor = 50)");
  setup.execute("INSERT INTO p SELECT i, i % 7 FROM generate_series(1, 30000) s(i)");
  setup.execute("ALTER TABLE p SET (parallel_workers = 3)");
  const uint64_t pages = setup.catalog().find("t")->pages + setup.catalog().find("p")->pages;
  setup.storage().evict_all();
  setup.execute("SELECT pg_stat_reset_shared('io')");

  // Two sessions on two threads that end before the counters are read; the
  // second's scan runs in parallel workers.
  std::string t_count, p_plan, p_count;
  std::thread serial([&] {
    Session s(db);
    t_count = scalar(s, "SELECT count(*) FROM t");
  });
  std::thread parallel([&] {
    Session s(db);
    s.execute("SET max_parallel_workers_per_gather = 3");
    s.execute("SET parallel_setup_cost = 0");
    s.execute("SET parallel_tuple_cost = 0");
    for (const auto& row : s.execute("EXPLAIN SELECT count(*) FROM p").rows) p_plan += row[0];
    p_count = scalar(s, "SELECT count(*) FROM p");
  });
  serial.join();
  parallel.join();
  EXPECT_EQ(t_count, "20000");
  EXPECT_EQ(p_count, "30000");
  EXPECT_NE(p_plan.find("Gather"), std::string::npos) << p_plan;

  ResultSet io = setup.execute("SELECT method, read_blocks, reads FROM pg_stat_io");
  uint64_t read_blocks = 0;
  for (const auto& row : io.rows) {
    EXPECT_EQ(row[0], "worker");
    read_blocks += std::stoull(row[1]);
  }
  EXPECT_GE(read_blocks, pages);
}

}  // namespace
}  // namespace tp
