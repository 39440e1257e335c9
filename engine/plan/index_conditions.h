// From restriction clauses to what a B-tree scan applies: which clauses an index scan
// can use as index conditions, and the B-tree condition sets they become (one per
// combination of IN-list elements, as PostgreSQL's = ANY runs one primitive scan each),
// and the runtime keys of a parameterized scan.
#pragma once

#include <vector>

#include "engine/core/clause.h"
#include "scans/index_scan.h"

namespace tp {

// A clause the B-tree scan can apply on one of `key_columns`: a comparison other than <>
// with a constant, an IN list without NULLs (one scan per element, PostgreSQL's
// `= ANY` index qual), or IS [NOT] NULL.
bool usable_index_clause(const Clause& clause, const std::vector<int>& key_columns);

// Index clauses in the order of the index columns they apply to (clause order within
// one column), as PostgreSQL lists them in an Index Cond.
std::vector<Clause> in_key_order(std::vector<Clause> clauses, const std::vector<int>& key_columns);

// The B-tree condition sets for usable index clauses: one set, or one per combination of
// IN-list elements (ascending; descending for a backward scan). Throws tp::Error when
// the IN lists combine into more than 100,000 scans.
scans::ConditionSets condition_sets(const std::vector<Clause>& clauses,
                                    const std::vector<int>& key_columns, bool backward);

// The parameterized clauses (`column = $param`) among `clauses` as the scan's runtime keys.
std::vector<scans::IndexScanParams::RuntimeKey> runtime_keys(const std::vector<Clause>& clauses,
                                                             const std::vector<int>& key_columns);

}  // namespace tp
