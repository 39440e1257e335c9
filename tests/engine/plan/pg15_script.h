// Reading PostgreSQL 15's captured fixtures (pg15/README.md): psql scripts split
// into statements, and psql's aligned output split back into results, so a test
// can run each statement in tidepool and compare what it prints line by line.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/session/session.h"
#include "tests/support/paths.h"
#include "tests/support/test_util.h"

namespace tp::testing {

inline std::string read_fixture(const std::string& name) {
  const std::string path = source_dir() + "/tests/engine/plan/pg15/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The statements of a psql script, one per `;`, comment lines dropped.
inline std::vector<std::string> script_statements(const std::string& script) {
  std::vector<std::string> out;
  std::string cur, line;
  std::istringstream in(script);
  while (std::getline(in, line)) {
    if (line.rfind("--", 0) == 0) continue;
    cur += (cur.empty() ? "" : " ") + line;
    if (!cur.empty() && cur.back() == ';') {
      out.push_back(cur.substr(0, cur.size() - 1));
      cur.clear();
    }
  }
  return out;
}

// psql's aligned output of one-column results: a header, dashes, rows indented by one
// space, "(N rows)". Each result as its lines.
inline std::vector<std::vector<std::string>> psql_results(const std::string& out) {
  std::vector<std::vector<std::string>> results;
  std::istringstream in(out);
  std::string line;
  bool in_rows = false;
  while (std::getline(in, line)) {
    if (line.rfind("---", 0) == 0) {
      results.emplace_back();
      in_rows = true;
    } else if (in_rows && line.rfind("(", 0) == 0) {
      in_rows = false;
    } else if (in_rows) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      results.back().push_back(line.substr(1));
    }
  }
  return results;
}

// Runs the fixture `script`'s statements in order: each EXPLAIN must print the next
// plan of the captured `out` (SET, RESET and ALTER TABLE print nothing). Returns how
// many plans were compared.
inline size_t compare_plans(Session& s, const std::string& script, const std::string& out) {
  std::vector<std::vector<std::string>> plans = psql_results(read_fixture(out));
  size_t plan = 0;
  for (const std::string& q : script_statements(read_fixture(script))) {
    if (q.rfind("explain", 0) != 0) {
      s.execute(q);
      continue;
    }
    if (plan >= plans.size()) {
      ADD_FAILURE() << "no plan in " << out << " for " << q;
      break;
    }
    std::vector<std::string> got;
    for (const auto& row : s.execute(q).rows) got.push_back(row[0]);
    EXPECT_EQ(got, plans[plan]) << q;
    ++plan;
  }
  EXPECT_EQ(plan, plans.size());
  return plan;
}

// A session over a scratch data directory holding the tables the fixtures' setup
// scripts build (their `drop table if exists` lines skipped): what each test suite
// compares against PostgreSQL's captured output.
class FixtureTables {
 public:
  explicit FixtureTables(std::initializer_list<const char*> setup_scripts)
      : session_(std::make_unique<Session>(options_for(dir_.data()))) {
    for (const char* script : setup_scripts)
      for (const std::string& sql : script_statements(read_fixture(script)))
        if (sql.rfind("drop table if exists", 0) != 0) session_->execute(sql);
  }

  Session& session() { return *session_; }
  // The first column of each row: an EXPLAIN's lines.
  std::vector<std::string> lines(const std::string& sql) {
    std::vector<std::string> out;
    for (const auto& row : session_->execute(sql).rows) out.push_back(row[0]);
    return out;
  }

 private:
  TempDir dir_;  // outlives the session
  std::unique_ptr<Session> session_;
};

}  // namespace tp::testing
