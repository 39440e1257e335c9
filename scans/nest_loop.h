// NestLoopNode: PostgreSQL's Nested Loop (nodeNestloop.c). For each outer row it sets
// the parameters the inner side reads from that row, rescans the inner side and pairs
// the row with every inner row the join filter accepts.
//
//   outer row o ──> params $i = o[param_slots[i]] ──> inner->rescan() ──> each inner row i:
//                   Join Filter over (o, i)?  inner, left: return (o, i)
//                                             semi: return o, next outer row
//                                             anti: next outer row, o not returned
//                   no inner row passed?      left: (o, NULLs); anti: o
//
// Inner, left, semi and anti joins (PostgreSQL's Nested Loop has no right or full join:
// the planner swaps the sides or picks another method). With `inner_unique` the inner
// scan also stops at the first match. The inner side's loops count one per outer row
// (its first open() included); its rows and Rows Removed figures are per loop in
// EXPLAIN, as in PostgreSQL.
//
//   NestLoopNode nl(std::move(outer), std::move(inner_index_scan), spec, &params, {0});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/join_row.h"
#include "scans/nest_loop_prefetch.h"

namespace tp::scans {

class NestLoopNode final : public ExecNode {
 public:
  // `params` (may be null): what the inner side reads, $i set from outer slot
  // `param_slots[i]` before each inner rescan. spec.type: inner, left, semi or anti.
  NestLoopNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner, JoinSpec spec,
               ExecParams* params = nullptr, std::vector<uint32_t> param_slots = {});
  // The same, owning the parameters (the planner's nested loops: the inner side was
  // built reading `params`).
  NestLoopNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner, JoinSpec spec,
               std::unique_ptr<ExecParams> params, std::vector<uint32_t> param_slots);

  std::string explain_name() const override {
    return join_node_name("Nested Loop", rows_.spec().type);
  }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  // The batching stream's figures (EXPLAIN ANALYZE's Prefetch line), if it ran.
  const bufmgr::ReadStreamStats* stream_stats() const override {
    return prefetch_ ? prefetch_->stream_stats() : nullptr;
  }
  // nestloop_prefetch: look up `rows_ahead` outer rows ahead and read their inner heap
  // blocks through one stream (scans/nest_loop_prefetch.h). False, and nothing changes,
  // when the inner side is not a parameterized Index Scan.
  bool enable_prefetch(int rows_ahead);
  std::vector<const ExecNode*> children() const override { return {outer_.get(), inner_.get()}; }
  // PostgreSQL's ExecReScanNestLoop: only the outer side starts over; the inner one is
  // rescanned at the next outer row anyway.
  void rescan() override { rescan_counted(); }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  // Takes the next outer row and starts the inner scan for it; false at the outer's end.
  bool start_next_outer();

  std::unique_ptr<ExecNode> outer_;
  std::unique_ptr<ExecNode> inner_;
  JoinRows rows_;
  std::unique_ptr<ExecParams> owned_params_;
  ExecParams* params_;
  std::vector<uint32_t> param_slots_;
  const RowBatch* outer_batch_ = nullptr;  // the outer row's batch, valid until outer_->next()
  uint32_t outer_at_ = 0;                  // the next outer row in it
  bool outer_done_ = false;
  bool have_outer_ = false;  // an outer row is being joined
  bool matched_ = false;     // ... and some inner row passed the filter
  const RowBatch* inner_batch_ = nullptr;
  uint32_t inner_at_ = 0;
  bool inner_started_ = false;  // opened once; later outer rows rescan it
  JoinCancelCheck cancel_;
  std::unique_ptr<NestLoopPrefetch> prefetch_;
  RowBatch batch_;
};

}  // namespace tp::scans
