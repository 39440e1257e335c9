// Incremental Sort: its input already comes ordered by the first `presorted` sort keys
// (an index scan on a prefix of ORDER BY), so it sorts one group of rows with equal
// presorted keys at a time by the rest, and returns the first rows after reading only
// their group: `ORDER BY a, b LIMIT 10` over an index on a reads a few rows, not all.
// PostgreSQL 13's node; the plan and its cost are PostgreSQL 15's
// (engine/plan/incremental_sort.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"

namespace tp::scans {

class IncrementalSortNode final : public ExecNode {
 public:
  IncrementalSortNode(std::unique_ptr<ExecNode> child, std::vector<SortKey> keys, size_t presorted,
                      std::string key_text, std::string presorted_text, uint64_t max_bytes);

  std::string explain_name() const override { return "Incremental Sort"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  bool presorted_equal(RowRef a, RowRef b) const;
  bool fill_group();  // reads the next group into group_, sorted; false at the end

  std::unique_ptr<ExecNode> child_;
  std::vector<SortKey> keys_;
  size_t presorted_;
  std::string key_text_;
  std::string presorted_text_;
  uint64_t max_bytes_;
  uint32_t width_ = 0;
  std::shared_ptr<const RowShape> shape_;        // the input's slot types
  RowBatch group_;                               // the current group's rows, sorted
  RowBatch sorted_;                              // group_ being sorted
  RowBatch pending_;                             // the first row of the next group
  TrackedMemory memory_{MemoryPart::kExecutor};  // group_, for the session's figure
  size_t emitted_ = 0;                           // rows of group_ returned
  const RowBatch* in_ = nullptr;                 // the child's batch being read, and its next row
  uint32_t in_row_ = 0;
  bool input_done_ = false;
  uint64_t groups_ = 0;
  uint64_t peak_bytes_ = 0, total_bytes_ = 0;
  RowBatch batch_;
};

}  // namespace tp::scans
