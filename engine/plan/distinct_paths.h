// The input relations of SELECT DISTINCT over one table, as PostgreSQL 15 makes them
// (planner.c create_distinct_paths): the table's paths (the scan chooser's serial paths,
// and where add_path keeps them beside those the table's Gather and Gather Merges: over
// the cheapest partial path, sorted in each participant, straight over an ordered
// Parallel Index Scan, or over its Incremental Sort), and the partial distinct relation
// (create_partial_distinct_paths: in each participant a Unique over a partial path in
// the DISTINCT order or a HashAggregate over the cheapest, under a Gather or Gather Merge).
// choose_distinct (engine/plan/distinct.h) weighs the distinct plans over them; this
// file builds the chosen input.
//
//   ChosenScan c = choose_distinct_scan(ctx, query, view, size, width, paths, partial);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/plan/distinct.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/selectivity.h"

namespace tp {

// A serial path of the table as the scan chooser made it.
struct DistinctScanPath {
  DistinctInput input;
  std::function<std::unique_ptr<scans::ExecNode>()> build;
  // The columns PostgreSQL's scan returns as its physical row: an index-only scan's
  // keys, else every table column; empty when its plan returns exactly the select list
  // (a Gather).
  std::vector<int> physical;
};

// A Gather or Gather Merge of the table (allpaths.c generate_useful_gather_paths), as
// the scan chooser made it: `keys`, how many leading DISTINCT keys its rows come in.
struct DistinctGatherPath {
  PathCost cost;
  size_t keys = 0;
  std::function<std::unique_ptr<scans::ExecNode>()> build;
};

// `paths`: the serial paths in the order made; `gathers`: the table's Gather and Gather
// Merges in the order made; `partials`: the table's partial paths as add_partial_path
// kept them (cheapest first). Returns the chosen input built, with `distinct` set.
ChosenScan choose_distinct_scan(PlanContext& ctx, const ScanQuery& q, const RelationStatsView& view,
                                const RelSize& rs, int width, std::vector<DistinctScanPath> paths,
                                const std::vector<DistinctGatherPath>& gathers,
                                const std::vector<PartialScan>& partials);

}  // namespace tp
