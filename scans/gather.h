// GatherNode: PostgreSQL's Gather over a parallel plan. The plan below it (a
// Parallel Seq Scan, perhaps under a Partial Aggregate) is built once per
// participant: one copy runs on each worker thread, and one in the leader (the
// thread that runs the statement) when parallel_leader_participation is on or
// no worker could start. Workers are threads of this process: they share the
// buffer pool and the I/O system, each with its own I/O handles, pins, read
// stream and ring. The copies share one ParallelBlocks, so every block of the
// table is read by exactly one participant.
//
//   Workers   open their copy, push each batch into the Gather's queue (a
//             bounded queue: a worker waits while it is full), and end: at
//             the end of their copy, on the first error of any participant,
//             or when the leader stops early (a Limit above, an error). A
//             worker releases its pins and I/O handles on its own thread
//             (pins are per thread), after copying out its instrumentation.
//   Leader    returns queued batches first; when none is queued it runs its
//             own copy for one batch (if it participates), else waits.
//   Errors    the first exception of any worker (a read error, a cancel) is
//             rethrown by the leader; the others stop at their next batch.
//             Cancels reach workers through the leader's statement cancel flag.
//   End       every worker joined: its rows, loops, time, buffers and read
//             stream figures are added to the leader's copy of each node, as
//             PostgreSQL sums workers' instrumentation, and its buffer usage
//             to the leader thread's (so Gather and the nodes above count it).
//
// Worker threads come from a ParallelWorkerSlots (max_parallel_workers over
// the whole Database): fewer may start than planned, as in PostgreSQL, and
// EXPLAIN ANALYZE says how many did (Workers Launched).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scans/exec_node.h"
#include "scans/parallel_blocks.h"

namespace tp::scans {

// The worker threads in use by all Gather nodes of one Database, against the
// max_parallel_workers limit of the session that asks (PostgreSQL's
// max_parallel_workers is a per-session setting over a shared count).
class ParallelWorkerSlots {
 public:
  // Takes up to `wanted` slots while fewer than `limit` are in use; returns how many.
  int reserve(int wanted, int limit);
  void release(int n) { in_use_.fetch_sub(n, std::memory_order_acq_rel); }
  int in_use() const { return in_use_.load(std::memory_order_acquire); }

 private:
  std::atomic<int> in_use_{0};
};

// Builds one participant's copy of the plan below the Gather; every copy reads
// its table's blocks from `blocks`.
using ParticipantBuilder = std::function<std::unique_ptr<ExecNode>(ParallelBlocks& blocks)>;

struct GatherParams {
  BlockNumber nblocks = 0;               // the parallel scan's table size, in blocks
  int workers_planned = 0;               // EXPLAIN's Workers Planned
  bool leader_participation = true;      // parallel_leader_participation
  ParallelWorkerSlots* slots = nullptr;  // null: no shared limit
  int max_parallel_workers = 8;          // the limit on `slots`
};

class GatherNode final : public ExecNode {
 public:
  // Builds the leader's copy now (EXPLAIN shows it); workers' copies on each open().
  GatherNode(ParticipantBuilder build, GatherParams params);
  // Stops and joins every worker still running.
  ~GatherNode() override;

  std::string explain_name() const override { return "Gather"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {leader_copy_.get()}; }

  int workers_planned() const { return params_.workers_planned; }
  int workers_launched() const { return launched_; }

  // Stops the workers (a Limit above has its rows) and collects their figures.
  void shutdown() override;

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  struct Worker;

  void start_workers();
  void run_worker(Worker& w, std::atomic<bool>* cancel);
  // A worker's batch into the queue; false when the workers are told to stop.
  bool push(const RowBatch& b);
  // Pops a queued batch into current_ (returns true); with `wait`, waits for
  // one unless every worker has ended or one failed.
  bool take_queued(bool wait);
  // Joins every worker, adds its instrumentation to the leader's copy and its
  // buffer usage to this thread's, and gives back the worker slots.
  void end_workers();
  // Tells the workers to stop, then ends them.
  void stop_workers();
  // Ends the workers and rethrows the first worker's error, if there was one.
  void rethrow_worker_error();

  ParticipantBuilder build_;
  GatherParams params_;
  ParallelBlocks blocks_;
  std::unique_ptr<ExecNode> leader_copy_;
  bool leader_runs_ = false;  // the leader runs its copy this loop
  bool leader_done_ = false;  // ... and has run it to the end
  int launched_ = 0;
  int reserved_ = 0;  // slots taken from params_.slots, given back at the end

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;                  // guards the queue, free list, running count, error
  std::condition_variable queue_cv_;  // leader waits: a batch queued or a worker ended
  std::condition_variable space_cv_;  // workers wait: room in the queue or stop
  std::deque<RowBatch> queue_;
  size_t queue_capacity_ = 0;      // set before the workers start
  std::vector<RowBatch> free_;     // batches the leader handed back, for reuse
  int running_ = 0;                // workers not yet ended
  std::exception_ptr error_;       // the first worker error
  std::atomic<bool> stop_{false};  // leader or an error: workers end at the next batch
  RowBatch current_;               // the batch returned last
  bool holding_ = false;           // current_ came from the queue
};

}  // namespace tp::scans
