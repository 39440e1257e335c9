// Reading PostgreSQL 15's captured fixtures (pg15/README.md): psql scripts split
// into statements, and psql's aligned output split back into results, so a test
// can run each statement in tidepool and compare what it prints line by line.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tp::testing {

inline std::string read_fixture(const std::string& name) {
  const std::string path = std::string(TP_PG15_FIXTURES) + "/" + name;
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

}  // namespace tp::testing
