// A table's B-tree indexes opened over the buffer pool at plan time: for the scans of
// one query (open_index), and to read what an index tells the estimator about its
// leading column (describe_from_indexes).
#pragma once

#include <functional>

#include "engine/plan/plan_context.h"
#include "engine/plan/selectivity.h"
#include "engine/storage/catalog.h"
#include "scans/index_scan.h"

namespace tp {

// What indexes tell the estimator about column `c`, as PostgreSQL's planner learns it: a
// unique index on exactly the column, and the column's current min and max read from the
// ends of an index that leads with it (get_actual_variable_range), which refine the
// histogram's end buckets.
void describe_from_indexes(PlanContext& ctx, const RelationEntry& table, int c,
                           ColumnStatsView& view);

// `index` of `table` opened over the session's pool, for the scans of one query.
scans::IndexHandle open_index(PlanContext& ctx, const RelationEntry& table,
                              const RelationEntry& index);

// Whether a heap page of `table` is all-visible, from its visibility map as it is
// now; empty when the map marks no page.
std::function<bool(BlockNumber)> all_visible_pages(Storage& storage, const RelationEntry& table);

// An Index Only Scan of `index` answers the entries on all-visible heap pages from
// the index: the table's visibility map as it is now, and where each key column
// sits in a heap tuple.
void answer_from_index(scans::IndexScanParams& params, Storage& storage, const RelationEntry& table,
                       const RelationEntry& index);

}  // namespace tp
