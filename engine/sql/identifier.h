// Identifiers as PostgreSQL prints them back (ruleutils.c's quote_identifier):
// EXPLAIN's relation names, Filter and Sort Key columns.
#pragma once

#include <string>
#include <string_view>

namespace tp::sql {

// `name` as SQL text that reads back to the same identifier: bare when it is
// lower-case letters, digits and '_' (not starting with a digit) and not a
// keyword PostgreSQL reserves in some context; otherwise in double quotes with
// embedded quotes doubled ("a b", "A", "select", "x""y").
std::string quote_identifier(std::string_view name);

}  // namespace tp::sql
