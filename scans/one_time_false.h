// Result with a false One-Time Filter: PostgreSQL's gating Result over a scan whose
// restrictions were proven false while planning (`a = 1 AND a = 2`,
// engine/plan/equivalence.h). It returns no row and never starts its child, so
// EXPLAIN ANALYZE prints the child "(never executed)".
//
//   Result  (cost=0.29..8.30 rows=1 width=16)
//     One-Time Filter: false
//     ->  Index Scan using t1_a on t1  (cost=0.29..8.30 rows=1 width=16)
//
// Without a child it is PostgreSQL's dummy relation (restrictions that fold to FALSE or
// NULL): `Result (cost=0.00..0.00 rows=0 width=0)`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scans/exec_node.h"

namespace tp::scans {

class OneTimeFalseNode final : public ExecNode {
 public:
  explicit OneTimeFalseNode(std::unique_ptr<ExecNode> child) : child_(std::move(child)) {}

  std::string explain_name() const override { return "Result"; }
  void explain_details(std::vector<std::string>& lines, bool) const override {
    lines.push_back("One-Time Filter: false");
  }
  std::vector<const ExecNode*> children() const override {
    if (!child_) return {};
    return {child_.get()};
  }

 protected:
  void do_open() override {}
  const RowBatch* do_next() override { return nullptr; }

 private:
  std::unique_ptr<ExecNode> child_;
};

}  // namespace tp::scans
