// Indexes through SQL: CREATE INDEX, PRIMARY KEY, maintenance on INSERT,
// unique violations, tp_verify, and rollback of index changes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include "engine/btree/btree_page.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::string path_of(Session& s, const std::string& name) {
  return s.data_dir().relation_path(s.catalog().find(name)->relnumber);
}

TEST(Index, MillionRowFillfactor10IndexMatchesPostgresSize) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1_000_000) s(i) ORDER BY random()");
  EXPECT_EQ(s.execute("CREATE INDEX ON t (a)").tag, "CREATE INDEX");
  const RelationEntry* idx = s.catalog().find("t_a_idx");
  ASSERT_NE(idx, nullptr);
  // PostgreSQL 15 builds 2,745 pages for the same data; we must be within 3%.
  EXPECT_NEAR(double(idx->pages), 2745.0, 2745.0 * 0.03);
  EXPECT_EQ(idx->rows, 1000000u);
  EXPECT_EQ(s.index_height(*idx), 2);
  EXPECT_EQ(scalar(s, "SELECT tp_verify('t_a_idx')"),
            "index \"t_a_idx\" is valid: " + std::to_string(idx->pages) +
                " pages, 1000000 entries checked");
}

TEST(Index, FlippedKeyOnDiskIsCaughtWithItsBlock) {
  TempDir tmp;
  std::string path;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i)");
    s.execute("CREATE INDEX t_a ON t (a)");
    path = path_of(s, "t_a");
  }
  // Block 1 is the first leaf; flip a byte inside its item area.
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char byte;
  off_t at = 8192 + 6000;
  ASSERT_EQ(pread(fd, &byte, 1, at), 1);
  byte ^= 0x04;
  ASSERT_EQ(pwrite(fd, &byte, 1, at), 1);
  ::close(fd);
  Session s(testing::options_for(tmp.data()));
  std::string err = error_of(s, "SELECT tp_verify('t_a')");
  EXPECT_NE(err.find("block 1"), std::string::npos) << err;
  EXPECT_NE(err.find("\"t_a\""), std::string::npos) << err;
}

TEST(Index, PrimaryKeyRejectsDuplicateAndKeepsRowCount) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE test (major int PRIMARY KEY, minor int)");
  ASSERT_NE(s.catalog().find("test_pkey"), nullptr);
  EXPECT_TRUE(s.catalog().find("test_pkey")->primary);
  s.execute("INSERT INTO test VALUES (generate_series(0, 9999), random()*1000)");
  s.execute("CREATE INDEX minor_idx ON test (major, minor)");
  try {
    s.execute("INSERT INTO test VALUES (5, 5)");
    FAIL() << "duplicate accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "duplicate key value violates unique constraint \"test_pkey\"");
    EXPECT_EQ(e.detail(), "Key (major)=(5) already exists.");
  }
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM test"), "10000");
  EXPECT_EQ(s.catalog().find("test")->rows, 10000u);
  EXPECT_EQ(s.catalog().find("minor_idx")->rows, 10000u);
  // The failed statement left both indexes intact: every entry matches the heap.
  EXPECT_NE(scalar(s, "SELECT tp_verify('test_pkey')").find("10000 entries"), std::string::npos);
  EXPECT_NE(scalar(s, "SELECT tp_verify('minor_idx')").find("10000 entries"), std::string::npos);
}

TEST(Index, DuplicateLateInABigInsertRollsBackEveryIndex) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE test (major int PRIMARY KEY, minor int)");
  s.execute("INSERT INTO test VALUES (generate_series(1, 5000), 1)");
  auto pages_before = s.catalog().find("test_pkey")->pages;
  // 20,000 new keys split many committed pages before key 2,500 comes again.
  EXPECT_EQ(error_of(s,
                     "INSERT INTO test SELECT i, 2 FROM generate_series(5001, 25000) s(i) "
                     "ORDER BY random()"),
            "");
  EXPECT_EQ(error_of(s, "INSERT INTO test VALUES (generate_series(30000, 60000), 3), (2500, 3)"),
            "duplicate key value violates unique constraint \"test_pkey\"");
  EXPECT_EQ(s.catalog().find("test")->rows, 25000u);
  EXPECT_GT(s.catalog().find("test_pkey")->pages, pages_before);
  EXPECT_NE(scalar(s, "SELECT tp_verify('test_pkey')").find("25000 entries"), std::string::npos);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM test"), "25000");
}

TEST(Index, BulkInsertIntoEmptyUniqueIndexReportsTheDuplicate) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int PRIMARY KEY, b int)");
  try {
    s.execute("INSERT INTO t SELECT i % 700, i FROM generate_series(1, 1000) s(i)");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "duplicate key value violates unique constraint \"t_pkey\"");
    EXPECT_NE(e.detail().find("already exists."), std::string::npos);
  }
  EXPECT_EQ(s.catalog().find("t")->rows, 0u);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "0");
  s.execute("INSERT INTO t VALUES (1, 1)");
  EXPECT_NE(scalar(s, "SELECT tp_verify('t_pkey')").find("1 entries"), std::string::npos);
}

TEST(Index, NamesDropAndErrors) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b bigint)");
  s.execute("CREATE INDEX ON t (a, b)");
  s.execute("CREATE INDEX ON t (a, b)");
  EXPECT_NE(s.catalog().find("t_a_b_idx"), nullptr);
  EXPECT_NE(s.catalog().find("t_a_b_idx1"), nullptr);
  EXPECT_EQ(error_of(s, "CREATE INDEX ON t (c)"), "column \"c\" does not exist");
  EXPECT_EQ(error_of(s, "CREATE INDEX ON nope (a)"), "relation \"nope\" does not exist");
  EXPECT_EQ(error_of(s, "CREATE INDEX t_a_b_idx ON t (a)"),
            "relation \"t_a_b_idx\" already exists");
  std::string file = path_of(s, "t_a_b_idx1");
  EXPECT_EQ(s.execute("DROP INDEX t_a_b_idx1").tag, "DROP INDEX");
  EXPECT_EQ(s.catalog().find("t_a_b_idx1"), nullptr);
  EXPECT_NE(access(file.c_str(), F_OK), 0);
  EXPECT_EQ(error_of(s, "DROP INDEX t"), "\"t\" is not an index");
  EXPECT_EQ(error_of(s, "SELECT tp_verify('t')"), "\"t\" is not an index");
  s.execute("INSERT INTO t VALUES (1, 5000000000)");
  s.execute("TRUNCATE t");
  EXPECT_EQ(s.catalog().find("t_a_b_idx")->rows, 0u);
  s.execute("INSERT INTO t VALUES (2, -5000000000)");
  EXPECT_NE(scalar(s, "SELECT tp_verify('t_a_b_idx')").find("1 entries"), std::string::npos);
  s.execute("DROP TABLE t");
  EXPECT_EQ(s.catalog().find("t_a_b_idx"), nullptr);
}

}  // namespace
}  // namespace tp
