// The join planner's final ORDER BY, as PostgreSQL's create_ordered_paths costs it:
// the groups an Incremental Sort finds in its presorted keys, and the width a Sort
// carries when select-list columns wait above it (sort_input_target.h).
#pragma once

#include <cstddef>
#include <vector>

#include "engine/plan/join_grouping.h"
#include "engine/plan/join_query.h"
#include "engine/plan/sort_input_target.h"

namespace tp {

// estimate_num_groups over the first `keys` ORDER BY keys of `q` (cost_incremental_sort's
// input groups), `stats` each base relation's statistics and rows.
double presorted_order_groups(const JoinQuery& q, const std::vector<JoinGroupingRel>& stats,
                              size_t keys, double rows);

// The sort's input width under postponed columns, `final_width` the select list's.
int sort_input_width(const JoinQuery& q, const SortInputTarget& t, int final_width);

}  // namespace tp
