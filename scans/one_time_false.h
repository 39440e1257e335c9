// Result nodes with no scan below them.
//
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
#include "scans/row_batch.h"

namespace tp::scans {

class OneTimeFalseNode final : public ExecNode {
 public:
  // `null`: the filter is a NULL (a subquery's `WHERE NULL` beside restrictions from
  // outside it), shown as `One-Time Filter: NULL::boolean`.
  explicit OneTimeFalseNode(std::unique_ptr<ExecNode> child, bool null = false)
      : child_(std::move(child)), null_(null) {}

  std::string explain_name() const override { return "Result"; }
  void explain_details(std::vector<std::string>& lines, bool) const override {
    lines.push_back(null_ ? "One-Time Filter: NULL::boolean" : "One-Time Filter: false");
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
  bool null_ = false;
};

// The Result of a SELECT without FROM (`EXPLAIN SELECT 1`): one row, whose values the
// statement computes itself; the node carries its estimate and ANALYZE's counts.
//
//   Result  (cost=0.00..0.01 rows=1 width=4)
class OneRowResultNode final : public ExecNode {
 public:
  std::string explain_name() const override { return "Result"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {}; }

 protected:
  void do_open() override { done_ = false; }
  const RowBatch* do_next() override {
    if (done_) return nullptr;
    done_ = true;
    batch_.reset(0, 1);
    batch_.count = 1;
    return &batch_;
  }

 private:
  bool done_ = false;
  RowBatch batch_;
};

}  // namespace tp::scans
