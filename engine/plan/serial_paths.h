// Which path of a table PostgreSQL's planner ends with, level by level as its add_path
// keeps them (pathnode.c's fuzzy comparison: within 1% on total cost the better startup
// wins; on a tie the parallel-safe path): the table's paths, serial ones and the
// Gather and Gather Merge paths over its partial paths (set_cheapest then takes the
// cheapest total), for an ORDER BY the ordered relation (each path already in order, a
// Sort over the cheapest, an Incremental Sort over each partly ordered one, then the
// Gather Merges create_ordered_paths adds over sorted partial paths), and under a LIMIT
// the final relation; the cheapest total at the top wins.
//
//   std::optional<SerialChoice> c = choose_serial_path(paths, query);
//   paths[c->path], under c->kind; c->finished.total: with the Sort and Limit
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "engine/plan/cost_model.h"

namespace tp {

// A serial path of the table: its cost and how many leading ORDER BY keys it gives.
struct TablePath {
  PathCost cost;
  size_t keys = 0;
  bool parallel_safe = true;  // false: a Gather or Gather Merge
  // A forward index scan: the index's key columns, the order its rows come in (what a
  // join above weighs for a merge join).
  std::vector<int> index_columns;
  // The index scanned backward (for a join's ORDER BY ... DESC): its rows come in the
  // columns' descending order, NULLs first.
  bool backward = false;
};

struct SerialQuery {
  size_t order_keys = 0;   // ORDER BY keys (0: none)
  bool aggregate = false;  // an Aggregate reads the path: the cheapest total, nothing above
  std::optional<double> limit_rows;
  std::function<PathCost(const PathCost&)> sort;  // the Sort over a path, with the LIMIT bound
  // The Incremental Sort over `keys` presorted; empty: enable_incremental_sort is off.
  std::function<PathCost(const PathCost&, size_t)> incremental_sort;
  // Paths in the order that create_ordered_paths adds straight to the ordered relation,
  // after those over the table's paths (a Gather Merge over each participant's sorted
  // share, bounded by the LIMIT): parallel-unsafe.
  std::vector<PathCost> ordered_extra;
  // The paths' costs with the select list computed on them (apply_scanjoin_target_to_paths),
  // when `paths` hold them without it: add_path weighs the relation's paths as they are,
  // the rest of the choice as projected. Empty: `paths` hold the projected costs.
  std::vector<PathCost> projected;
};

struct SerialChoice {
  enum class Kind { kAsIs, kSort, kIncrementalSort, kOrderedExtra };
  size_t path = 0;  // into the paths; kOrderedExtra: into q.ordered_extra
  Kind kind = Kind::kAsIs;
  PathCost top;       // the path, or the (Incremental) Sort over it
  PathCost finished;  // with the Limit
};

// None when there is no path.
std::optional<SerialChoice> choose_serial_path(const std::vector<TablePath>& paths,
                                               const SerialQuery& q);

}  // namespace tp
