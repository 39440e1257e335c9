// The dummy relation's plan, apart from the scan chooser (scan_choice.h declares it).
#include "engine/plan/scan_choice.h"

#include <memory>

#include "engine/plan/distinct_paths.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/statistics.h"
#include "scans/one_time_false.h"

namespace tp {

// A dummy relation's plan: Result (cost=0.00..0.00 rows=0 width=0) with a false
// One-Time Filter and no scan below. Its columns were never measured, so the nodes
// above size its rows by the types' default widths (set_pathtarget_cost_width without
// attr_widths).
ChosenScan empty_scan(PlanContext& ctx, const ScanQuery& q) {
  int width = q.computed_width;
  for (size_t i = 0; i < q.scan_columns.size() && i < q.width_columns; ++i)
    width += column_avg_width(q.rel->columns[size_t(q.scan_columns[i])]);
  const auto build = [] {
    auto node = std::make_unique<scans::OneTimeFalseNode>(nullptr);
    node->estimate = {0, 0, 0, 0};
    return node;
  };
  if (q.distinct) {
    // DISTINCT still plans its Unique or HashAggregate over the empty input (one group).
    RelationStatsView view;
    view.columns.resize(q.rel->columns.size());
    for (size_t c = 0; c < q.rel->columns.size(); ++c)
      view.columns[c].type = q.rel->columns[c].type;
    DistinctScanPath path{{PathCost{0, 0, 0}, false, true}, build, {}};
    ChosenScan chosen = choose_distinct_scan(ctx, q, view, RelSize{}, width, {path}, {}, {});
    chosen.node->estimate.width = 0;
    return chosen;
  }
  ChosenScan chosen;
  chosen.node = build();
  chosen.path = PathCost{0, 0, 0};
  chosen.width = width;
  return chosen;
}

}  // namespace tp
