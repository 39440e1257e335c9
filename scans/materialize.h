// MaterializeNode: PostgreSQL's Materialize (nodeMaterial.c). Keeps a copy of every row
// its child returns, so that a rescan (a Nested Loop's next outer row) replays them
// instead of running the child again.
//
//   first pass   child row ──> stored (by-reference bytes copied) ──> returned
//   rescan       rows returned from the store, from the first; when the first pass had
//                not reached the child's end, the rest is then read from the child as
//                before (the child is not restarted)
//   rescan with the child's parameters changed (PostgreSQL's chgParam: the generation
//                of `child_params` moved since the rows were stored)
//                store emptied, child rescanned
//
// The store is in memory only, up to `max_bytes` (work_mem, as the planner says; a
// tp::Error naming the limit beyond it). PostgreSQL's tuplestore spills to a temporary
// file there instead: that comes with the temporary-file module the hash join's batches
// need (scans/README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp::scans {

class MaterializeNode final : public ExecNode {
 public:
  // `child_params` (may be null): the parameters the child's subtree reads.
  MaterializeNode(std::unique_ptr<ExecNode> child, uint64_t max_bytes,
                  const ExecParams* child_params = nullptr);

  std::string explain_name() const override { return "Materialize"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  void rescan() override { rescan_counted(); }

  uint64_t peak_bytes() const { return peak_bytes_; }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  void forget_rows();
  void store(const RowBatch& b);

  std::unique_ptr<ExecNode> child_;
  uint64_t max_bytes_;
  const ExecParams* child_params_;
  uint64_t params_generation_ = 0;  // child_params_'s when the stored rows were read
  bool started_ = false;
  RowBatch rows_;         // every row read from the child so far
  uint32_t read_at_ = 0;  // the next stored row to return
  bool child_done_ = false;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // rows_, for the session's figure
  RowBatch batch_;                               // a replayed batch
};

}  // namespace tp::scans
