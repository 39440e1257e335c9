// GatherMergeNode: PostgreSQL's Gather Merge. Each participant's copy of the
// plan below it returns rows sorted on the node's keys (a Sort over a Parallel
// Seq Scan); the leader merges the participants' sorted streams into one,
// keeping a binary heap of the participants by their current row (PostgreSQL's
// binaryheap in nodeGatherMerge.c). Participants run through a WorkerGroup
// (scans/worker_group.h): one copy per worker thread, one in the leader when
// parallel_leader_participation is on or no worker could start.
//
//   Merge     the first call reads one batch from every participant (waiting
//             for each worker's first batch), then repeatedly emits the row at
//             the heap's top and advances that participant, waiting for its
//             next batch when the one in hand is used up. Every worker has its
//             own queue, so waiting for one worker while another's queue is
//             full cannot deadlock: the full one is not the one waited for.
//   Ties      rows equal on every key come from the lower participant first
//             (the leader is participant 0), so the output is deterministic
//             for a given split of the blocks.
//   Stopping  as Gather: the first error or cancel stops every worker; a Limit
//             above calls shutdown(); workers' figures reach the leader's copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"
#include "scans/worker_group.h"

namespace tp::scans {

class GatherMergeNode final : public GatheringNode {
 public:
  // Builds the leader's copy now (EXPLAIN shows it); workers' copies on each open().
  // Every copy must return its rows ordered by `keys`.
  GatherMergeNode(ParticipantBuilder build, GatherParams params, std::vector<SortKey> keys);

  std::string explain_name() const override { return "Gather Merge"; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  // One participant's stream: the batch in hand and the next row in it.
  struct Input {
    int worker = -1;                  // the worker's index; -1: the leader's copy
    const RowBatch* batch = nullptr;  // the leader's batch, or &owned
    RowBatch owned;                   // a batch taken from the worker's queue
    uint32_t pos = 0;
    bool done = false;
  };

  // Gets the input's next batch (waiting for its worker); false at its end.
  bool fill(Input& in);
  // Moves past the row just emitted; false when the input has ended.
  bool advance(Input& in);
  // Whether input x's current row sorts after input y's (the heap's order).
  bool after(size_t x, size_t y) const;
  void start_merge();
  // Runs `f`, stopping every worker when it throws.
  template <typename F>
  auto guarded(F f) -> decltype(f());

  std::vector<SortKey> keys_;
  std::vector<Input> inputs_;
  std::vector<size_t> heap_;  // indexes into inputs_, a min-heap by current row
  bool started_ = false;
  RowBatch out_;
};

}  // namespace tp::scans
