// Runs a fixture captured from PostgreSQL 15 by pg15/capture.sh against a session: the
// setup script's statements, then each query's rows (`R`: rows joined by ',', columns
// by '|'; in any order when the query has no ORDER BY) or its error (`E`: the message)
// and, where the fixture has them, its EXPLAIN (`P` lines).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "engine/sql/parser.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp::testing {

// Runs every statement of pg15/`setup` (a path under tests/engine/session/pg15/).
// An EXPLAIN statement's lines, one text ("Nested Loop (actual rows=18 loops=1)\n...").
inline std::string plan_text(Session& s, const std::string& explain_statement) {
  std::string text;
  for (const auto& row : s.execute(explain_statement).rows) text += row.at(0) + "\n";
  return text;
}

inline void run_pg15_setup(Session& s, const std::string& setup) {
  std::ifstream in(source_dir() + "/tests/engine/session/pg15/" + setup);
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_FALSE(ss.str().empty()) << setup;
  for (const std::string& statement : sql::split_statements(ss.str())) s.execute(statement);
}

inline std::string join_rows(const std::vector<std::string>& rows) {
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) out += (i ? "," : "") + rows[i];
  return out;
}
// The rows of an `R` line (a row holding ',' cannot be told apart: fixtures avoid them).
inline std::vector<std::string> split_rows(const std::string& line) {
  std::vector<std::string> out;
  if (line.empty()) return out;
  size_t start = 0;
  for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(line.substr(start, comma - start));
  out.push_back(line.substr(start));
  return out;
}

// Each query of pg15/`name` gives PostgreSQL's rows and plan; returns the queries run.
inline size_t check_pg15_queries(Session& s, const std::string& name) {
  const std::vector<std::string> lines = fixture_lines("tests/engine/session/pg15/" + name);
  EXPECT_GT(lines.size(), 15u) << name;
  size_t queries = 0;
  for (size_t i = 0; i < lines.size();) {
    if (lines[i].substr(0, 2) != "Q ") {
      ADD_FAILURE() << name << ": line " << i << " is no query";
      break;
    }
    const std::string sql = lines[i++].substr(2);
    ++queries;
    const bool want_error = lines[i].substr(0, 2) == "E ";
    std::string want_rows = lines[i++].substr(2);
    std::vector<std::string> want_plan;
    while (i < lines.size() && lines[i].substr(0, 2) == "P ")
      want_plan.push_back(lines[i++].substr(2));
    if (want_error) {
      // An error while the rows are read (`E` line): PostgreSQL's message; the plan
      // is still its plan.
      try {
        s.execute(sql);
        ADD_FAILURE() << sql << ": no error, PostgreSQL said " << want_rows;
      } catch (const Error& e) {
        EXPECT_EQ(e.what(), want_rows) << sql;
      }
    } else {
      std::vector<std::string> got;
      for (const auto& r : s.execute(sql).rows) {
        std::string row;
        for (size_t c = 0; c < r.size(); ++c) row += (c ? "|" : "") + r[c];
        got.push_back(row);
      }
      std::vector<std::string> want = split_rows(want_rows);
      if (sql.find("order by") == std::string::npos) {
        // Without ORDER BY the order is the plan's (a HashAggregate's is its hash
        // table's): compare the rows as a multiset.
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        EXPECT_EQ(join_rows(got), join_rows(want)) << sql;
      } else {
        EXPECT_EQ(join_rows(got), want_rows) << sql;
      }
    }
    // An error captured without plans (its EXPLAIN fails too): nothing more to compare.
    if (want_error && want_plan.empty()) continue;
    std::vector<std::string> plan;
    for (const auto& r : s.execute("EXPLAIN " + sql).rows) plan.push_back(r[0]);
    EXPECT_EQ(plan, want_plan) << sql;
  }
  return queries;
}

}  // namespace tp::testing
