// GatherNode: PostgreSQL's Gather over a parallel plan. The plan below it (a
// Parallel Seq Scan, perhaps under a Partial Aggregate) runs once per
// participant through a WorkerGroup (scans/worker_group.h): one copy on each
// worker thread, and one in the leader (the thread that runs the statement)
// when parallel_leader_participation is on or no worker could start.
//
//   Leader    returns queued batches first, taking the workers' queues
//             round-robin; when none is queued it runs its own copy for one
//             batch (if it participates), else waits for any worker.
//   Errors    the first exception of any participant stops every worker and
//             is rethrown by the leader.
//   End       every worker joined, its figures added to the leader's copy
//             (EXPLAIN ANALYZE says how many started: Workers Launched).
#pragma once

#include <string>
#include <vector>

#include "scans/exec_node.h"
#include "scans/worker_group.h"

namespace tp::scans {

class GatherNode final : public GatheringNode {
 public:
  using GatheringNode::GatheringNode;

  std::string explain_name() const override { return "Gather"; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  bool leader_runs_ = false;  // the leader runs its copy this loop
  bool leader_done_ = false;  // ... and has run it to the end
  RowBatch current_;          // the batch taken from a queue last
};

}  // namespace tp::scans
