// ANALYZE over every type, against PostgreSQL 15.18: a 20,000-row table (sampled whole,
// so the statistics are PostgreSQL's exactly) of text, varchar, char(n), numeric, float8,
// real, date, timestamp, boolean, smallint and interval columns with skewed values,
// NULLs and values over 1 kB (pg15/typed_stats_setup.sql). Each query of
// pg15/typed_stats_queries.sql gives PostgreSQL's count and its EXPLAIN: the row
// estimates of =, <>, ranges, LIKE / ILIKE / NOT LIKE, IN, IS [NOT] TRUE / UNKNOWN over
// the MCVs and histograms, cross-type comparisons, and the widths ANALYZE measured.
#include <gtest/gtest.h>

#include "engine/storage/table_stats.h"
#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

// A session over the 13-type table of pg15/typed_stats_setup.sql.
class TypedStatsTable : public ::testing::Test {
 protected:
  void SetUp() override { testing::run_pg15_setup(s_, "typed_stats_setup.sql"); }
  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(TypedStatsTable, EstimatesArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "typed_stats.out"), 56u);
}

// SELECT DISTINCT over columns of every type: PostgreSQL's plans (HashAggregate or
// Sort and Unique, their group estimates from the columns' n_distinct, widths from
// ANALYZE) and its rows.
TEST_F(TypedStatsTable, DistinctOverEveryTypeIsPostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "typed_distinct.out"), 27u);
  // count / sum / avg / min / max (DISTINCT x) over every type.
  EXPECT_EQ(testing::check_pg15_queries(s_, "typed_distinct_agg.out"), 12u);
}

// SELECT DISTINCT ON over columns of every type (pg15/distinct_on*): a Unique over the
// DISTINCT ON columns above a Sort by ORDER BY's keys (or an index scan in that order),
// its groups estimated over the DISTINCT ON items, its width counting the sort's
// columns the select list lacks; PostgreSQL's rows and its errors.
TEST_F(TypedStatsTable, DistinctOnIsPostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "distinct_on.out"), 17u);
  EXPECT_EQ(testing::error_of(s_, "select distinct on (v) v, id from s order by id, v"),
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
  EXPECT_EQ(testing::error_of(s_, "select distinct on (3) v, id from s"),
            "DISTINCT ON position 3 is not in select list");
  EXPECT_EQ(testing::error_of(s_, "select distinct on (v || 'x') v from s"),
            "SELECT DISTINCT ON over an expression is not supported yet");
  EXPECT_EQ(testing::error_of(s_, "select distinct on (v) count(*) from s"),
            "SELECT DISTINCT ON with aggregates is not supported yet");
}

// ORDER BY computed columns and expressions (by position, alias or written out, in the
// select list or only in ORDER BY): PostgreSQL's Sort Key text, widths, costs and rows.
TEST_F(TypedStatsTable, OrderByExpressionsIsPostgres) {
  EXPECT_EQ(testing::check_pg15_queries(s_, "typed_order.out"), 25u);
}

// pgbench's four tables at scale 1 (as pgbench -i fills them: blank-padded char fillers)
// and a TPC-H-shaped lineitem, orders and customer (numeric(15,2), char(n), varchar,
// date) take PostgreSQL 15.18's page counts, and queries over them its costs.
TEST(TypedStats, PgbenchAndTpchTablesTakePostgresPages) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  testing::run_pg15_setup(s, "page_counts_setup.sql");
  // pg_relation_size(t) / 8192 in PostgreSQL after the same script.
  const std::vector<std::pair<const char*, const char*>> pages = {{"pgbench_accounts", "1640"},
                                                                  {"pgbench_branches", "1"},
                                                                  {"pgbench_tellers", "1"},
                                                                  {"pgbench_history", "468"},
                                                                  {"lineitem", "1115"},
                                                                  {"orders", "262"},
                                                                  {"customer", "36"}};
  for (const auto& [table, want] : pages)
    EXPECT_EQ(
        s.execute(std::string("select pg_relation_size('") + table + "') / 8192").rows.at(0).at(0),
        want)
        << table;
  EXPECT_EQ(testing::check_pg15_queries(s, "page_counts.out"), 9u);
}

// The statistics survive a restart: by-reference values are stored in the catalog as
// their bytes and read back equal.
TEST(TypedStats, StatisticsSurviveReopening) {
  testing::TempDir tmp;
  std::string before;
  {
    Session s(testing::options_for(tmp.data()));
    testing::run_pg15_setup(s, "typed_stats_setup.sql");
    before = s.catalog().find("s")->stats;
  }
  Session s(testing::options_for(tmp.data()));
  const std::string after = s.catalog().find("s")->stats;
  EXPECT_EQ(after, before);
  const TableStats st = stats_from_catalog(after);
  ASSERT_EQ(st.columns.size(), 13u);
  const ColumnStats& t = st.columns[1];
  ASSERT_FALSE(t.mcv_values.empty());
  EXPECT_EQ(varlena_payload(datum_pointer(t.mcv_values[0])), "common");
  EXPECT_EQ(t.ref_len, -1);
  EXPECT_EQ(st.columns[11].ref_len, 16);  // interval: 16 bytes by reference
  EXPECT_EQ(st.columns[0].ref_len, 0);
}

}  // namespace
}  // namespace tp
