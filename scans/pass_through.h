// PassThroughNode: a node that hands its child's rows on as they come, one batch per
// call, passing the parent's row limit down. PostgreSQL's plans hold several such nodes
// where tidepool's child does the work itself (a Result whose select list the child
// computes, a Subquery Scan kept for EXPLAIN, a Sort over one row); each names itself.
//
//   class ResultNode final : public PassThroughNode {
//     std::string explain_name() const override { return "Result"; }
//   };
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scans/exec_node.h"

namespace tp::scans {

class PassThroughNode : public ExecNode {
 public:
  explicit PassThroughNode(std::unique_ptr<ExecNode> child) : child_(std::move(child)) {}

  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override { child_->open(); }
  const RowBatch* do_next() override {
    child_->row_limit_hint = row_limit_hint;
    return child_->next();
  }

 private:
  std::unique_ptr<ExecNode> child_;
};

}  // namespace tp::scans
