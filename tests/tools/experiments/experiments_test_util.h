// Helpers of the experiments' end-to-end tests: a temporary directory, the tiny
// scale (20 k rows, one run per measurement), a CSV read back by column name.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/test_util.h"
#include "tools/experiments/experiments.h"

namespace tp::experiments::test {

constexpr uint64_t kTinyRows = 20000;

// A temporary directory removed at the end of the test (tests/support/test_util.h).
using TempDir = tp::testing::TempDir;

inline LabOptions tiny(const std::string& dir, uint64_t rows = kTinyRows) {
  LabOptions o;
  o.rows = rows;
  o.prefetch_rows = rows;  // index-prefetch shares the rpc table
  o.iomethod_table_mb = 2;
  o.out_dir = dir + "/out";
  o.data_dir = dir + "/data";
  o.repeat = 1;
  o.progress = false;
  o.device_seconds = 0.02;
  o.device_file_mb = 8;
  o.limit_round_seconds = 0.01;
  o.suite_random = 2;
  o.suite_rounds = 1;
  o.suite_warm_ms = 2;
  return o;
}

// The CSV as column name -> values, one per row.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  bool has(const std::string& c) const {
    return std::find(header.begin(), header.end(), c) != header.end();
  }
};

inline Csv load(const std::string& path) {
  Csv csv;
  auto raw = read_csv(path);
  if (raw.empty()) return csv;
  csv.header = raw[0];
  for (size_t r = 1; r < raw.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < csv.header.size() && i < raw[r].size(); ++i)
      row[csv.header[i]] = raw[r][i];
    csv.rows.push_back(row);
  }
  return csv;
}

inline double num(const std::map<std::string, std::string>& row, const std::string& col) {
  auto it = row.find(col);
  if (it == row.end() || it->second.empty()) return NAN;
  return std::stod(it->second);
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline Context context_for(const Lab& lab) {
  Context ctx;
  ctx.env = probe_environment(lab.options().data_dir);
  return ctx;
}

// The experiment's own columns: those before the environment's ("device", "kernel", ...)
// and the session's settings, which every row carries after them.
inline std::vector<std::string> own_columns(const Csv& csv) {
  auto env = std::find(csv.header.begin(), csv.header.end(), "device");
  return std::vector<std::string>(csv.header.begin(), env);
}

// The cells of every Markdown table in `md` whose column header names a ratio ("ratio",
// "per read", "article's"). A ratio below 1 must never stand bare: it carries a "*" and the
// section explains it ("\* Below 1: ...").
inline void expect_no_bare_ratio_below_one(const std::string& md) {
  std::istringstream in(md);
  std::string line;
  std::vector<size_t> ratio_columns;
  bool header = true;
  auto cells = [](const std::string& row) {
    std::vector<std::string> out;
    std::stringstream ss(row.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      while (!cell.empty() && cell.front() == ' ') cell.erase(0, 1);
      while (!cell.empty() && cell.back() == ' ') cell.pop_back();
      out.push_back(cell);
    }
    return out;
  };
  size_t checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '|') {
      header = true;
      continue;
    }
    std::vector<std::string> row = cells(line);
    if (header) {
      ratio_columns.clear();
      for (size_t i = 0; i < row.size(); ++i)
        if (row[i].find("ratio") != std::string::npos || row[i].find("per read") == 0 ||
            row[i].find("article's") == 0)
          if (row[i].find("spread") == std::string::npos && row[i].find("_us") == std::string::npos)
            ratio_columns.push_back(i);
      header = false;
      continue;
    }
    if (line.find("---") != std::string::npos) continue;
    for (size_t c : ratio_columns) {
      if (c >= row.size() || row[c] == "-") continue;
      ++checked;
      const double v = std::strtod(row[c].c_str(), nullptr);
      if (v < 1) {
        EXPECT_EQ(row[c].back(), '*') << "bare ratio below 1: " << line;
        EXPECT_NE(md.find("\\* Below 1"), std::string::npos) << "no explanation for: " << line;
      }
    }
  }
  EXPECT_GT(checked, 0u) << "no ratio column found in:\n" << md;
}

}  // namespace tp::experiments::test
