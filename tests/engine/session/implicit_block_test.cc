// PostgreSQL's implicit transaction blocks (engine/session/transaction_block.cc), as the
// server opens them: around a Query string of several statements and around the
// extended protocol's Executes up to a Sync. Each expectation was checked against
// PostgreSQL 15 through psql and psycopg 3's pipeline mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::options_for;
using testing::scalar;
using testing::TempDir;

class ImplicitBlock : public ::testing::Test {
 protected:
  void SetUp() override { s_.execute("CREATE TABLE t (k int PRIMARY KEY, v text)"); }

  // The statements as one Query string (pipeline = false) or one pipeline up to a
  // Sync: run until the first error, whose SQLSTATE is returned ("" for none), then
  // the block's end, as the server does.
  std::string run(const std::vector<std::string>& statements, bool pipeline) {
    std::string failed;
    for (const std::string& sql : statements) {
      if (pipeline || statements.size() > 1) s_.begin_implicit_block(pipeline);
      try {
        last_ = s_.execute(sql);
      } catch (const Error& e) {
        failed = e.sqlstate();
        message_ = e.what();
        break;
      }
    }
    s_.end_implicit_block();
    return failed;
  }
  std::string count() { return scalar(s_, "SELECT count(*) FROM t"); }

  TempDir tmp_;
  Session s_{options_for(tmp_.data())};
  ResultSet last_;
  std::string message_;
};

TEST_F(ImplicitBlock, AnErrorUndoesTheStatementsBeforeIt) {
  for (bool pipeline : {false, true}) {
    EXPECT_EQ(run({"INSERT INTO t VALUES (1, 'a')", "INSERT INTO t VALUES (2, 'b')",
                   "INSERT INTO t VALUES (1, 'dup')"},
                  pipeline),
              "23505");
    EXPECT_EQ(count(), "0") << pipeline;
    EXPECT_EQ(s_.transaction_status(), 'I');
  }
  EXPECT_EQ(
      run({"INSERT INTO t VALUES (1, 'a')", "TRUNCATE t", "INSERT INTO t VALUES (2, 'b')"}, true),
      "");
  EXPECT_EQ(scalar(s_, "SELECT v FROM t"), "b");  // its only row
  EXPECT_EQ(count(), "1");
  // A later statement sees the block's earlier writes.
  EXPECT_EQ(run({"INSERT INTO t VALUES (3, 'c')", "SELECT count(*) FROM t"}, false), "");
  EXPECT_EQ(last_.rows.at(0).at(0), "2");
}

TEST_F(ImplicitBlock, SettingsOfAFailedBlockAreUndone) {
  EXPECT_EQ(run({"SET work_mem = '8MB'", "SELECT 1/0"}, false), "22012");
  EXPECT_EQ(scalar(s_, "SHOW work_mem"), "4MB");
  EXPECT_EQ(run({"SET work_mem = '8MB'", "SELECT 1"}, true), "");
  EXPECT_EQ(scalar(s_, "SHOW work_mem"), "8MB");
}

TEST_F(ImplicitBlock, CommitRollbackAndBeginInsideOne) {
  // COMMIT ends the implicit block with PostgreSQL's warning; what follows is a new one.
  EXPECT_EQ(
      run({"INSERT INTO t VALUES (3, 'c')", "COMMIT", "INSERT INTO t VALUES (3, 'dup')"}, false),
      "23505");
  EXPECT_EQ(count(), "1");
  EXPECT_EQ(run({"INSERT INTO t VALUES (4, 'd')", "ROLLBACK"}, false), "");
  EXPECT_EQ(last_.warnings, std::vector<std::string>{"there is no transaction in progress"});
  EXPECT_EQ(count(), "1");
  // BEGIN makes it the client's block, the statements before it included.
  EXPECT_EQ(run({"INSERT INTO t VALUES (4, 'd')", "BEGIN", "INSERT INTO t VALUES (5, 'e')"}, false),
            "");
  EXPECT_EQ(s_.transaction_status(), 'T');
  EXPECT_EQ(count(), "3");
  s_.execute("ROLLBACK");
  EXPECT_EQ(count(), "1");
}

TEST_F(ImplicitBlock, WhatRefusesBlocks) {
  // In a Query string of several statements, anywhere: PostgreSQL's refusal.
  EXPECT_EQ(run({"VACUUM t", "SELECT 1"}, false), "25001");
  EXPECT_EQ(message_, "VACUUM cannot run inside a transaction block");
  EXPECT_EQ(run({"DISCARD ALL", "SELECT 1"}, false), "25001");
  // First after a Sync it runs on its own; later in the pipeline it is refused, and
  // the block's writes are undone.
  EXPECT_EQ(run({"VACUUM t", "INSERT INTO t VALUES (1, 'a')"}, true), "");
  EXPECT_EQ(count(), "1");
  EXPECT_EQ(run({"INSERT INTO t VALUES (2, 'b')", "VACUUM t"}, true), "25001");
  EXPECT_EQ(message_, "VACUUM cannot be executed within a pipeline");
  EXPECT_EQ(count(), "1");
  EXPECT_EQ(run({"DISCARD ALL"}, true), "");
  EXPECT_EQ(s_.transaction_status(), 'I');
}

}  // namespace
}  // namespace tp
