// DROP TABLE, DROP INDEX and TRUNCATE: what they leave in the catalog and in
// base/, across a reopen, and their rollback when cancelled.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "engine/core/interrupts.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::set<std::string> base_files(const TempDir& tmp) {
  std::set<std::string> names;
  for (auto& e : std::filesystem::directory_iterator(tmp.data() + "/base"))
    names.insert(e.path().filename().string());
  return names;
}

std::set<std::string> relation_names(const Session& s) {
  std::set<std::string> names;
  for (const RelationEntry& r : s.catalog().relations) names.insert(r.name);
  return names;
}

// The catalog entries are erased one by one: dropping the first index must not
// make the loop skip (or read past) the second one.
TEST(Drop, TableWithTwoIndexesBeforeAnotherRelationSurvivesReopen) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("CREATE INDEX t_a ON t (a)");
    s.execute("CREATE INDEX t_b ON t (b)");
    s.execute("CREATE TABLE keep (a int)");
    s.execute("INSERT INTO keep VALUES (42)");
    s.execute("DROP TABLE t");
    EXPECT_EQ(relation_names(s), (std::set<std::string>{"keep"}));
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(relation_names(s), (std::set<std::string>{"keep"}));
  EXPECT_EQ(scalar(s, "SELECT a FROM keep"), "42");
  EXPECT_EQ(base_files(tmp),
            (std::set<std::string>{std::to_string(s.catalog().find("keep")->relnumber)}));
  EXPECT_EQ(error_of(s, "SELECT * FROM t_b"), "relation \"t_b\" does not exist");
}

TEST(Drop, SeveralTablesWithIndexesInOneStatement) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  for (const char* t : {"t1", "t2", "t3"}) {
    s.execute(std::string("CREATE TABLE ") + t + " (a int, b int, c int)");
    for (const char* c : {"a", "b", "c"})
      s.execute(std::string("CREATE INDEX ON ") + t + " (" + c + ")");
  }
  s.execute("DROP TABLE t1, t3");
  EXPECT_EQ(relation_names(s), (std::set<std::string>{"t2", "t2_a_idx", "t2_b_idx", "t2_c_idx"}));
  EXPECT_EQ(base_files(tmp).size(), 4u);
}

// A cancel that arrives before the commit rolls the statement back: nothing is
// dropped or truncated. The hook stands in for Ctrl-C arriving mid-statement
// (Session::execute clears a cancel that came before the statement).
class CancelAtCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("CREATE TABLE t (a int, b int)");
    s_->execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    s_->execute("CREATE INDEX t_a ON t (a)");
    files_before_ = base_files(tmp_);
    s_->data_dir().set_before_commit_hook([] { cancel_requested().store(true); });
  }
  void TearDown() override { s_->data_dir().set_before_commit_hook({}); }

  void expect_unchanged() {
    s_->data_dir().set_before_commit_hook({});
    EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t"), "1000");
    EXPECT_EQ(scalar(*s_, "SELECT tp_verify('t_a')").rfind("index \"t_a\" is valid", 0), 0u);
    EXPECT_EQ(base_files(tmp_), files_before_);
    EXPECT_FALSE(cancel_requested().load());
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
  std::set<std::string> files_before_;
};

TEST_F(CancelAtCommit, DropTableIsRolledBack) {
  EXPECT_EQ(error_of(*s_, "DROP TABLE t"), "canceling statement due to user request");
  expect_unchanged();
}

TEST_F(CancelAtCommit, DropIndexIsRolledBack) {
  EXPECT_EQ(error_of(*s_, "DROP INDEX t_a"), "canceling statement due to user request");
  expect_unchanged();
}

TEST_F(CancelAtCommit, TruncateIsRolledBack) {
  EXPECT_EQ(error_of(*s_, "TRUNCATE t"), "canceling statement due to user request");
  expect_unchanged();
}

}  // namespace
}  // namespace tp
