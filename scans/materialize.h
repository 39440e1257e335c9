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
// The store is in memory up to `max_bytes` (work_mem, as the planner says). Beyond it,
// as PostgreSQL's tuplestore, the rows go to a temporary file of `temp_space`
// (aio/temp_file.h) and memory keeps only a tail of at most one batch:
//
//   stored rows   [ file: rows 0 .. spilled_rows_ )[ rows_: the tail, in memory ]
//   file batch    header (rows, NULL flags?, payload bytes) | slots (a by-reference
//                 slot holds its value's size) | NULL flags | values, each 8-aligned
//   replay        file batches read back one at a time into `from_file_` (its arena
//                 holds the bytes), then the tail, then the child as before
//
// Without a space (null) the limit stays an error naming it. The file goes with the
// node, with a changed-parameter rescan, and at once when an error or cancel comes up
// through the node from its child or its file (the stored rows are then forgotten: a
// later rescan starts over); a cancel raised by the node's own poll leaves it to the
// plan's destruction at the statement's end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp::scans {

class MaterializeNode final : public ExecNode {
 public:
  // `child_params` (may be null): the parameters the child's subtree reads.
  // `temp_space` (may be null: no spilling): where rows beyond `max_bytes` go.
  MaterializeNode(std::unique_ptr<ExecNode> child, uint64_t max_bytes,
                  const ExecParams* child_params = nullptr,
                  aio::TempFileSpace* temp_space = nullptr);

  std::string explain_name() const override { return "Materialize"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  void rescan() override { rescan_counted(); }

  uint64_t peak_bytes() const { return peak_bytes_; }
  // The spill file while there is one (null: every stored row is in memory).
  const aio::TempFile* spill_file() const { return file_.get(); }
  // Rows in the spill file.
  uint64_t spilled_rows() const { return spilled_rows_; }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  static constexpr uint32_t kOutputBatchRows = 1024;

  void forget_rows();
  void store(const RowBatch& b);
  const RowBatch* next_stored(uint64_t wanted);
  const RowBatch* replay(const RowBatch& from, uint32_t first, uint64_t wanted);
  // materialize_spill.cc: the file's side.
  void spill_tail();
  void write_file_batch(uint32_t first, uint32_t n);
  void read_file_batch();

  std::unique_ptr<ExecNode> child_;
  uint64_t max_bytes_;
  const ExecParams* child_params_;
  uint64_t params_generation_ = 0;  // child_params_'s when the stored rows were read
  bool started_ = false;
  aio::TempFileSpace* temp_space_;
  RowBatch rows_;         // the rows read from the child after those in the file
  uint64_t read_at_ = 0;  // the next stored row to return (file rows first)
  std::unique_ptr<aio::TempFile> file_;
  uint64_t spilled_rows_ = 0;
  RowBatch from_file_;            // the file batch being replayed
  uint64_t from_file_first_ = 0;  // its first row's number
  std::string spill_buffer_;      // one file batch, written or read
  bool child_done_ = false;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // rows_, for the session's figure
  RowBatch batch_;                               // a replayed batch
};

}  // namespace tp::scans
