// DROP TABLE, DROP INDEX and TRUNCATE: what they leave in the catalog and in
// base/, across a reopen.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tests/sql/test_util.h"

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

}  // namespace
}  // namespace tp
