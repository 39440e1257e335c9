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

}  // namespace tp::testing
