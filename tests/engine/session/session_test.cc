#include "engine/session/session.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/heap_file_reader.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::read_heap_file;
using testing::scalar;
using testing::TempDir;

const std::vector<Column> kAB = {{"a", ColumnType::kInt4}, {"b", ColumnType::kInt4}};

std::string table_path(Session& s, const std::string& name) {
  return s.data_dir().relation_path(s.catalog().find(name)->relnumber);
}

TEST(Session, MillionRowsAtFillfactor10Make45455Pages) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
  ResultSet r = s.execute(
      "INSERT INTO t SELECT i, i FROM generate_series(1, 1_000_000) s(i) ORDER BY random()");
  EXPECT_EQ(r.tag, "INSERT 0 1000000");
  EXPECT_EQ(scalar(s, "SELECT pg_relation_size('t')"), "372367360");
  auto disk = read_heap_file(table_path(s, "t"), kAB);
  EXPECT_EQ(disk.pages, 45455u);
  EXPECT_TRUE(disk.checksums_ok);
  ASSERT_EQ(disk.rows.size(), 1000000u);
  // 22 rows on every page but the last (1,000,000 = 45,454 * 22 + 12).
  EXPECT_EQ(std::count(disk.rows_per_page.begin(), disk.rows_per_page.end(), 22u), 45454);
  EXPECT_EQ(disk.rows_per_page.back(), 12u);
  // A shuffle: every value once, not in order.
  std::vector<int64_t> a;
  for (auto& row : disk.rows) {
    EXPECT_EQ(row[0], row[1]);
    a.push_back(row[0]);
  }
  EXPECT_FALSE(std::is_sorted(a.begin(), a.end()));
  std::sort(a.begin(), a.end());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], int64_t(i + 1));
}

TEST(Session, MillionRowsAtFillfactor100Make4425Pages) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1_000_000) s(i) ORDER BY random()");
  EXPECT_EQ(scalar(s, "SELECT pg_relation_size('t')"), "36249600");
  EXPECT_EQ(s.catalog().find("t")->pages, 4425u);
  EXPECT_EQ(scalar(s, "SELECT pg_size_pretty(pg_relation_size('t'))"), "35 MB");
}

TEST(Session, ShuffleRepeatsForTheSameSeedOnly) {
  auto load = [](const std::string& dir, const std::string& seed_stmt) {
    Session s(testing::options_for(dir));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute(seed_stmt);
    s.execute(
        "INSERT INTO t SELECT i, (random()*100)::int FROM generate_series(1, 5000) s(i) "
        "ORDER BY random()");
    return read_heap_file(table_path(s, "t"), kAB).rows;
  };
  TempDir tmp;
  auto a = load(tmp.path() + "/a", "SET random_seed = 5");
  auto b = load(tmp.path() + "/b", "SET random_seed = 5");
  auto c = load(tmp.path() + "/c", "SET random_seed = 6");
  auto d = load(tmp.path() + "/d", "SELECT setseed(0.25)");
  auto e = load(tmp.path() + "/e", "SELECT setseed(0.25)");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(d, e);
  EXPECT_NE(a, d);
}

TEST(Session, FractionsRoundAsPostgresCasts) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b bigint)");
  // numeric literals round half away from zero; float8 rounds half to even.
  s.execute("INSERT INTO t VALUES (2.5, 3.5), (-2.5, 2.5::float8), (1.4999, 3.5::float8)");
  auto rows =
      read_heap_file(table_path(s, "t"), {{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}}).rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(rows[1], (std::vector<int64_t>{-3, 2}));
  EXPECT_EQ(rows[2], (std::vector<int64_t>{1, 4}));
}

TEST(Session, ValuesWithGenerateSeriesExpandsRows) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE test (major int, minor int)");
  ResultSet r = s.execute("INSERT INTO test VALUES (generate_series(0, 999), random()*1000)");
  EXPECT_EQ(r.tag, "INSERT 0 1000");
  auto rows = read_heap_file(table_path(s, "test"), kAB).rows;
  ASSERT_EQ(rows.size(), 1000u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0], int64_t(i));
    EXPECT_GE(rows[i][1], 0);
    EXPECT_LE(rows[i][1], 1000);
  }
}

TEST(Session, InsertsContinueOnTheLastPage) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t VALUES (1, 1)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(2, 300) s(i)");
  auto disk = read_heap_file(table_path(s, "t"), kAB);
  EXPECT_EQ(disk.pages, 2u);
  EXPECT_EQ(disk.rows_per_page, (std::vector<uint32_t>{226, 74}));
  EXPECT_EQ(s.catalog().find("t")->rows, 300u);
}

TEST(Session, IntegerOverflowMidLoadLeavesTableAsItWas) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
  auto before = read_heap_file(table_path(s, "t"), kAB);
  // i * 1000 overflows int4 at i = 2,147,484: ~75 MB of pages are written first, and the
  // committed last page was refilled (its before-image must come back).
  EXPECT_EQ(error_of(s, "INSERT INTO t SELECT i, i * 1000 FROM generate_series(1, 3000000) s(i)"),
            "integer out of range");
  auto after = read_heap_file(table_path(s, "t"), kAB);
  EXPECT_EQ(after.pages, before.pages);
  EXPECT_EQ(after.rows, before.rows);
  EXPECT_TRUE(after.checksums_ok);
  EXPECT_EQ(s.catalog().find("t")->rows, 1000u);
  EXPECT_EQ(scalar(s, "SELECT pg_relation_size('t')"), std::to_string(5 * 8192));
}

TEST(Session, SyntaxErrorLeavesTableUnchanged) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t VALUES (1, 2)");
  EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (3, 4"), "syntax error at end of input");
  EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (3, 4, 5)"),
            "INSERT has more expressions than target columns");
  EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (3, 'x')"),
            "invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(s.catalog().find("t")->rows, 1u);
}

TEST(Session, ErrorsReadLikePostgres) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(error_of(s, "INSERT INTO nope VALUES (1)"), "relation \"nope\" does not exist");
  EXPECT_EQ(error_of(s, "SELECT pg_relation_size('nope')"), "relation \"nope\" does not exist");
  s.execute("CREATE TABLE t (a int)");
  EXPECT_EQ(error_of(s, "CREATE TABLE t (a int)"), "relation \"t\" already exists");
  EXPECT_EQ(error_of(s, "CREATE TABLE u (a int, a int)"), "column \"a\" specified more than once");
  EXPECT_EQ(error_of(s, "DROP TABLE nope"), "table \"nope\" does not exist");
  EXPECT_EQ(error_of(s, "SET nope = 1"), "unrecognized configuration parameter \"nope\"");
  EXPECT_EQ(error_of(s, "SELECT 1/0"), "division by zero");
  EXPECT_EQ(error_of(s, "SELECT 2147483647 + 1"), "integer out of range");
  EXPECT_EQ(scalar(s, "SELECT 2147483647::bigint + 1"), "2147483648");
}

TEST(Session, DropAndTruncate) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int)");
  s.execute("INSERT INTO t SELECT i FROM generate_series(1, 1000) s(i)");
  std::string old_file = table_path(s, "t");
  s.execute("TRUNCATE t");
  EXPECT_EQ(s.catalog().find("t")->pages, 0u);
  EXPECT_NE(table_path(s, "t"), old_file);
  EXPECT_NE(access(old_file.c_str(), F_OK), 0);
  std::string file = table_path(s, "t");
  s.execute("DROP TABLE t");
  EXPECT_EQ(s.catalog().find("t"), nullptr);
  EXPECT_NE(access(file.c_str(), F_OK), 0);
  ResultSet r = s.execute("DROP TABLE IF EXISTS t");
  EXPECT_EQ(r.notices, std::vector<std::string>{"table \"t\" does not exist, skipping"});
}

TEST(Session, ScalarSelects) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(scalar(s, "SELECT pg_size_pretty(372367360)"), "355 MB");
  EXPECT_EQ(scalar(s, "SELECT pg_size_pretty(10239)"), "10239 bytes");
  EXPECT_EQ(scalar(s, "SELECT pg_size_pretty(10240)"), "10 kB");
  EXPECT_EQ(scalar(s, "SELECT (7 + 3) * 2 % 6"), "2");
  EXPECT_EQ(scalar(s, "SELECT 7 / 2"), "3");
  ResultSet r = s.execute("SELECT i * 2 FROM generate_series(1, 5) s(i) WHERE i > 2");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0][0], "6");
  EXPECT_EQ(r.columns[0], "?column?");
}

TEST(Session, FlippedByteOnDiskIsReportedWithRelationAndBlock) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    std::string path = table_path(s, "t");
    int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    char byte;
    off_t at = 4 * 8192 + 8000;  // inside a tuple of the last block (4)
    ASSERT_EQ(pread(fd, &byte, 1, at), 1);
    byte ^= 0x01;
    ASSERT_EQ(pwrite(fd, &byte, 1, at), 1);
    ::close(fd);
    EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (1, 1)"),
              "invalid page in block 4 of relation \"t\"");
  }
}

TEST(Session, SettingsFromConfFileAndCommandLine) {
  TempDir tmp;
  { Session s(testing::options_for(tmp.data())); }
  {
    FILE* f = fopen((tmp.data() + "/tidepool.conf").c_str(), "w");
    fputs("# comment\nrandom_seed = 11\n", f);
    fclose(f);
    Session s(testing::options_for(tmp.data()));
    EXPECT_EQ(scalar(s, "SHOW random_seed"), "11");
  }
  SessionOptions o = testing::options_for(tmp.data());
  o.settings = {"random_seed=12"};
  Session s(o);
  EXPECT_EQ(scalar(s, "SHOW random_seed"), "12");
  s.execute("SET random_seed TO 3");
  s.execute("RESET random_seed");
  EXPECT_EQ(scalar(s, "SHOW random_seed"), "12");
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// Issue 3's check, small: count(*) under every io_method, buffered and direct,
// switched with SET inside one session; the pool is rebuilt each time.
TEST(Session, CountUnderEveryIoMethodSwitchedWithSet) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i) ORDER BY random()");
  for (const char* direct : {"off", "on"})
    for (const char* method : {"sync", "worker", "io_uring"}) {
      s.execute(std::string("SET io_direct = ") + direct);
      s.execute(std::string("SET io_method = ") + method);
      EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "20000") << method << " " << direct;
      EXPECT_EQ(testing::scalar(s, "SHOW io_method"), method);
    }
  s.execute("SET shared_buffers = '1MB'");
  EXPECT_EQ(s.storage().pool().shared_buffers(), 128);
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "20000");
  try {
    s.execute("SET io_method = 'bogus'");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value for parameter \"io_method\": \"bogus\"");
    EXPECT_EQ(e.hint(), "Available values: sync, worker, io_uring.");
  }
  EXPECT_EQ(testing::scalar(s, "SHOW io_method"), "io_uring");
  EXPECT_EQ(testing::error_of(s, "SET io_workers = 33"),
            "33 is outside the valid range for parameter \"io_workers\" (1 .. 32)");
  // The counters saw reads of this table's file under the methods used.
  ResultSet io = s.execute("SELECT * FROM pg_stat_io");
  EXPECT_GE(io.rows.size(), 3u);
}

}  // namespace
}  // namespace tp
