// Runs a fixture captured from PostgreSQL 15 by pg15/capture.sh against a session: the
// setup script's statements, then each query's rows (`R`: rows joined by ',', columns
// by '|') and, where the fixture has them, its EXPLAIN (`P` lines).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/session/session.h"
#include "engine/sql/parser.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp::testing {

// Runs every statement of pg15/`setup` (a path under tests/engine/session/pg15/).
inline void run_pg15_setup(Session& s, const std::string& setup) {
  std::ifstream in(source_dir() + "/tests/engine/session/pg15/" + setup);
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_FALSE(ss.str().empty()) << setup;
  for (const std::string& statement : sql::split_statements(ss.str())) s.execute(statement);
}

// Each query of pg15/`name` gives PostgreSQL's rows and plan; returns the queries run.
inline size_t check_pg15_queries(Session& s, const std::string& name) {
  const std::vector<std::string> lines = fixture_lines("tests/engine/session/pg15/" + name);
  EXPECT_GT(lines.size(), 40u) << name;
  size_t queries = 0;
  for (size_t i = 0; i < lines.size();) {
    if (lines[i].substr(0, 2) != "Q ") {
      ADD_FAILURE() << name << ": line " << i << " is no query";
      break;
    }
    const std::string sql = lines[i++].substr(2);
    ++queries;
    std::string want_rows = lines[i++].substr(2);
    std::vector<std::string> want_plan;
    while (i < lines.size() && lines[i].substr(0, 2) == "P ")
      want_plan.push_back(lines[i++].substr(2));
    std::string rows;
    for (const auto& r : s.execute(sql).rows) {
      rows += rows.empty() ? "" : ",";
      for (size_t c = 0; c < r.size(); ++c) rows += (c ? "|" : "") + r[c];
    }
    EXPECT_EQ(rows, want_rows) << sql;
    std::vector<std::string> plan;
    for (const auto& r : s.execute("EXPLAIN " + sql).rows) plan.push_back(r[0]);
    EXPECT_EQ(plan, want_plan) << sql;
  }
  return queries;
}

}  // namespace tp::testing
