// Rows that do not come from a table, against PostgreSQL 15.18: the statements of
// pg15/row_sources_queries.sql (SELECT without FROM, VALUES, FROM generate_series, and
// INSERTs of every type into the table of pg15/row_sources_setup.sql, then the table
// read back), captured by pg15/capture.sh. Each gives PostgreSQL's rows, its command
// tag, or its error message.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/sql/parser.h"
#include "tests/engine/session/pg15_queries.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::TempDir;

// psql -At's text of a result: rows joined by ',', columns by '|', NULL empty; a
// statement without rows gives its tag.
std::string as_psql(const ResultSet& r) {
  if (!r.returns_rows) return r.tag;
  std::string out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    out += i ? "," : "";
    for (size_t c = 0; c < r.rows[i].size(); ++c) out += (c ? "|" : "") + r.rows[i][c];
  }
  return out;
}

class TypedRowSource : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    std::ifstream in(testing::source_dir() + "/tests/engine/session/pg15/row_sources_setup.sql");
    std::stringstream setup;
    setup << in.rdbuf();
    ASSERT_FALSE(setup.str().empty());
    for (const std::string& statement : sql::split_statements(setup.str())) s_->execute(statement);
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(TypedRowSource, RowsTagsAndErrorsArePostgres) {
  const std::vector<std::string> lines =
      testing::fixture_lines("tests/engine/session/pg15/row_sources.out");
  size_t statements = 0;
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    ASSERT_EQ(lines[i].substr(0, 2), "Q ") << "line " << i;
    const std::string sql = lines[i].substr(2), want = lines[i + 1];
    ++statements;
    if (want.substr(0, 2) == "E ") {
      EXPECT_EQ(error_of(*s_, sql), want.substr(2)) << sql;
      continue;
    }
    std::string got;
    try {
      got = as_psql(s_->execute(sql));
    } catch (const Error& e) {
      got = std::string("error: ") + e.what();
    }
    EXPECT_EQ(got, want.substr(2)) << sql;
  }
  EXPECT_EQ(statements, 66u);
}

// What PostgreSQL has and tidepool does not yet is refused by name, and a failed
// INSERT leaves the table as it was.
TEST_F(TypedRowSource, MissingFeaturesAreRefusedAndFailuresLoseNothing) {
  EXPECT_EQ(error_of(*s_, "select generate_series(1.5, 3)"),
            "generate_series over numeric is not supported yet");
  EXPECT_EQ(error_of(*s_, "select g, generate_series(1, 2) from generate_series(1, 3) g"),
            "set-returning functions in the select list of a query with FROM are not supported");
  s_->execute("insert into tt (a, t) values (1, 'kept')");
  EXPECT_EQ(error_of(*s_,
                     "insert into tt (a, t) select g, 'x' || (10 / (3 - g)) from "
                     "generate_series(1, 5) g"),
            "division by zero");
  EXPECT_EQ(testing::scalar(*s_, "select count(*) from tt"), "1");
  EXPECT_EQ(testing::scalar(*s_, "select t from tt"), "kept");
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// EXPLAIN of a SELECT without FROM (pg15/result_plans*): PostgreSQL's Result, costed
// as cpu_tuple_cost plus the folded select list's calls, its width the output types'.
TEST(ResultPlans, ExplainOfSelectWithoutFromIsPostgres) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  testing::run_pg15_setup(s, "result_plans_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "result_plans.out"), 16u);
  EXPECT_EQ(error_of(s, "explain select 1 where true"),
            "EXPLAIN of a SELECT without FROM with WHERE is not supported yet");
  EXPECT_EQ(error_of(s, "explain select count(*)"),
            "EXPLAIN of a SELECT without FROM with aggregates or set-returning functions is not "
            "supported yet");
  EXPECT_EQ(error_of(s, "explain select *"), "SELECT * with no tables specified is not valid");
}

}  // namespace
}  // namespace tp
