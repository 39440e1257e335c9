// Prints results and errors the way psql does, so that output pasted from an
// article and output from tidepool line up.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/session.h"

namespace tp {

struct PrintOptions {
  bool unaligned = false;    // -A
  bool tuples_only = false;  // -t
  std::string title;         // printed centred above the table (\d)
};

// Formats a result set (rows and footer, or the command tag) as psql would.
std::string format_result(const ResultSet& r, const PrintOptions& opt);

// "ERROR:  msg", then LINE n: with a caret under the position, DETAIL, HINT.
std::string format_error(const Error& e, std::string_view statement);

}  // namespace tp
