// Incremental Sort as PostgreSQL 15 plans it (create_ordered_paths, costsize.c's
// cost_incremental_sort): over a path already ordered by the first `presorted` keys of
// ORDER BY, one sort per group of equal presorted keys, the groups counted by
// estimate_num_groups (selfuncs.c).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "engine/plan/cost_model.h"
#include "engine/plan/selectivity.h"

namespace tp {

// estimate_num_groups for columns of one table: the product of their distinct counts
// (clamped to the table's rows, or a tenth of them for several columns but never below
// the largest count), thinned for the rows the restrictions keep (`rel_rows` of the
// table's `rel.tuples`), at most `input_rows`. A boolean column among `columns`, and
// each of `boolean_exprs` other boolean grouping expressions, counts two groups apart
// from that; `expr_vars` are the columns other grouping expressions read (counted as
// columns, a boolean one too).
double estimate_num_groups(const RelationStatsView& rel, const std::vector<int>& columns,
                           double input_rows, double rel_rows, int boolean_exprs = 0,
                           const std::vector<int>& expr_vars = {});

// The same over columns of several tables (a join's): each table's distinct counts
// multiplied, clamped and thinned as above with its own tuples and rows, the tables in
// the order given; then the product over them, at most `input_rows`.
struct GroupRel {
  const RelationStatsView* view = nullptr;
  double rel_rows = 0;
  std::vector<int> columns;  // distinct, in the order estimate_num_groups met them
};
double estimate_num_groups(const std::vector<GroupRel>& rels, double input_rows,
                           int boolean_exprs = 0);

// cost_incremental_sort with no extra comparison cost: the first group's sort (of 1.5x the
// average group's rows) and its
// share of the input before the first row, then every other group's, plus a tuple copy
// per row and two per group.
PathCost cost_incremental_sort(const CostSettings& cs, const PathCost& input, double input_groups,
                               int width, double limit_tuples);

// How many leading keys of `order` (table column, descending) a scan of an index on
// `keys` returns in order, the columns in `constant` left out of both (PostgreSQL's
// redundant pathkeys); `backward` says whether that scan runs backward. 0 when none.
size_t index_order_prefix(const std::vector<int>& keys,
                          const std::vector<std::pair<int, bool>>& order,
                          const std::vector<int>& constant, bool& backward);

}  // namespace tp
