// Helpers for tests that need a fresh data directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp::testing {

// A data directory under the system temp dir, removed when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tidepool-test-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string data() const { return path_ + "/data"; }

 private:
  std::string path_;
};

inline SessionOptions options_for(const std::string& dir) {
  SessionOptions o;
  o.data_dir = dir;
  return o;
}

// First column of the first row of a query.
inline std::string scalar(Session& s, const std::string& sql) {
  ResultSet r = s.execute(sql);
  EXPECT_TRUE(r.returns_rows);
  EXPECT_FALSE(r.rows.empty());
  return r.rows.empty() ? "" : r.rows[0][0];
}

// Message of the tp::Error the statement throws ("" if it succeeds).
inline std::string error_of(Session& s, const std::string& sql) {
  try {
    s.execute(sql);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// EXPLAIN (ANALYZE, BUFFERS) output:
// The number after `key` in the first line of `rows` holding it, or -1.
inline long long number_after(const ResultSet& r, const std::string& key) {
  for (const auto& row : r.rows) {
    size_t at = row.at(0).find(key);
    if (at != std::string::npos) return std::stoll(row[0].substr(at + key.size()));
  }
  return -1;
}

// Blocks the plan read plus those its planning read (EXPLAIN's "Planning:" Buffers line,
// a B-tree's metapage and root): every block the statement read.
inline long long statement_reads(const ResultSet& r) {
  long long planning = 0;
  for (size_t i = 0; i + 1 < r.rows.size(); ++i)
    if (r.rows[i].at(0) == "Planning:") {
      const std::string& line = r.rows[i + 1].at(0);
      const size_t at = line.find("read=");
      if (at != std::string::npos) planning = std::stoll(line.substr(at + 5));
    }
  return number_after(r, "read=") + planning;
}

}  // namespace tp::testing
