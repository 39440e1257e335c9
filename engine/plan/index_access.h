// What the planner needs of a table's B-tree indexes: which clauses an index scan can
// apply, the B-tree conditions they become, the facts an index gives the estimator about
// its leading column, and an index opened over the buffer pool for one query.
#pragma once

#include <vector>

#include "engine/plan/plan_context.h"
#include "engine/plan/selectivity.h"
#include "engine/storage/catalog.h"
#include "scans/index_scan.h"

namespace tp {

// A clause the B-tree scan can apply on one of `key_columns`: a comparison other than <>
// with a constant, or an IN list without NULLs (one scan per element, PostgreSQL's
// `= ANY` index qual).
bool usable_index_clause(const Clause& clause, const std::vector<int>& key_columns);

// The B-tree condition sets for usable index clauses: one set, or one per combination of
// IN-list elements (ascending; descending for a backward scan). Throws tp::Error when
// the IN lists combine into more than 100,000 scans.
scans::ConditionSets condition_sets(const std::vector<Clause>& clauses,
                                    const std::vector<int>& key_columns, bool backward);

// What indexes tell the estimator about column `c`, as PostgreSQL's planner learns it: a
// unique index on exactly the column, and the column's current min and max read from the
// ends of an index that leads with it (get_actual_variable_range), which refine the
// histogram's end buckets.
void describe_from_indexes(PlanContext& ctx, const RelationEntry& table, int c,
                           ColumnStatsView& view);

// `index` of `table` opened over the session's pool, for the scans of one query.
scans::IndexHandle open_index(PlanContext& ctx, const RelationEntry& table,
                              const RelationEntry& index);

}  // namespace tp
