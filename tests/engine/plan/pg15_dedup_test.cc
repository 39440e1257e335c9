// B-tree deduplication end to end against PostgreSQL 15.18: pg15/b1_setup.sql builds
// b1 (indexes deduplicated, the default) and b2 (the same rows, deduplicate_items =
// off); each statement of pg15/b1_explain.sql, index sizes first, must print exactly
// what PostgreSQL printed into pg15/b1_explain.out. The plans' costs follow the index
// sizes, so they agree only when the indexes are PostgreSQL's page for page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/session/session.h"
#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class Pg15Dedup : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"b1_setup.sql"});
    s_ = &tables_->session();
  }
  static void TearDownTestSuite() {
    delete tables_;
    s_ = nullptr;
  }
  static std::vector<std::string> lines(const std::string& sql) { return tables_->lines(sql); }

  static testing::FixtureTables* tables_;
  static Session* s_;
};
testing::FixtureTables* Pg15Dedup::tables_ = nullptr;
Session* Pg15Dedup::s_ = nullptr;

// psql right-aligns a number under its header; the padding is not part of the value.
std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  return s;
}

TEST_F(Pg15Dedup, IndexSizesAndPlansArePostgres) {
  std::vector<std::string> queries =
      testing::script_statements(testing::read_fixture("b1_explain.sql"));
  std::vector<std::vector<std::string>> expected =
      testing::psql_results(testing::read_fixture("b1_explain.out"));
  ASSERT_EQ(queries.size(), expected.size());
  ASSERT_GE(queries.size(), 25u);
  for (size_t i = 0; i < queries.size(); ++i) {
    std::vector<std::string> want = expected[i];
    if (queries[i].rfind("select pg_relation_size", 0) == 0)
      for (std::string& line : want) line = trimmed(line);
    EXPECT_EQ(lines(queries[i]), want) << queries[i];
  }
}

// The rows come back complete through posting lists, in index order both ways.
TEST_F(Pg15Dedup, ScansThroughPostingListsReturnEveryRow) {
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM b1 WHERE b = 3"), "1500");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM b1 WHERE c BETWEEN 3 AND 5"), "3000");
  // i / 1000 = 7 for i in 7000..7999; ordered by c (all 7), then as the index holds them.
  std::vector<std::string> a = lines("SELECT a FROM b1 WHERE c = 7 ORDER BY c");
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_EQ(a.front(), "7000");
  EXPECT_EQ(a.back(), "7999");
  // Backward, a posting list's TIDs still come in ascending order (nbtree's
  // _bt_readpage); PostgreSQL 15 returns these three rows.
  std::vector<std::string> desc = lines("SELECT a FROM b1 ORDER BY c DESC LIMIT 3");
  EXPECT_EQ(desc, (std::vector<std::string>{"30000", "29924", "29925"}));
  EXPECT_EQ(lines("SELECT a FROM b1 WHERE b = 3 AND c = 5 ORDER BY a"),
            (std::vector<std::string>{
                "5003", "5023", "5043", "5063", "5083", "5103", "5123", "5143", "5163", "5183",
                "5203", "5223", "5243", "5263", "5283", "5303", "5323", "5343", "5363", "5383",
                "5403", "5423", "5443", "5463", "5483", "5503", "5523", "5543", "5563", "5583",
                "5603", "5623", "5643", "5663", "5683", "5703", "5723", "5743", "5763", "5783",
                "5803", "5823", "5843", "5863", "5883", "5903", "5923", "5943", "5963", "5983"}));
  EXPECT_EQ(testing::scalar(*s_, "SELECT tp_verify('b1_bc')"),
            "index \"b1_bc\" is valid: 29 pages, 30000 entries checked");
}

// Rows added after CREATE INDEX go in one by one: the deduplication pass keeps the
// index small, and the verifier finds every entry.
TEST_F(Pg15Dedup, InsertsIntoADeduplicatedIndexStayVerifiable) {
  s_->execute("CREATE TABLE b3 (a int, b int)");
  s_->execute("INSERT INTO b3 VALUES (0, 0)");
  s_->execute("CREATE INDEX b3_b ON b3 (b)");
  s_->execute("CREATE INDEX b3_b_off ON b3 (b) WITH (deduplicate_items = off)");
  for (int round = 0; round < 4; ++round)
    s_->execute("INSERT INTO b3 SELECT i, i % 5 FROM generate_series(1, 5000) s(i)");
  EXPECT_EQ(testing::scalar(*s_, "SELECT count(*) FROM b3 WHERE b = 2"), "4000");
  const std::string on = testing::scalar(*s_, "SELECT pg_relation_size('b3_b') / 8192");
  const std::string off = testing::scalar(*s_, "SELECT pg_relation_size('b3_b_off') / 8192");
  EXPECT_LT(std::stoi(on) * 2, std::stoi(off)) << on << " pages against " << off;
  for (const char* index : {"b3_b", "b3_b_off"}) {
    std::string r = testing::scalar(*s_, std::string("SELECT tp_verify('") + index + "')");
    EXPECT_NE(r.find("is valid"), std::string::npos) << r;
    EXPECT_NE(r.find(" 20001 entries checked"), std::string::npos) << r;
  }
}

}  // namespace
}  // namespace tp
