// The nodes of one grouping step, between a scan and the rows above the grouping: the
// computed keys and aggregate arguments projected after the scan's slots, the Sort or
// Incremental Sort on the keys, the grouping node (scans/group_agg.h), and (a
// participant under a Gather Merge) a Sort of its groups. A parallel participant builds
// them over its own copy of the scan, so they hold copies, not the planner's state.
//
//   GroupingNodes n; ...; std::unique_ptr<scans::ExecNode> top = n.build(std::move(scan));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/grouping.h"
#include "scans/exec_node.h"
#include "scans/group_agg.h"

namespace tp {

struct GroupingNodes {
  std::vector<std::shared_ptr<const TypedExpr>> computed;
  InputSort input_sort = InputSort::kNone;
  std::vector<scans::SortKey> sort_keys;
  std::string sort_text, presorted_text;
  size_t presorted = 0;
  scans::PlanEstimate sort_estimate, agg_estimate;
  scans::GroupAggSpec spec;
  bool sort_above = false;
  std::vector<scans::SortKey> above_keys;
  std::string above_text;
  scans::PlanEstimate above_estimate;

  std::unique_ptr<scans::ExecNode> build(std::unique_ptr<scans::ExecNode> node) const;
};

}  // namespace tp
