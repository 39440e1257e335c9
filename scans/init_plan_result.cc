#include "scans/init_plan_result.h"

namespace tp::scans {

InitPlanResultNode::InitPlanResultNode(std::vector<InitPlan> init_plans,
                                       std::vector<size_t> outputs)
    : init_plans_(std::move(init_plans)), outputs_(std::move(outputs)) {}

std::vector<const ExecNode*> InitPlanResultNode::children() const {
  std::vector<const ExecNode*> out;
  if (handed_over_) return out;
  for (const InitPlan& p : init_plans_) out.push_back(p.plan.get());
  return out;
}

std::vector<std::pair<std::string, const ExecNode*>> InitPlanResultNode::hand_over_init_plans() {
  std::vector<std::pair<std::string, const ExecNode*>> out;
  for (size_t i = 0; i < init_plans_.size(); ++i)
    out.emplace_back(child_label(i), init_plans_[i].plan.get());
  handed_over_ = true;
  return out;
}

std::string InitPlanResultNode::child_label(size_t i) const {
  return "InitPlan " + std::to_string(first_plan_id_ + i) + " (returns $" +
         std::to_string(first_param_ + i) + ")";
}

void InitPlanResultNode::do_open() {
  results_.assign(outputs_.size(), AggState{});
  done_ = false;
}

const RowBatch* InitPlanResultNode::do_next() {
  if (done_) return nullptr;
  done_ = true;
  std::vector<AggState> values(init_plans_.size());
  for (size_t i = 0; i < init_plans_.size(); ++i) {
    ExecNode& plan = *init_plans_[i].plan;
    plan.open();
    if (const RowBatch* b = plan.next(); b != nullptr && b->count > 0) {
      const Datum v = b->row(0)[0];
      values[i].count = 1;
      if (init_plans_[i].typed) {
        // Copied before the plan shuts down (a by-reference value points into its page).
        const TypeInfo& info = type_info(init_plans_[i].type);
        if (info.byval)
          values[i].extreme = v;
        else
          values[i].bytes.assign(datum_pointer(v), datum_ref_size(info.len, v));
      } else {
        values[i].sum = v;
        values[i].min = values[i].max = v;
      }
    }
    plan.shutdown();
  }
  for (size_t o = 0; o < outputs_.size(); ++o) results_[o] = values[outputs_[o]];
  batch_.reset(0, 1);
  batch_.count = 1;
  return &batch_;
}

}  // namespace tp::scans
