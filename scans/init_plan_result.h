// Result over InitPlans: PostgreSQL's plan for min() and max() that an index can answer
// (planagg.c). Each InitPlan is a `Limit 1` over a scan returning one column in the
// aggregate's order, with `col IS NOT NULL` among its conditions; the Result runs each
// once and its one row is their first values (NULL where a scan returned nothing).
//
//   Result  (cost=0.32..0.33 rows=1 width=4)
//     InitPlan 1 (returns $0)
//       ->  Limit  ...
//             ->  Index Only Scan using t1_a on t1 ...
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"

namespace tp::scans {

class InitPlanResultNode final : public ExecNode, public AggregateResults {
 public:
  struct InitPlan {
    std::unique_ptr<ExecNode> plan;  // one column: slot 0 of its rows
    TypeId type = TypeId::kInt8;     // the column's
    bool typed = false;              // the value goes to AggState's extreme (typed_agg.h)
  };
  // `outputs[i]` is the InitPlan output column i returns ($n of EXPLAIN).
  InitPlanResultNode(std::vector<InitPlan> init_plans, std::vector<size_t> outputs);

  std::string explain_name() const override { return "Result"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override;
  std::string child_label(size_t i) const override;
  // For the plan's top to show (ExecNode::shown_init_plans): the InitPlans with their
  // labels; this node then shows none itself (it still runs them).
  std::vector<std::pair<std::string, const ExecNode*>> hand_over_init_plans();
  // Inside a subquery that is itself an InitPlan, its InitPlans are numbered after those
  // the statement made before (PostgreSQL numbers plans and $n across the statement).
  void number_from(size_t plan_id, size_t param) {
    first_plan_id_ = plan_id;
    first_param_ = param;
  }
  size_t init_plan_count() const { return init_plans_.size(); }
  // Which InitPlan ($n) each aggregate of the select list reads.
  const std::vector<size_t>& outputs() const { return outputs_; }
  // Output column i as an aggregate's state: count 1 and min = max = the value, or
  // count 0 (NULL) when its InitPlan returned no row.
  const std::vector<AggState>& results() const override { return results_; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::vector<InitPlan> init_plans_;
  std::vector<size_t> outputs_;
  bool handed_over_ = false;
  size_t first_plan_id_ = 1;
  size_t first_param_ = 0;
  std::vector<AggState> results_;
  bool done_ = false;
  RowBatch batch_;
};

}  // namespace tp::scans
