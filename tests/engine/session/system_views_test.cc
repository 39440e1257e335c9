// The system views as one thread sees them: pg_stat_activity's rows for the
// sessions of a Database, pg_buffercache's row per buffer, column lists, WHERE,
// ORDER BY and LIMIT over a view, column types, and pg_cancel_backend /
// pg_terminate_backend on idle and unknown pids. (Sessions watching each other's
// running statements: cross_session_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "engine/session/database.h"
#include "engine/session/session.h"
#include "engine/session/system_views.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

// "2026-12-01 11:22:33[.ffffff]+00"
bool looks_like_timestamptz(const std::string& t) {
  const std::string shape = "dddd-dd-dd dd:dd:dd";
  if (t.size() < shape.size() + 3 || t.substr(t.size() - 3) != "+00") return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(t[i])) : t[i] != shape[i])
      return false;
  std::string frac = t.substr(shape.size(), t.size() - 3 - shape.size());
  if (frac.empty()) return true;
  if (frac[0] != '.' || frac.size() < 2 || frac.size() > 7) return false;
  return frac.find_first_not_of("0123456789", 1) == std::string::npos;
}

std::shared_ptr<Database> open_db(const TempDir& tmp, std::vector<std::string> settings = {}) {
  return Database::open(DatabaseOptions{.data_dir = tmp.data(), .settings = std::move(settings)});
}

TEST(SystemViews, TimestamptzAsPostgresPrintsIt) {
  using namespace std::chrono;
  sys_days day = year(2026) / 12 / 1;
  auto t = system_clock::time_point(day) + hours(11) + minutes(22) + seconds(33);
  EXPECT_EQ(timestamptz_text(t + microseconds(123456)), "2026-12-01 11:22:33.123456+00");
  EXPECT_EQ(timestamptz_text(t + microseconds(120000)), "2026-12-01 11:22:33.12+00");
  EXPECT_EQ(timestamptz_text(t), "2026-12-01 11:22:33+00");
}

TEST(SystemViews, PgStatActivityListsEverySession) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  b.execute("SELECT 1");
  db->sessions().set_client(b.activity(), "psql", "127.0.0.1");
  ResultSet r = a.execute("SELECT * FROM pg_stat_activity ORDER BY pid");
  ASSERT_EQ(r.columns, (std::vector<std::string>{"pid", "application_name", "client_addr",
                                                 "backend_start", "query_start", "wait_event_type",
                                                 "wait_event", "state", "query", "backend_type"}));
  EXPECT_EQ(r.column_types[0], ValueType::kInt4);
  EXPECT_EQ(r.column_types[8], ValueType::kText);
  ASSERT_EQ(r.rows.size(), 2u);
  for (const auto& row : r.rows) {
    EXPECT_TRUE(looks_like_timestamptz(row[3])) << row[3];
    EXPECT_TRUE(looks_like_timestamptz(row[4])) << row[4];
    EXPECT_EQ(row[9], "client backend");
    EXPECT_EQ(row[5], "");  // no wait: NULL
    if (row[0] == std::to_string(a.activity().pid)) {
      EXPECT_EQ(row[7], "active");  // its own statement, as PostgreSQL shows it
      EXPECT_EQ(row[8], "SELECT * FROM pg_stat_activity ORDER BY pid");
    } else {
      EXPECT_EQ(row[0], std::to_string(b.activity().pid));
      EXPECT_EQ(row[1], "psql");
      EXPECT_EQ(row[2], "127.0.0.1");
      EXPECT_EQ(row[7], "idle");
      EXPECT_EQ(row[8], "SELECT 1");  // the last statement
    }
  }
  EXPECT_EQ(scalar(a, "SELECT pg_backend_pid()"), std::to_string(a.activity().pid));
}

TEST(SystemViews, ColumnListsWhereOrderByAndLimit) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db), c(db);
  ResultSet r = a.execute(
      "SELECT pid, state, wait_event_type, wait_event, query FROM pg_stat_activity "
      "WHERE pid = pg_backend_pid()");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.columns,
            (std::vector<std::string>{"pid", "state", "wait_event_type", "wait_event", "query"}));
  EXPECT_EQ(r.column_types,
            (std::vector<ValueType>{ValueType::kInt4, ValueType::kText, ValueType::kText,
                                    ValueType::kText, ValueType::kText}));
  EXPECT_EQ(r.rows[0][0], std::to_string(a.activity().pid));
  EXPECT_EQ(r.rows[0][1], "active");

  std::vector<int> pids = {a.activity().pid, b.activity().pid, c.activity().pid};
  std::sort(pids.begin(), pids.end());
  r = a.execute("SELECT pid AS p, pid + 1 FROM pg_stat_activity ORDER BY p DESC LIMIT 2");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.columns, (std::vector<std::string>{"p", "?column?"}));
  EXPECT_EQ(r.rows[0][0], std::to_string(pids[2]));
  EXPECT_EQ(r.rows[1][0], std::to_string(pids[1]));
  EXPECT_EQ(r.rows[0][1], std::to_string(pids[2] + 1));
  EXPECT_EQ(r.column_types[1], ValueType::kInt4);
  r = a.execute("SELECT state, pid FROM pg_stat_activity ORDER BY 1, 2");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0][0], "active");
  EXPECT_EQ(r.rows[1][1], std::to_string(std::min(b.activity().pid, c.activity().pid)));
  EXPECT_EQ(r.tag, "SELECT 3");
  EXPECT_EQ(a.execute("SELECT * FROM pg_stat_activity WHERE state = 'nothing'").tag, "SELECT 0");

  EXPECT_EQ(error_of(a, "SELECT nope FROM pg_stat_activity"), "column \"nope\" does not exist");
  EXPECT_EQ(error_of(a, "SELECT count(*) FROM pg_stat_activity"),
            "aggregates over system views are not supported");
  EXPECT_EQ(error_of(a, "SELECT pid FROM pg_stat_activity WHERE pid"),
            "argument of WHERE must be type boolean, not type integer");
  EXPECT_EQ(error_of(a, "EXPLAIN SELECT * FROM pg_buffercache"),
            "EXPLAIN of a system view is not supported");
}

TEST(SystemViews, PgBuffercacheShowsEveryBuffer) {
  TempDir tmp;
  auto db = open_db(tmp, {"shared_buffers=1MB"});
  Session s(db);
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 2000) s(i)");
  s.storage().evict_all();
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "2000");
  const RelationEntry& t = *s.catalog().find("t");
  ASSERT_GE(t.pages, 2u);

  ResultSet all = s.execute("SELECT * FROM pg_buffercache");
  EXPECT_EQ(all.rows.size(), 128u);  // 1 MB of 8 kB buffers
  EXPECT_EQ(all.columns, (std::vector<std::string>{"bufferid", "relfilenode", "relation",
                                                   "relblocknumber", "isdirty", "usagecount",
                                                   "pinning_backends", "io_in_progress"}));
  EXPECT_EQ(all.column_types[0], ValueType::kInt4);
  EXPECT_EQ(all.column_types[4], ValueType::kBool);
  EXPECT_EQ(all.rows[0][0], "1");
  EXPECT_EQ(all.rows[127][0], "128");

  ResultSet mine = s.execute(
      "SELECT relblocknumber, relfilenode, isdirty, pinning_backends, io_in_progress "
      "FROM pg_buffercache WHERE relation = 't' ORDER BY relblocknumber");
  ASSERT_EQ(mine.rows.size(), t.pages);
  for (size_t i = 0; i < mine.rows.size(); ++i) {
    EXPECT_EQ(mine.rows[i][0], std::to_string(i));
    EXPECT_EQ(mine.rows[i][1], std::to_string(t.relnumber));
    EXPECT_EQ(mine.rows[i][2], "f");
    EXPECT_EQ(mine.rows[i][3], "0");  // nobody pins between statements
    EXPECT_EQ(mine.rows[i][4], "f");
  }
  // The buffers that hold nothing show NULLs past their id, as PostgreSQL's do.
  size_t unused = 0;
  for (const auto& row : all.rows) {
    if (!row[1].empty()) continue;
    ++unused;
    EXPECT_EQ(row, (std::vector<std::string>{row[0], "", "", "", "", "", "", ""}));
  }
  EXPECT_GT(unused, 0u);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "2000");

  // pg_stat_io's averages keep their fixed decimals (numeric, as formatted).
  ResultSet io = s.execute("SELECT method, avg_read_kb, wait_time_ms FROM pg_stat_io");
  ASSERT_FALSE(io.rows.empty());
  EXPECT_EQ(io.column_types[1], ValueType::kNumeric);
  for (const auto& row : io.rows) {
    EXPECT_EQ(row[1].find('.'), row[1].size() - 2) << row[1];
    EXPECT_EQ(row[2].find('.'), row[2].size() - 4) << row[2];
  }
}

TEST(SystemViews, CancelAndTerminateByPid) {
  TempDir tmp;
  auto db = open_db(tmp);
  Session a(db), b(db);
  ResultSet r = a.execute("SELECT pg_cancel_backend(123)");
  EXPECT_EQ(r.columns, std::vector<std::string>{"pg_cancel_backend"});
  EXPECT_EQ(r.column_types, std::vector<ValueType>{ValueType::kBool});
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{{"f"}}));
  EXPECT_EQ(r.warnings, std::vector<std::string>{"PID 123 is not a PostgreSQL backend process"});
  // An idle session: signalled (its next statement clears a cancel that found nothing).
  std::string pid = std::to_string(b.activity().pid);
  r = a.execute("SELECT pg_cancel_backend(" + pid + ")");
  EXPECT_EQ(r.rows[0][0], "t");
  EXPECT_TRUE(r.notices.empty());
  EXPECT_EQ(scalar(b, "SELECT 1"), "1");
  EXPECT_FALSE(b.activity().terminate_requested.load());
  EXPECT_EQ(scalar(a, "SELECT pg_terminate_backend(" + pid + ")"), "t");
  EXPECT_TRUE(b.activity().terminate_requested.load());
  r = a.execute("SELECT pg_terminate_backend(0)");
  EXPECT_EQ(r.rows[0][0], "f");
  EXPECT_EQ(r.warnings, std::vector<std::string>{"PID 0 is not a PostgreSQL backend process"});
  EXPECT_EQ(error_of(a, "SELECT pg_cancel_backend('x')"),
            "function pg_cancel_backend(text) does not exist");
  // The usual way to cancel everyone else: a function over the view.
  r = a.execute(
      "SELECT pid, pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
  EXPECT_EQ(r.rows, (std::vector<std::vector<std::string>>{{pid, "t"}}));
}

}  // namespace
}  // namespace tp
