#include "engine/plan/grouping_nodes.h"

#include "engine/plan/plan_steps.h"
#include "scans/incremental_sort.h"
#include "scans/project.h"
#include "scans/sort_limit_agg.h"

namespace tp {

std::unique_ptr<scans::ExecNode> GroupingNodes::build(std::unique_ptr<scans::ExecNode> node) const {
  if (!computed.empty()) {
    const scans::PlanEstimate e = node->estimate;
    node = std::make_unique<scans::ProjectNode>(std::move(node), computed);
    node->estimate = e;
  }
  if (input_sort == InputSort::kSort)
    node = std::make_unique<scans::SortNode>(std::move(node), sort_keys, sort_text, 0,
                                             kSortMemoryLimitBytes);
  else if (input_sort == InputSort::kIncrementalSort)
    node = std::make_unique<scans::IncrementalSortNode>(
        std::move(node), sort_keys, presorted, sort_text, presorted_text, kSortMemoryLimitBytes);
  if (input_sort != InputSort::kNone) node->estimate = sort_estimate;
  node = std::make_unique<scans::GroupAggNode>(std::move(node), spec);
  node->estimate = agg_estimate;
  if (sort_above) {
    node = std::make_unique<scans::SortNode>(std::move(node), above_keys, above_text, 0,
                                             kSortMemoryLimitBytes);
    node->estimate = above_estimate;
  }
  return node;
}

}  // namespace tp
