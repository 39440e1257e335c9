// Recursive-descent parser for tidepool's SQL dialect (a small subset of
// PostgreSQL's). Errors read like PostgreSQL's: `syntax error at or near "x"`
// with the position of the offending token, or `syntax error at end of input`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/sql/ast.h"

namespace tp::sql {

// Parses exactly one statement (a trailing ';' is allowed). Throws tp::Error.
// Notices (identifier truncation) are appended to `notices` when given; a warning
// (a type's precision cut to its maximum) is appended as kParseWarning + its text.
// Expressions nest at most max_expression_depth() levels and the parser checks
// the stack as it recurses: deeper input is `stack depth limit exceeded`.
Statement parse_statement(std::string_view text, std::vector<std::string>* notices = nullptr);

// Splits a script into statement texts at ';' outside strings, quoted
// identifiers and comments. Each piece keeps its text without the ';'; blank
// pieces are dropped. `complete` is set to false when the script ends inside
// a statement (no final ';'), which the interactive shell uses to keep reading.
std::vector<std::string> split_statements(std::string_view script, bool* complete = nullptr);

// Lower-cased keyword-ish name of an expression, as PostgreSQL labels an
// unaliased target column ("count", "sum", "?column?", the column's name).
std::string default_column_name(const Expr& e);

// Every qualified column reference of `s` (`t.a`, `public.t.a`, `t.*`) names its FROM
// item (by alias when it has one), or PostgreSQL's 42P01 error at the reference. The
// parser checks a SELECT without FROM or over a function; over a table, the planner
// does once the table is found.
void check_column_qualifiers(const Select& s);

}  // namespace tp::sql
