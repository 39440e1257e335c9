// MergeJoinNode: PostgreSQL's Merge Join (nodeMergejoin.c) over two inputs sorted on the
// merge keys (a Sort, or an index scan in key order), read in one pass each.
//
//   outer row o     inner side
//   ───────────     ──────────────────────────────────────────────────────────────────
//   o < group       o matches nothing (the group waits for the next outer row)
//   o = group       o against every row of the group, then the Join Filter
//   o > group       the group is done (right / full: its unmatched rows returned);
//                   inner rows below o are skipped (right / full: returned unmatched),
//                   the rows equal to the first one >= o become the new group
//
// The group is the inner side's current run of rows with equal keys, copied into the
// node: each outer row of an equal run of outer keys is joined with all of it, so
// duplicates on both sides give the cross product of the two runs. PostgreSQL gets the
// same rows by marking the inner scan at the run's start and restoring it for each
// outer row (ExecMarkPos / ExecRestrPos on the child, a Materialize when the child
// cannot); mark and restore on the child itself, which matters for prefetching (a
// restored index scan re-reads pages its stream has passed), comes with the planner
// work. The group is bounded by `max_bytes` (a tp::Error naming it).
//
// A NULL key never matches; such rows are unmatched wherever they sort (so NULLs first
// or last need no special case here; the key's nulls order is the inputs' and kept for
// EXPLAIN and the planner). Inner, left, right, full, semi and anti joins; semi and anti
// stop at the first match, as every join does with `inner_unique`. The outer and inner
// key of a pair must be of the same type, or both integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/join_row.h"

namespace tp::scans {

// One merge key: the slots compared on each side and the order both inputs are in.
struct MergeKey {
  uint32_t outer_slot = 0;
  uint32_t inner_slot = 0;
  bool descending = false;
  bool nulls_first = false;
};

class MergeJoinNode final : public ExecNode {
 public:
  // `merge_cond` is EXPLAIN's "Merge Cond:"; `max_bytes` bounds the inner group.
  MergeJoinNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner, JoinSpec spec,
                std::vector<MergeKey> keys, std::string merge_cond, uint64_t max_bytes);

  std::string explain_name() const override { return join_node_name("Merge", rows_.spec().type); }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {outer_.get(), inner_.get()}; }
  // PostgreSQL's ExecReScanMergeJoin: both sides start over.
  void rescan() override { rescan_counted(); }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  // Where the join is; each step returns at most one row.
  enum class Step : uint8_t {
    kNextOuter,   // take the next outer row
    kPlace,       // find the outer row's group of inner rows
    kJoinGroup,   // the outer row against the group's rows from group_at_
    kEndOuter,    // the outer row is done: unmatched -> returned (left, full, anti)
    kFlushGroup,  // right / full: the finished group's unmatched rows, then after_flush_
    kDrainInner,  // right / full after the outer's end: the rest of the inner side
    kDone,
  };
  void reset_state();
  void step();
  void next_outer();   // kNextOuter
  void place_outer();  // kPlace
  void join_group();   // kJoinGroup
  // The inner row at the read position (reading a batch when needed); false at the end.
  bool peek_inner(RowRef& row);
  void advance_inner() { ++inner_at_; }
  bool null_key(RowRef r, bool outer) const;
  // Order of `a`'s keys against `b`'s (outer or inner slots each), neither NULL.
  int compare(RowRef a, bool a_outer, RowRef b, bool b_outer) const;
  void load_group();
  void emit_inner_unmatched(RowRef inner);

  std::unique_ptr<ExecNode> outer_;
  std::unique_ptr<ExecNode> inner_;
  JoinRows rows_;
  std::vector<MergeKey> keys_;
  std::string merge_cond_;
  uint64_t max_bytes_;
  std::shared_ptr<const RowShape> inner_shape_;  // the spec's inner types: the group's shape
  std::vector<TypeId> key_types_;  // per key: its type, kInt8 for any integer (compare())
  Step step_ = Step::kNextOuter;
  Step after_flush_ = Step::kPlace;
  const RowBatch* outer_batch_ = nullptr;
  uint32_t outer_at_ = 0;
  bool outer_done_ = false;
  RowRef outer_row_{nullptr, nullptr};  // the current outer row (in outer_batch_)
  bool matched_ = false;
  const RowBatch* inner_batch_ = nullptr;
  uint32_t inner_at_ = 0;
  bool inner_done_ = false;
  RowBatch group_;                      // the current group of equal inner keys
  std::vector<uint8_t> group_matched_;  // right / full: per group row
  uint32_t group_at_ = 0;
  uint32_t flush_at_ = 0;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // group_, for the session's figure
  JoinCancelCheck cancel_;
  RowBatch batch_;
};

}  // namespace tp::scans
