// ProjectNode: a select list's computed columns (`a + 1`, `t || 'x'`, `round(n, 2)`)
// over its child's rows. PostgreSQL's scan nodes project their target list themselves,
// so EXPLAIN shows no node for it: this one is transparent there (its child's line and
// figures stand for it), and the planner adds the expressions' cost to the child's.
//
//   ProjectNode p(std::move(scan), {expr_over_scan_slots});
//   // each row: the scan's slots, then one slot per expression
#pragma once

#include <memory>
#include <vector>

#include "engine/core/typed_expr.h"
#include "scans/exec_node.h"

namespace tp::scans {

class ProjectNode final : public ExecNode {
 public:
  // `exprs` read the child's slots; their values follow those slots in each row.
  ProjectNode(std::unique_ptr<ExecNode> child, std::vector<std::shared_ptr<const TypedExpr>> exprs);

  std::string explain_name() const override { return child_->explain_name(); }
  void explain_details(std::vector<std::string>&, bool) const override {}
  bool explain_transparent() const override { return true; }
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::shared_ptr<const RowShape> shape_for(const RowBatch& in);

  std::unique_ptr<ExecNode> child_;
  std::vector<std::shared_ptr<const TypedExpr>> exprs_;
  RowBatch batch_;
  std::shared_ptr<const RowShape> in_shape_;  // the child shape shape_ was made for
  std::shared_ptr<const RowShape> shape_;
  int64_t statement_time_ = 0;
  std::unique_ptr<bool[]> flags_;  // a row's NULL flags as the evaluator reads them
  uint32_t flags_size_ = 0;
};

}  // namespace tp::scans
