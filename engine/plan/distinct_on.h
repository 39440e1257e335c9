// SELECT DISTINCT ON (...) as PostgreSQL 15's parser reads it (transformDistinctOnClause):
// the DISTINCT ON items are the ORDER BY items they match, in ORDER BY's order, then the
// rest, sorted ascending after ORDER BY's keys; an ORDER BY item that is not among them
// may come only after all of them (42P10 otherwise). The planner then sorts by the longer
// of the two lists and keeps each group's first row (a Unique over the DISTINCT ON
// columns); it never hashes.
//
//   SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC
//     ->  Unique  ->  Sort (Sort Key: a, b DESC)      one row per a: the largest b
#pragma once

#include <vector>

#include "engine/plan/order_by.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"

namespace tp {

struct DistinctOn {
  std::vector<int> clause;   // every DISTINCT ON column, in the clause's order (groups)
  std::vector<int> columns;  // those WHERE does not fix (the Unique's keys)
};

// Binds `s.distinct_on` (table columns, output names and positions; an expression is
// refused by name), checks it against ORDER BY and appends to `order` the DISTINCT ON
// columns ORDER BY does not name. `fixed`: the columns WHERE fixes to a constant.
DistinctOn bind_distinct_on(const RelationEntry& rel, const sql::Select& s, const OrderTargets& t,
                            const std::vector<int>& fixed, BoundOrder& order);

}  // namespace tp
