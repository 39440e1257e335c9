// PostgreSQL's EXPLAIN qualifies the column names in the keys and quals of the nodes above
// the scans (Sort Key, Group Key, Presorted Key, an Aggregate's or Result's Filter) once
// the query's range table holds more than one entry (explain.c's useprefix), even when
// only one table is scanned: a subquery pulled up into the query leaves its own entry
// behind. The single-table planner prints those names bare; `qualify_upper_details`
// prefixes them at EXPLAIN time, as PostgreSQL decides it there.
#pragma once

#include <string>
#include <vector>

namespace tp {

// The table's name as EXPLAIN qualifies its columns ("o", or an alias) and its columns.
struct ExplainPrefix {
  std::string table;
  std::vector<std::string> columns;
};

// `details` of a node called `node_name`, with each bare name of `prefix.columns` in its
// key and qual lines qualified; a scan's details are left as they are.
void qualify_upper_details(const std::string& node_name, const ExplainPrefix& prefix,
                           std::vector<std::string>& details);

}  // namespace tp
