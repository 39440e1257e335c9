// tidepool_session_memory: what each session holds that grows with its
// client's demands. A long statement counts its text and parse tree while it
// runs, a Sort its rows, a DISTINCT aggregate its values; all of it goes when
// the statement ends, and the peak stays. pg_stat_activity keeps PostgreSQL's
// first 1,023 bytes of a statement, so watching a session holds no copy of a
// long one. ORDER BY random() over a series is bounded as a Sort is.
#include <gtest/gtest.h>

#include <string>

#include "engine/session/database.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::shared_ptr<Database> open_db(const TempDir& tmp) {
  return Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = {}});
}

int64_t memory_of(Session& watcher, Session& s, const std::string& column) {
  return std::stoll(scalar(watcher, "SELECT " + column +
                                        " FROM tidepool_session_memory WHERE pid = " +
                                        std::to_string(s.activity().pid)));
}

TEST(SessionMemoryView, OneRowPerSessionWithItsParts) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  ResultSet r = a.execute("SELECT * FROM tidepool_session_memory ORDER BY pid");
  ASSERT_EQ(r.columns,
            (std::vector<std::string>{"pid", "state", "messages_bytes", "statement_bytes",
                                      "executor_bytes", "total_bytes", "peak_bytes"}));
  EXPECT_EQ(r.column_types[0], ValueType::kInt4);
  EXPECT_EQ(r.column_types[6], ValueType::kInt8);
  ASSERT_EQ(r.rows.size(), 2u);
  for (const auto& row : r.rows) {
    const bool self = row[0] == std::to_string(a.activity().pid);
    EXPECT_EQ(row[1], self ? "active" : "idle");
    EXPECT_EQ(row[2], "0");  // no server: no protocol messages
    EXPECT_EQ(row[4], "0");
    // The running statement is counted while it runs; b has run nothing.
    if (self) {
      EXPECT_GE(std::stoll(row[3]), 50);
      EXPECT_EQ(row[5], row[3]);
    } else {
      EXPECT_EQ(row[3], "0");
      EXPECT_EQ(row[6], "0");
    }
  }
}

TEST(SessionMemoryView, ALongStatementCountsWhileItRunsAndThePeakStays) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session watcher(db), s(db);
  std::string in_list = "SELECT 7 IN (0";
  for (int i = 1; i < 200000; ++i) in_list += "," + std::to_string(i);
  in_list += ")";
  EXPECT_EQ(scalar(s, in_list), "t");
  // Text and 200,000 integers of 8 bytes, gone when the statement ended.
  EXPECT_EQ(memory_of(watcher, s, "statement_bytes"), 0);
  EXPECT_EQ(memory_of(watcher, s, "total_bytes"), 0);
  const int64_t peak = memory_of(watcher, s, "peak_bytes");
  EXPECT_GE(peak, int64_t(in_list.size() + 200000 * 8));
  EXPECT_LT(peak, int64_t(in_list.size() + 200000 * 8) + (1 << 20));

  // A negative item is not a plain integer: each is a node (the minus folds into it).
  Session t(db);
  std::string negatives = "SELECT 7 IN (0";
  for (int i = 1; i < 20000; ++i) negatives += ",-" + std::to_string(i);
  negatives += ")";
  EXPECT_EQ(scalar(t, negatives), "f");
  // At the stated 256 bytes a node: 20,000 nodes and the few around them.
  EXPECT_GE(memory_of(watcher, t, "peak_bytes"), int64_t(20000 * 256));
  EXPECT_LT(memory_of(watcher, t, "peak_bytes"),
            int64_t(20000 * 256 + negatives.size() + 4096 * 256));
}

TEST(SessionMemoryView, ASortAndADistinctAggregateCountTheirRows) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session watcher(db), setup(db);
  setup.execute("CREATE TABLE t (a int, b int)");
  setup.execute("INSERT INTO t SELECT i, i % 1000 FROM generate_series(1, 200000) s(i)");
  Session sorter(db);
  ResultSet r = sorter.execute("SELECT a, b FROM t ORDER BY b, a DESC LIMIT 3");
  ASSERT_EQ(r.rows.size(), 3u);
  // Top-N keeps at most a few thousand rows; a full sort keeps them all.
  Session full(db);
  r = full.execute("SELECT a FROM t ORDER BY b, a DESC");
  ASSERT_EQ(r.rows.size(), 200000u);
  EXPECT_EQ(memory_of(watcher, full, "executor_bytes"), 0);
  EXPECT_GE(memory_of(watcher, full, "peak_bytes"), int64_t(200000) * 2 * 8);
  EXPECT_LT(memory_of(watcher, sorter, "peak_bytes"), int64_t(200000) * 2 * 8 / 4);

  Session distinct(db);
  EXPECT_EQ(scalar(distinct, "SELECT count(DISTINCT a) FROM t"), "200000");
  EXPECT_GE(memory_of(watcher, distinct, "peak_bytes"), int64_t(200000) * 8);
  EXPECT_EQ(memory_of(watcher, distinct, "total_bytes"), 0);
}

TEST(SessionMemoryView, PgStatActivityKeepsTheFirst1023BytesOfAStatement) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session watcher(db), s(db);
  // "é" is two bytes; the 1,023-byte cut would fall inside one.
  std::string text = "SELECT '" + std::string(1014, 'x') + "é" + std::string(2000, 'y') + "'";
  s.execute(text);
  const std::string shown = scalar(watcher, "SELECT query FROM pg_stat_activity WHERE pid = " +
                                                std::to_string(s.activity().pid));
  EXPECT_EQ(shown, text.substr(0, 1022));
  s.execute("SELECT 1");
  EXPECT_EQ(scalar(watcher, "SELECT query FROM pg_stat_activity WHERE pid = " +
                                std::to_string(s.activity().pid)),
            "SELECT 1");
}

TEST(SessionMemoryView, ShufflingASeriesIsBoundedAsASortIs) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session s(db);
  EXPECT_EQ(error_of(s, "SELECT * FROM generate_series(1, 600000000) ORDER BY random()"),
            "sort of 600000000 rows needs more than 2048 MB, the in-memory sort limit");
  // Below the bound it still works, and its positions count while they are held.
  ResultSet r = s.execute("SELECT * FROM generate_series(1, 100000) ORDER BY random() LIMIT 2");
  EXPECT_EQ(r.rows.size(), 2u);
  Session watcher(db);
  EXPECT_GE(memory_of(watcher, s, "peak_bytes"), 100000 * 4);
}

}  // namespace
}  // namespace tp
