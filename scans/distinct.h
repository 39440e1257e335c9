// The nodes of SELECT DISTINCT (PostgreSQL's nodeUnique.c, nodeAgg.c's hashed strategy
// without aggregates, and the projection Result its planner leaves above a Unique).
//
//   Unique          (sorted input) returns a row when its key slots differ from the
//                   previous row's: one pass, nothing held but that row.
//   HashAggregate   reads every input row into a hash set of its key slots, then returns
//                   each distinct row once (in no particular order). Throws tp::Error
//                   when the set would hold more than `max_bytes` (scans/README.md).
//   Result          returns its child's rows as they are: PostgreSQL's projection of a
//                   scan's physical row to the select list; tidepool's scans already
//                   return only the select list, so there is nothing to compute.
//   OneRowNode      a Sort, Unique or HashAggregate over the one row of a plain Aggregate
//                   (SELECT DISTINCT count(*) ...): each returns that row unchanged, so
//                   this node passes it on under the name and details EXPLAIN shows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/pass_through.h"

namespace tp::scans {

class UniqueNode final : public ExecNode {
 public:
  // `keys` may be empty: then every row equals the first (the DISTINCT columns are all
  // fixed by WHERE), and only the first is returned.
  UniqueNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys);

  std::string explain_name() const override { return "Unique"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::unique_ptr<ExecNode> child_;
  std::vector<uint32_t> keys_;
  RowBatch previous_;                  // the last row returned (none before the first)
  const RowBatch* pending_ = nullptr;  // the child's batch being read, from pending_at_
  uint32_t pending_at_ = 0;
  RowBatch batch_;
};

class HashAggregateNode final : public ExecNode {
 public:
  // `keys`: the slots that make a group; `group_text` is EXPLAIN's "Group Key: b, c";
  // `planned_partitions` what the planner expected to spill into (0: none).
  HashAggregateNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys,
                    std::string group_text, int planned_partitions, uint64_t max_bytes);

  std::string explain_name() const override { return "HashAggregate"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  // Hashes and compares stored rows (indexes into rows_) by the key slots.
  struct RowHash {
    const HashAggregateNode* node;
    size_t operator()(uint32_t row) const;
  };
  struct RowEqual {
    const HashAggregateNode* node;
    bool operator()(uint32_t a, uint32_t b) const;
  };
  static constexpr uint32_t kProbe = UINT32_MAX;  // the input row being looked up
  RowRef row_ref(uint32_t row) const;
  uint64_t memory_bytes() const;
  void read_input();

  std::unique_ptr<ExecNode> child_;
  std::vector<uint32_t> keys_;
  std::string group_text_;
  int planned_partitions_;
  uint64_t max_bytes_;
  std::shared_ptr<const RowShape> shape_;  // the input's slot types
  RowBatch rows_;                          // one row per group
  RowRef probe_{nullptr, nullptr};
  std::unordered_set<uint32_t, RowHash, RowEqual> groups_;
  size_t emitted_ = 0;
  bool filled_ = false;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // memory_bytes(), for the session's figure
  RowBatch batch_;
};

class ResultNode final : public PassThroughNode {
 public:
  // `projects`: it computes the select list (its child, transparent, does the work), so
  // EXPLAIN shows the select list's SubPlans under it.
  explicit ResultNode(std::unique_ptr<ExecNode> child, bool projects = false)
      : PassThroughNode(std::move(child)), projects_(projects) {}

  bool projects() const { return projects_; }
  std::string explain_name() const override { return "Result"; }

 private:
  bool projects_;
};

class OneRowNode final : public PassThroughNode {
 public:
  OneRowNode(std::unique_ptr<ExecNode> child, std::string name, std::string detail)
      : PassThroughNode(std::move(child)), name_(std::move(name)), detail_(std::move(detail)) {}

  std::string explain_name() const override { return name_; }
  void explain_details(std::vector<std::string>& lines, bool) const override {
    if (!detail_.empty()) lines.push_back(detail_);
  }

 private:
  std::string name_;
  std::string detail_;
};

}  // namespace tp::scans
