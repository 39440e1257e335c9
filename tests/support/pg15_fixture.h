// Fixtures captured from PostgreSQL 15 (the tests' pg15/ folders): their lines, and the
// '|'-separated fields psql's unaligned output gives each.
#pragma once

#include <cstddef>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/paths.h"

namespace tp::testing {

// The non-empty lines of the file at `relative` (a path from the checkout's root); none
// if it cannot be read.
inline std::vector<std::string> fixture_lines(const std::string& relative) {
  std::ifstream in(source_dir() + "/" + relative);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// `line` split at '|'; with `max_fields`, the last field keeps any further '|'.
inline std::vector<std::string> split_fields(
    std::string_view line, size_t max_fields = std::numeric_limits<size_t>::max()) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t bar; out.size() + 1 < max_fields && (bar = line.find('|', start)) != line.npos;
       start = bar + 1)
    out.emplace_back(line.substr(start, bar - start));
  out.emplace_back(line.substr(start));
  return out;
}

}  // namespace tp::testing
