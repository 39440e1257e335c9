// The join planner's settings against PostgreSQL 15.20, over pg15/joins_setup.sql:
// join_collapse_limit and from_collapse_limit (pg15/join_collapse_*.out: the same queries
// captured at 1, at 2 / 2, at the defaults of 8 and with from_collapse_limit 1, their plans
// differing: explicit JOINs in the order written, FROM lists and a pulled-up EXISTS kept as
// sub-lists, a FULL JOIN's sides), hash_mem_multiplier (pg15/hash_mem_*.out at 1 and 8 with
// work_mem 64kB: HashAggregates planning partitions or not), and geqo / geqo_threshold, which
// refuse a join search PostgreSQL would give its genetic optimizer. Plans, costs and rows
// are PostgreSQL's; the settings' ranges and errors too.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class JoinSettings : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_setup.sql"); }
  std::string error_of(const std::string& sql) {
    try {
      s_.execute(sql);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(JoinSettings, CollapseLimitsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_collapse_8.out"), 11u);
  s_.execute("set join_collapse_limit = 1");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_collapse_1.out"), 11u);
  s_.execute("set join_collapse_limit = 2");
  s_.execute("set from_collapse_limit = 2");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_collapse_2.out"), 11u);
}

// A pulled-up sublink's semi join holds the query's FROM items as a FromExpr of their
// own: with from_collapse_limit = 1 an explicit JOIN tree below it is a sub-list, joined
// before the subquery's relation (pg15/join_collapse_from1.out).
TEST_F(JoinSettings, FromCollapseLimitAppliesBelowAPulledUpSublink) {
  s_.execute("set from_collapse_limit = 1");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_collapse_from1.out"), 11u);
}

TEST_F(JoinSettings, HashMemMultiplierIsPostgres) {
  s_.execute("set work_mem = '64kB'");
  s_.execute("set hash_mem_multiplier = 1");
  EXPECT_EQ(testing::check_pg15_queries(s_, "hash_mem_1.out"), 4u);
  s_.execute("set hash_mem_multiplier = 8");
  EXPECT_EQ(testing::check_pg15_queries(s_, "hash_mem_8.out"), 4u);
}

TEST_F(JoinSettings, GeqoThresholdRefusesWhatPostgresGivesItsGeneticOptimizer) {
  const char* q = "select count(*) from o, c, r where o.cust = c.cid and c.region = r.rid";
  s_.execute("set geqo_threshold = 3");
  EXPECT_EQ(error_of(q),
            "a join search of 3 FROM items is not supported with geqo on: PostgreSQL gives it "
            "to its genetic optimizer (geqo_threshold is 3), which tidepool does not have; set "
            "geqo = off or raise geqo_threshold");
  // Sub-lists are searched apart: with explicit JOINs not flattened none reaches three
  // items (a FROM list of single tables is always one list).
  s_.execute("set join_collapse_limit = 1");
  EXPECT_NE(error_of(q), "");
  EXPECT_EQ(error_of("select count(*) from o join c on o.cust = c.cid join r on c.region = "
                     "r.rid"),
            "");
  s_.execute("reset join_collapse_limit");
  s_.execute("set geqo = off");
  EXPECT_EQ(error_of(q), "");
}

TEST_F(JoinSettings, RangesAndDefaultsArePostgres) {
  for (const auto& [name, value] : {std::pair{"join_collapse_limit", "8"},
                                    {"from_collapse_limit", "8"},
                                    {"geqo", "on"},
                                    {"geqo_threshold", "12"},
                                    {"hash_mem_multiplier", "2"}})
    EXPECT_EQ(s_.settings().show(name), value) << name;
  EXPECT_EQ(error_of("set join_collapse_limit = 0"),
            "0 is outside the valid range for parameter \"join_collapse_limit\" (1 .. "
            "2147483647)");
  EXPECT_EQ(error_of("set geqo_threshold = 1"),
            "1 is outside the valid range for parameter \"geqo_threshold\" (2 .. 2147483647)");
  EXPECT_EQ(error_of("set hash_mem_multiplier = 0.5"),
            "0.5 is outside the valid range for parameter \"hash_mem_multiplier\" (1 .. 1000)");
}

}  // namespace
}  // namespace tp
