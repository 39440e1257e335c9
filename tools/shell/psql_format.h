// Prints results and errors the way psql does, so that output pasted from an
// article and output from tidepool line up.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {

struct PrintOptions {
  bool unaligned = false;    // -A
  bool tuples_only = false;  // -t
  std::string title;         // printed centred above the table (\d)
};

// Formats a result set (rows and footer, or the command tag) as psql would.
std::string format_result(const ResultSet& r, const PrintOptions& opt);

// The object name of a psql meta-command argument (\d NAME): outside double
// quotes letters fold to lower case, inside them everything is kept ("" is a
// quote), so \d "a b" finds the table "a b" and \d T finds t.
std::string psql_object_name(std::string_view arg);

// "ERROR:  msg", then LINE n: with a caret under the position, DETAIL, HINT.
std::string format_error(const Error& e, std::string_view statement);

}  // namespace tp
