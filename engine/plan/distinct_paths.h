// The input relations of SELECT DISTINCT over one table, as PostgreSQL 15 makes them
// (planner.c create_distinct_paths): the table's paths (the scan chooser's serial paths,
// and where add_path keeps them beside those the Gather over the Parallel Seq Scan and
// the Gather Merge sorting it in the DISTINCT order), and the partial distinct relation
// (create_partial_distinct_paths: a HashAggregate in each participant under a Gather).
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

// `paths`: the serial paths in the order made; `partial`: the table's partial path, if
// PostgreSQL would make one. Returns the chosen input built, with `distinct` set.
ChosenScan choose_distinct_scan(PlanContext& ctx, const ScanQuery& q, const RelationStatsView& view,
                                const RelSize& rs, int width, std::vector<DistinctScanPath> paths,
                                const std::optional<PartialScan>& partial);

}  // namespace tp
