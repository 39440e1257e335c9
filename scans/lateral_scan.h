// LateralScanNode: a LATERAL subquery's own plan as the inner side of a Nested Loop
// (PostgreSQL's Subquery Scan, which setrefs removes from the plan as trivial). The
// subquery's plan reads its outer columns from parameters of its own; before each
// rescan this node copies the Nested Loop's current values into them, then hands up
// the subquery's output columns in the order the join reads them.
//
//   LateralScanNode n(std::move(plan_root), &loop_params, std::move(sub_params), {slot_of_y});
//   // the Nested Loop sets loop_params from its outer row, then n.rescan()
//
// EXPLAIN does not show it: the subquery's top node stands for it, with its own loops.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp::scans {

// It is the ParamSource (engine/core/typed_expr.h) while its child runs: a Filter of the
// subquery's plan reads the outer columns (kParam slots from `slot_base`) from it, and
// other parameters from the source around it.
class LateralScanNode final : public ExecNode, public ParamSource {
 public:
  // `from` and `to` hold the same parameters in the same order; `slots` are the
  // subquery's output columns in its rows, in the order this node returns them.
  // It owns `to`, which the child's nodes read. `to` may hold more: one per `derived`
  // expression, each over `from`'s values as a row (an index key's cast of an outer
  // column), computed at every rescan.
  LateralScanNode(std::unique_ptr<ExecNode> child, const ExecParams* from,
                  std::unique_ptr<ExecParams> to, std::vector<uint32_t> slots, uint32_t slot_base,
                  std::string prefix_table = {}, std::vector<std::string> prefix_columns = {},
                  std::vector<TypedExpr> derived = {});

  Datum param(uint32_t id, bool& isnull) override;
  Datum subplan(uint32_t id, const Datum* args, const bool* arg_nulls, bool& isnull) override;

  std::string explain_name() const override { return child_->explain_name(); }
  void explain_details(std::vector<std::string>&, bool) const override {}
  bool explain_transparent() const override { return true; }
  bool upper_prefix(std::string& table, std::vector<std::string>& columns) const override {
    table = prefix_table_;
    columns = prefix_columns_;
    return !table.empty();
  }
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  void copy_params();

  std::unique_ptr<ExecNode> child_;
  const ExecParams* from_;
  std::unique_ptr<ExecParams> to_;
  std::vector<uint32_t> slots_;
  uint32_t slot_base_;
  ParamSource* around_ = nullptr;  // the source current when the child was entered
  std::string prefix_table_;
  std::vector<std::string> prefix_columns_;
  std::vector<TypedExpr> derived_;
  std::vector<Datum> outer_values_;  // from's values as a row, for derived_
  std::unique_ptr<bool[]> outer_nulls_;
  ValueArena derived_bytes_;
  RowBatch batch_;
  std::shared_ptr<const RowShape> in_shape_;  // the child shape shape_ was made for
  std::shared_ptr<const RowShape> shape_;
};

}  // namespace tp::scans
