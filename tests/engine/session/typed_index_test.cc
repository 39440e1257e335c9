// Indexes over columns of every type, against PostgreSQL 15.18: the primary keys and
// secondary indexes of pgbench's and a TPC-H-shaped schema (pg15/page_counts_setup.sql's
// tables, pg15/index_sizes_setup.sql's indexes:
// text, varchar, char(n), numeric, date and timestamp keys, multi-column ones, a
// blank-padded filler) take PostgreSQL's page counts, verify clean, stay correct
// through inserts that split their pages, and survive a restart.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

std::string pages_of(Session& s, const std::string& rel) {
  return s.execute("select pg_relation_size('" + rel + "') / 8192").rows.at(0).at(0);
}

std::string verify(Session& s, const std::string& index) {
  return s.execute("select tp_verify('" + index + "')").rows.at(0).at(0);
}

// pg_relation_size(i) / 8192 in PostgreSQL after pg15/page_counts_setup.sql and
// pg15/index_sizes_setup.sql.
const std::vector<std::pair<std::string, std::string>> kPostgresPages = {
    {"accounts_filler", "99"},
    {"customer_acctbal", "7"},
    {"customer_name", "10"},
    {"customer_pkey", "7"},
    {"customer_segment", "4"},
    {"history_mtime", "139"},
    {"lineitem_comment", "57"},
    {"lineitem_flags", "53"},
    {"lineitem_mode_date", "301"},
    {"lineitem_pkey", "166"},
    {"lineitem_price", "166"},
    {"lineitem_shipdate", "58"},
    {"orders_clerk", "19"},
    {"orders_date", "17"},
    {"orders_pkey", "43"},
    {"orders_status_comment", "17"},
    {"pgbench_accounts_pkey", "276"},
    {"pgbench_branches_pkey", "2"},
    {"pgbench_tellers_pkey", "2"},
};

TEST(TypedIndex, PgbenchAndTpchIndexesTakePostgresPages) {
  testing::TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    testing::run_pg15_setup(s, "page_counts_setup.sql");
    testing::run_pg15_setup(s, "index_sizes_setup.sql");
    for (const auto& [index, want] : kPostgresPages) {
      EXPECT_EQ(pages_of(s, index), want) << index;
      EXPECT_EQ(verify(s, index).rfind("index \"" + index + "\" is valid", 0), 0u)
          << verify(s, index);
    }
  }
  // Reopened, the indexes read back as they were written.
  Session s(testing::options_for(tmp.data()));
  for (const auto& [index, want] : kPostgresPages)
    EXPECT_EQ(verify(s, index).rfind("index \"" + index + "\" is valid", 0), 0u) << index;
}

TEST(TypedIndex, InsertsKeepTypedIndexesValid) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("create table t (id int, name text, price numeric(10,2), d date, c char(3))");
  s.execute("create index t_name on t (name)");
  s.execute("create index t_price_d on t (price, d)");
  s.execute("create unique index t_c_id on t (c, id)");
  // The first INSERT builds the empty indexes; the next ones insert entry by entry and
  // split pages (long names, many equal prices).
  for (int round = 0; round < 3; ++round) {
    const std::string from = std::to_string(round * 4000 + 1);
    const std::string to = std::to_string(round * 4000 + 4000);
    s.execute(
        "insert into t select g, repeat(substr('abcdefghijklmnopqrstuvwxyz', 1 + g % 26, 1), 1 + g "
        "% 90) || g, (g % 37) * 1.5, "
        "date '2024-01-01' + g % 400, case when g % 10 = 0 then null else "
        "substr('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1 + g % 26, 1) "
        "end from generate_series(" +
        from + ", " + to + ") g");
  }
  for (const char* index : {"t_name", "t_price_d", "t_c_id"})
    EXPECT_EQ(verify(s, index).rfind(std::string("index \"") + index + "\" is valid", 0), 0u)
        << verify(s, index);
  EXPECT_EQ(testing::error_of(s, "insert into t values (5, 'x', 1, '2024-01-01', 'F')"),
            "duplicate key value violates unique constraint \"t_c_id\"");
  s.execute("insert into t values (10, 'x', 1, '2024-01-01', null)");  // NULLs never conflict
  EXPECT_EQ(testing::scalar(s, "select count(*) from t"), "12001");
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// Index paths over columns of every type (pg15/typed_index_queries.sql): equality,
// ranges, IN lists and IS NULL as Index Conds, ordered and backward index scans for
// ORDER BY ... LIMIT, index-only scans, bitmap scans and their costs, as PostgreSQL
// 15's plans and results.
TEST(TypedIndex, IndexPathsArePostgres) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  testing::run_pg15_setup(s, "typed_index_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "typed_index.out"), 74u);
}

// A computed select list over an index's order (pg15/projection_plans_queries.sql): its
// cost is in every path before an Incremental Sort or Limit is costed over it, as
// apply_scanjoin_target_to_paths puts it, so the scan shows it and the sorts start where
// PostgreSQL's do.
TEST(TypedIndex, ComputedSelectListsAreCostedInTheScan) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  testing::run_pg15_setup(s, "typed_index_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "projection_plans.out"), 15u);
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// An index-only scan over a typed key forms each entry's row in one buffer; a filter
// that rejects some entries must not leave the next entry reading the last one's values.
TEST(TypedIndex, IndexOnlyScanFiltersEachFormedRow) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("create table s (id int, v varchar(12))");
  s.execute("insert into s select i, 'v' || (i % 50) from generate_series(1, 20000) i");
  s.execute("create index s_v on s (v)");
  s.execute("vacuum analyze s");
  s.execute("set enable_seqscan = off");
  s.execute("set enable_bitmapscan = off");
  const std::string q = "select sum(length(v)), count(*) from s where v > 'v4' and v like '%5'";
  const ResultSet plan = s.execute("explain (costs off) " + q);
  EXPECT_EQ(plan.rows.at(1).at(0), "  ->  Index Only Scan using s_v on s");
  EXPECT_EQ(plan.rows.at(3).at(0), "        Filter: ((v)::text ~~ '%5'::text)");
  // 'v45' and 'v5', 400 rows each.
  const ResultSet r = s.execute(q);
  EXPECT_EQ(r.rows.at(0), (std::vector<std::string>{"2000", "800"}));
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// The lines of a statement's EXPLAIN, joined.
std::string explain_text(Session& s, const std::string& sql) {
  std::string out;
  for (const auto& row : s.execute("explain " + sql).rows) out += row.at(0) + "\n";
  return out;
}

// The estimated rows of a plan's top line.
std::string top_rows(const std::string& plan) {
  const size_t at = plan.find("rows=");
  return plan.substr(at, plan.find(' ', at) - at);
}

// A pseudo-constant (`CURRENT_DATE - N`: no column, no volatile function) is estimated
// with its value now, as estimate_expression_value does, and an index compares with it
// (EXPLAIN prints the expression): each query estimates as its literal twin does, reads
// the same rows by index as by a Seq Scan, and a commuted one stays the Bitmap Heap
// Scan's Filter, not its Recheck (PostgreSQL cannot prove a stable clause implied).
// N is computed so that CURRENT_DATE - N is 2021-06-01 on any day the test runs.
TEST(TypedIndex, PseudoConstantsAreEstimatedAndSearchedByTheirValue) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  testing::run_pg15_setup(s, "typed_index_setup.sql");
  const std::string n = testing::scalar(s, "select current_date - date '2021-06-01'");
  const std::string value = "(CURRENT_DATE - " + n + ")";
  const std::pair<std::string, std::string> cases[] = {
      {"d > current_date - " + n, "d > '2021-06-01'"},
      {"d = current_date - " + n, "d = '2021-06-01'"},
      {"current_date - " + n + " <= d and d < current_date - " + n + " + 60 and sm = 3",
       "'2021-06-01' <= d and d < date '2021-06-01' + 60 and sm = 3"},
      {"ts < (current_date - " + n + ")::timestamp", "ts < timestamp '2021-06-01'"},
  };
  for (const auto& [stable, literal] : cases) {
    const std::string q = "select id from s where " + stable + " order by id";
    const std::string plan = explain_text(s, q);
    EXPECT_EQ(top_rows(plan), top_rows(explain_text(s, "select id from s where " + literal)))
        << plan;
    const ResultSet by_plan = s.execute(q);
    s.execute("set enable_indexscan = off");
    s.execute("set enable_bitmapscan = off");
    EXPECT_EQ(s.execute(q).rows, by_plan.rows) << q;
    EXPECT_EQ(by_plan.rows.size(),
              s.execute("select id from s where " + literal + " order by id").rows.size());
    s.execute("reset enable_indexscan");
    s.execute("reset enable_bitmapscan");
  }
  const std::string equality = explain_text(s, "select id from s where d = current_date - " + n);
  EXPECT_NE(equality.find("Index Cond: (d = " + value + ")"), std::string::npos) << equality;
  const std::string range = explain_text(s, "select id from s where " + cases[2].first);
  EXPECT_NE(range.find("Filter: (" + value + " <= d)"), std::string::npos) << range;
  EXPECT_EQ(range.find("Recheck Cond: ((" + value), std::string::npos) << range;
  EXPECT_NE(range.find("Index Cond: ((d >= " + value + ")"), std::string::npos) << range;
  // Fixed by WHERE, d sorts nothing, but the row still carries it.
  const std::string ordered =
      explain_text(s, "select id from s where d = current_date - " + n + " order by d, id");
  EXPECT_NE(ordered.find("Sort Key: id\n"), std::string::npos) << ordered;
  EXPECT_NE(ordered.find("width=8"), std::string::npos) << ordered;
}

}  // namespace
}  // namespace tp
