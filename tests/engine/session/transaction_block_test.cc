// BEGIN / COMMIT / ROLLBACK (engine/session/transaction_block.cc): a block's writes
// are committed or undone together, its later statements see them and other sessions
// do not; an error aborts the block and undoes them, as PostgreSQL's does; SET is
// undone by ROLLBACK.
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
  std::string sqlstate_of(const std::string& sql) { return sqlstate_of_in(s_, sql); }
  std::string plan_of(const std::string& sql) {
    std::string text;
    for (const auto& row : s_.execute(sql).rows) text += row.at(0) + "\n";
    return text;
  }
  static std::string sqlstate_of_in(Session& s, const std::string& sql) {
    try {
      s.execute(sql);
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

TEST_F(TransactionBlock, WritesInABlockCommitTogether) {
  s_.execute("BEGIN");
  EXPECT_EQ(s_.execute("INSERT INTO t VALUES (101, 0)").tag, "INSERT 0 1");
  s_.execute("CREATE TABLE u (a int NOT NULL, b text)");
  s_.execute("INSERT INTO u SELECT i, 'x' FROM generate_series(1, 5000) s(i)");
  s_.execute("TRUNCATE t");
  s_.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
  s_.execute("CREATE INDEX u_a ON u (a)");
  // The block's statements see its writes.
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "2");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM u WHERE a <= 10"), "10");
  {
    // Another session waits for the block's tables (here, until its lock_timeout).
    Session other(s_.database());
    other.execute("SET lock_timeout = 100");
    EXPECT_EQ(sqlstate_of_in(other, "SELECT count(*) FROM u"), "55P03");
  }
  EXPECT_EQ(s_.execute("COMMIT").tag, "COMMIT");
  Session other(s_.database());
  EXPECT_EQ(scalar(other, "SELECT count(*) FROM t"), "2");
  EXPECT_EQ(scalar(other, "SELECT sum(a) FROM u"), "12502500");
  EXPECT_EQ(scalar(other, "SELECT count(*) FROM u WHERE a BETWEEN 100 AND 199"), "100");
}

TEST_F(TransactionBlock, RollbackAnErrorOrTheSessionsEndUndoesEveryWrite) {
  const std::vector<const char*> writes = {
      "INSERT INTO t SELECT i, i FROM generate_series(101, 3000) s(i)",
      "CREATE TABLE u (a int)",
      "DROP TABLE t",
      "TRUNCATE t",
      "CREATE INDEX ON t (v)",
      "ALTER TABLE t SET (fillfactor = 50)",
      "ANALYZE t"};
  const std::string before = plan_of("EXPLAIN SELECT * FROM t WHERE v = 5");
  for (const char* write : writes) {
    s_.execute("BEGIN");
    s_.execute("INSERT INTO t VALUES (5000, 0)");
    s_.execute(write);
    EXPECT_EQ(s_.execute("ROLLBACK").tag, "ROLLBACK") << write;
    EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100") << write;
    EXPECT_EQ(error_of(s_, "SELECT 1 FROM u"), "relation \"u\" does not exist") << write;
    EXPECT_EQ(plan_of("EXPLAIN SELECT * FROM t WHERE v = 5"), before) << write;
  }
  // An error in any statement undoes the block's earlier writes; COMMIT says ROLLBACK.
  s_.execute("BEGIN");
  s_.execute("TRUNCATE t");
  EXPECT_NE(error_of(s_, "INSERT INTO t VALUES (1, 1), (1, 2)"), "");  // duplicate key
  EXPECT_EQ(s_.transaction_status(), 'E');
  EXPECT_EQ(sqlstate_of("SELECT 1"), "25P02");
  EXPECT_EQ(s_.execute("COMMIT").tag, "ROLLBACK");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100");
  // A READ ONLY block refuses writes, as PostgreSQL's (25006).
  s_.execute("BEGIN READ ONLY");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (5001, 0)"),
            "cannot execute INSERT in a read-only transaction");
  s_.execute("ROLLBACK");
  // VACUUM and a database-wide SET are refused in a block.
  for (const char* refused : {"VACUUM t", "SET shared_buffers = '2MB'"}) {
    s_.execute("BEGIN");
    EXPECT_EQ(sqlstate_of(refused), "25001") << refused;
    s_.execute("ROLLBACK");
  }
  // A session that ends inside its block leaves the data as it was.
  {
    Session gone(s_.database());
    gone.execute("BEGIN");
    gone.execute("TRUNCATE t");
    gone.execute("INSERT INTO t VALUES (7, 7)");
  }
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "100");
  EXPECT_EQ(scalar(s_, "SELECT sum(v) FROM t"), "5050");
}

// The block's locks last until it ends: another session's write to its table waits
// (here, until lock_timeout), and a read of another table does not.
TEST_F(TransactionBlock, ABlocksTablesStayLockedUntilItEnds) {
  s_.execute("CREATE TABLE other (a int)");
  s_.execute("BEGIN");
  s_.execute("INSERT INTO t VALUES (101, 0)");
  Session second(s_.database());
  second.execute("SET lock_timeout = 100");
  EXPECT_EQ(sqlstate_of_in(second, "SELECT count(*) FROM t"), "55P03");
  EXPECT_EQ(scalar(second, "SELECT count(*) FROM other"), "0");
  s_.execute("COMMIT");
  EXPECT_EQ(scalar(second, "SELECT count(*) FROM t"), "101");
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
