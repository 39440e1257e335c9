// The visibility map against PostgreSQL 15.18: v1 and v1e built as
// pg15/v1_setup.sql builds them (VACUUM ANALYZE), then every statement of
// pg15/v1_explain.sql in order. Its EXPLAINs print exactly what PostgreSQL printed
// into pg15/v1_explain.out: Index Only Scan costs with every page all-visible,
// after an INSERT (relallvisible stale, the current pages grown), after ANALYZE
// (the map's count) and after VACUUM again; EXPLAIN ANALYZE's Heap Fetches; and the
// effective_io_concurrency article's query. Its pg_class queries are answered from
// tidepool's catalog (relpages and reltuples from the statistics, relallvisible).
// pg15/v2_vacuum.sql: four plain VACUUMs, each leaving PostgreSQL's pg_class row.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "engine/session/session.h"
#include "engine/storage/table_stats.h"
#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

// EXPLAIN ANALYZE's timing lines differ from run to run: left out on both sides.
std::vector<std::string> without_times(std::vector<std::string> lines) {
  std::erase_if(lines, [](const std::string& l) {
    return l.rfind("Planning Time:", 0) == 0 || l.rfind("Execution Time:", 0) == 0;
  });
  return lines;
}

// psql's "  146 |     27000 |   146" as "146|27000|146".
std::string cells(const std::string& row) {
  std::string out;
  for (char c : row)
    if (c != ' ') out += c;
  return out;
}

// pg_class's row of `table` as tidepool's catalog holds it.
std::string pg_class_row(Session& s, const std::string& table) {
  const RelationEntry* rel = s.catalog().find(table);
  EXPECT_NE(rel, nullptr) << "no table \"" << table << "\"";
  if (rel == nullptr) return "";
  const TableStats st = stats_from_catalog(rel->stats);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0f|%.0f|%llu", st.relpages, st.reltuples,
                (unsigned long long)rel->all_visible);
  return buf;
}

// The table a pg_class query names: "... where relname = 'v1'".
std::string relname_of(const std::string& sql) {
  const size_t at = sql.find("relname = '");
  if (at == std::string::npos) return "";
  const size_t from = at + 11;
  return sql.substr(from, sql.find('\'', from) - from);
}

// Runs `setup` (without its DROPs), then every statement of `script` in order: EXPLAINs
// print what PostgreSQL printed into `out`, pg_class queries are answered from the
// catalog, anything else just runs. Returns how many EXPLAINs and pg_class rows matched.
std::pair<size_t, size_t> replay(const std::string& setup, const std::string& script,
                                 const std::string& out) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("SET index_leaf_readahead = off");  // PostgreSQL reads leaves one at a time
  for (const std::string& sql : testing::script_statements(setup))
    if (sql.rfind("drop table if exists", 0) != 0) s.execute(sql);
  const std::vector<std::vector<std::string>> results = testing::psql_results(out);
  size_t next = 0, explains = 0, counts = 0;
  for (const std::string& sql : testing::script_statements(script)) {
    const bool explain = sql.rfind("explain", 0) == 0;
    const bool pg_class = sql.rfind("select relpages", 0) == 0;
    if (!explain && !pg_class) {
      if (sql.rfind("drop table if exists", 0) != 0) s.execute(sql);
      continue;
    }
    if (next >= results.size()) {
      ADD_FAILURE() << "no PostgreSQL output for " << sql;
      break;
    }
    const std::vector<std::string>& want = results[next++];
    if (pg_class) {
      EXPECT_EQ(want.size(), 1u) << sql;
      if (!want.empty()) {
        EXPECT_EQ(pg_class_row(s, relname_of(sql)), cells(want[0])) << sql;
      }
      ++counts;
      continue;
    }
    std::vector<std::string> got;
    for (const auto& row : s.execute(sql).rows) got.push_back(row[0]);
    EXPECT_EQ(without_times(got), without_times(want)) << sql;
    ++explains;
  }
  EXPECT_EQ(next, results.size());
  return {explains, counts};
}

TEST(Pg15Visibility, EveryStatementIsPostgres) {
  auto [explains, counts] =
      replay(testing::read_fixture("v1_setup.sql"), testing::read_fixture("v1_explain.sql"),
             testing::read_fixture("v1_explain.out"));
  EXPECT_EQ(explains, 28u);
  EXPECT_EQ(counts, 4u);
}

// VACUUM alone: the pages it reads and the reltuples it records, four times over.
TEST(Pg15Visibility, VacuumRecordsWhatPostgresRecords) {
  auto [explains, counts] =
      replay("", testing::read_fixture("v2_vacuum.sql"), testing::read_fixture("v2_vacuum.out"));
  EXPECT_EQ(explains, 0u);
  EXPECT_EQ(counts, 4u);
}

}  // namespace
}  // namespace tp
