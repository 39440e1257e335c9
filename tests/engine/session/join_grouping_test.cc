// GROUP BY, HAVING and aggregates over inner joins against PostgreSQL 15.20, over the
// tables of pg15/joins_setup.sql and (with indexes) pg15/joins_index_setup.sql: keys of
// either side, qualified or not, expressions and ordinals, keys an equivalence class
// makes one, count(*) / count(DISTINCT) / sum / avg / min / max, HAVING, ORDER BY an
// aggregate, LIMIT, plain aggregates over a join; HashAggregate over the join, Sort +
// GroupAggregate without it (`join_grouping_sorted.out`: the same queries captured with
// enable_hashagg off), GroupAggregate over a Merge Join already in the keys' order.
// Plans, costs, widths and rows are PostgreSQL's.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class JoinGrouping : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(JoinGrouping, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_grouping.out"), 26u);
}

TEST_F(JoinGrouping, WithoutHashAggregatePlansAndRowsArePostgres) {
  s_.execute("set enable_hashagg = off");
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_grouping_sorted.out"), 26u);
}

// PostgreSQL's grouping error names the column by its table's name in the query; what
// is not built over a join is refused by name.
TEST_F(JoinGrouping, ErrorsAndRefusals) {
  try {
    s_.execute("select o.id, count(*) from o join c on o.cust = c.cid group by c.region");
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "column \"o.id\" must appear in the GROUP BY clause or be used in an aggregate "
              "function");
  }
  for (const char* q : {"select distinct c.region, count(*) from o join c on o.cust = c.cid "
                        "group by c.region",
                        "select c.region, count(*) from o join c on o.cust = c.cid "
                        "group by rollup (c.region)"}) {
    try {
      s_.execute(q);
      ADD_FAILURE() << q << ": no error";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos)
          << q << ": " << e.what();
    }
  }
}

class IndexedJoinGrouping : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "joins_index_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(IndexedJoinGrouping, PlansAndRowsArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "join_grouping_index.out"), 15u);
}

}  // namespace
}  // namespace tp
