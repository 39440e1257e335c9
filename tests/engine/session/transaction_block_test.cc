// BEGIN / COMMIT / ROLLBACK (engine/session/transaction_block.cc): a block of
// reads is accepted, a write in it is refused and nothing is pretended undone,
// an error aborts the block as PostgreSQL's does, SET is undone by ROLLBACK.
#include <gtest/gtest.h>

#include <string>

#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::options_for;
using testing::scalar;
using testing::TempDir;

class TransactionBlock : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE t (k int PRIMARY KEY, v int)");
    s_.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 100) s(i)");
  }
  std::string sqlstate_of(const std::string& sql) {
    try {
      s_.execute(sql);
    } catch (const Error& e) {
      return e.sqlstate();
    }
    return "";
  }
  TempDir tmp_;
  Session s_{options_for(tmp_.data())};
};

TEST_F(TransactionBlock, ReadsRunInABlock) {
  EXPECT_EQ(s_.transaction_status(), 'I');
  EXPECT_EQ(s_.execute("BEGIN").tag, "BEGIN");
  EXPECT_TRUE(s_.in_transaction_block());
  EXPECT_EQ(s_.transaction_status(), 'T');
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100");
  EXPECT_EQ(s_.execute("COMMIT").tag, "COMMIT");
  EXPECT_EQ(s_.transaction_status(), 'I');
  for (const char* begin : {"BEGIN WORK", "START TRANSACTION", "BEGIN TRANSACTION READ ONLY",
                            "BEGIN ISOLATION LEVEL READ COMMITTED, READ WRITE"}) {
    s_.execute(begin);
    EXPECT_TRUE(s_.in_transaction_block()) << begin;
    EXPECT_EQ(s_.execute("END").tag, "COMMIT");
  }
  s_.execute("START TRANSACTION");
  EXPECT_EQ(s_.execute("ABORT").tag, "ROLLBACK");
}

TEST_F(TransactionBlock, AWriteInABlockIsRefusedAndAbortsIt) {
  s_.execute("BEGIN");
  try {
    s_.execute("INSERT INTO t VALUES (101, 0)");
    FAIL() << "INSERT ran inside a block";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "INSERT cannot run inside a transaction block");
    EXPECT_EQ(e.sqlstate(), "25001");
  }
  EXPECT_EQ(s_.transaction_status(), 'E');
  EXPECT_EQ(error_of(s_, "SELECT count(*) FROM t"),
            "current transaction is aborted, commands ignored until end of transaction block");
  EXPECT_EQ(sqlstate_of("SELECT 1"), "25P02");
  EXPECT_EQ(s_.execute("COMMIT").tag, "ROLLBACK");  // a failed block cannot commit
  EXPECT_EQ(s_.transaction_status(), 'I');
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100");  // nothing was written
  for (const char* write :
       {"CREATE TABLE u (a int)", "DROP TABLE t", "TRUNCATE t", "CREATE INDEX ON t (v)",
        "ALTER TABLE t SET (fillfactor = 50)", "ANALYZE t", "SET shared_buffers = '2MB'"}) {
    s_.execute("BEGIN");
    EXPECT_EQ(sqlstate_of(write), "25001") << write;
    s_.execute("ROLLBACK");
  }
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100");
}

TEST_F(TransactionBlock, AnErrorAbortsTheBlockUntilRollback) {
  s_.execute("BEGIN");
  EXPECT_NE(error_of(s_, "SELECT * FROM missing"), "");
  EXPECT_EQ(s_.transaction_status(), 'E');
  EXPECT_NE(error_of(s_, "SELEC 1"), "");  // still aborted, whatever comes
  EXPECT_EQ(s_.execute("ROLLBACK").tag, "ROLLBACK");
  EXPECT_EQ(scalar(s_, "SELECT 1"), "1");
}

TEST_F(TransactionBlock, SetIsUndoneByRollbackAndKeptByCommit) {
  s_.execute("SET random_page_cost = 2");
  s_.execute("BEGIN");
  s_.execute("SET random_page_cost = 7");
  s_.execute("SET random_page_cost = 9");
  s_.execute("SET enable_seqscan = off");
  EXPECT_EQ(scalar(s_, "SHOW random_page_cost"), "9");
  s_.execute("ROLLBACK");
  EXPECT_EQ(scalar(s_, "SHOW random_page_cost"), "2");
  EXPECT_EQ(scalar(s_, "SHOW enable_seqscan"), "on");
  s_.execute("BEGIN");
  s_.execute("SET random_page_cost = 5");
  s_.execute("COMMIT");
  EXPECT_EQ(scalar(s_, "SHOW random_page_cost"), "5");
  // A failed block's SETs go too.
  s_.execute("BEGIN");
  s_.execute("SET work_mem = '1MB'");
  EXPECT_NE(error_of(s_, "SELECT * FROM missing"), "");
  s_.execute("COMMIT");
  EXPECT_EQ(scalar(s_, "SHOW work_mem"), "4MB");
}

TEST_F(TransactionBlock, PostgresWarningsAndRefusals) {
  ResultSet r = s_.execute("COMMIT");
  EXPECT_EQ(r.tag, "COMMIT");
  EXPECT_EQ(r.warnings, std::vector<std::string>{"there is no transaction in progress"});
  EXPECT_EQ(s_.execute("ROLLBACK").warnings.size(), 1u);
  s_.execute("BEGIN");
  EXPECT_EQ(s_.execute("BEGIN").warnings,
            std::vector<std::string>{"there is already a transaction in progress"});
  EXPECT_EQ(s_.transaction_status(), 'T');
  s_.execute("COMMIT");
  EXPECT_EQ(error_of(s_, "BEGIN ISOLATION LEVEL SERIALIZABLE"),
            "tidepool supports only the READ COMMITTED isolation level");
  EXPECT_EQ(sqlstate_of("BEGIN ISOLATION LEVEL REPEATABLE READ"), "0A000");
  EXPECT_FALSE(s_.in_transaction_block());
  s_.execute("BEGIN");
  EXPECT_EQ(sqlstate_of("ROLLBACK TO SAVEPOINT a"), "0A000");
  s_.execute("ROLLBACK");
}

}  // namespace
}  // namespace tp
