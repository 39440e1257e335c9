// WorkerGroup: the parallel workers of one Gather or Gather Merge. The plan
// below the gathering node is built once per participant with a
// ParticipantBuilder: the leader's copy at construction (EXPLAIN shows it), one
// copy per worker thread at each start(). Workers are threads of this process:
// they share the buffer pool and the I/O system, each with its own I/O handles,
// pins, read stream and ring. The copies share one ParallelBlocks, so every
// block of the table is read by exactly one participant.
//
//   Workers   open their copy and push a copy of each batch into their OWN
//             bounded queue (a worker waits only while its queue is full, so
//             a leader waiting for one particular worker, as a merge does,
//             cannot deadlock); they end at the end of their copy, on the
//             first error of any participant, or when the leader stops them.
//             A worker releases its pins and I/O handles on its own thread
//             (pins are per thread), after copying out its instrumentation.
//   Leader    takes batches from any queue (Gather, round-robin) or from one
//             worker's (Gather Merge), and runs its own copy (the node does).
//   Errors    the first exception of any worker (a read error, a cancel) is
//             rethrown by the leader; the others stop at their next batch.
//             Cancels reach workers through the leader's statement cancel flag.
//   End       every worker joined: its rows, loops, time, buffers and read
//             stream figures are added to the leader's copy of each node, as
//             PostgreSQL sums workers' instrumentation, and its buffer usage
//             to the leader thread's (so the nodes above count it).
//
// Worker threads come from a ParallelWorkerSlots (max_parallel_workers over
// the whole Database): fewer may start than planned, as in PostgreSQL.
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
#include "scans/parallel_shared.h"

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
// its table's blocks from `blocks`. A worker's copy may be null: that worker does not
// start this run (as when no thread can be had), the others and the leader do its share.
using ParticipantBuilder = std::function<std::unique_ptr<ExecNode>(ParallelBlocks& blocks)>;

struct GatherParams {
  BlockNumber nblocks = 0;               // the parallel scan's table size, in blocks
  int workers_planned = 0;               // EXPLAIN's Workers Planned
  bool leader_participation = true;      // parallel_leader_participation
  ParallelWorkerSlots* slots = nullptr;  // null: no shared limit
  int max_parallel_workers = 8;          // the limit on `slots`
  // What the participants' scans share besides the blocks (a parallel index or bitmap
  // heap scan's); reset with the blocks at each start. Null for a Parallel Seq Scan.
  std::shared_ptr<ParallelShared> shared;
};

class WorkerGroup {
 public:
  WorkerGroup(ParticipantBuilder build, GatherParams params);
  // Stops and joins every worker still running (never throws).
  ~WorkerGroup();

  ExecNode& leader_copy() { return *leader_copy_; }
  const ExecNode* leader_copy_ptr() const { return leader_copy_.get(); }
  const GatherParams& params() const { return params_; }
  int launched() const { return launched_; }
  // The leader runs its copy: parallel_leader_participation, or no worker started
  // (PostgreSQL's need_to_scan_locally). Valid after start().
  bool leader_runs() const { return params_.leader_participation || launched_ == 0; }

  // Ends the previous run's workers, resets the shared blocks and starts the workers.
  void start();

  // A queued batch of worker `i` into `out` (the previous `out` is recycled);
  // false when none is queued.
  bool try_take(int i, RowBatch& out);
  // A queued batch of any worker, trying them round-robin.
  bool try_take_any(RowBatch& out);
  // Waits until worker `i` has a batch queued (true) or has ended with none left
  // (false); rethrows the first worker error instead.
  bool wait_for(int i);
  // Waits until some worker has a batch queued (true) or all have ended with none
  // left (false); rethrows the first worker error instead.
  bool wait_any();
  // Hands a batch taken from a queue back for reuse.
  void recycle(RowBatch& b);

  // Ends the workers and rethrows the first worker's error, if there was one.
  void rethrow_error();
  // Tells the workers to stop, then joins them and collects their figures.
  void stop();

 private:
  struct Worker;

  void run_worker(Worker& w, std::atomic<bool>* cancel);
  bool push(Worker& w, const RowBatch& b);
  bool pop_locked(Worker& w, RowBatch& out);
  // Joins every worker, adds its instrumentation to the leader's copy and its
  // buffer usage to this thread's, and gives back the worker slots.
  void end_workers();
  bool error_locked() const { return error_ != nullptr; }

  ParticipantBuilder build_;
  GatherParams params_;
  ParallelBlocks blocks_;
  std::unique_ptr<ExecNode> leader_copy_;
  int launched_ = 0;
  int reserved_ = 0;  // slots taken from params_.slots, given back at the end
  size_t next_ = 0;   // try_take_any's round-robin position

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;                  // guards the queues, free list, ended flags, error
  std::condition_variable ready_cv_;  // leader waits: a batch queued or a worker ended
  std::vector<RowBatch> free_;        // batches the leader handed back, for reuse
  std::exception_ptr error_;          // the first worker error
  std::atomic<bool> stop_{false};     // leader or an error: workers end at the next batch
};

// What Gather and Gather Merge share: the worker group, the leader's copy as the
// one child EXPLAIN shows, "Workers Planned" / "Workers Launched", and shutdown.
class GatheringNode : public ExecNode {
 public:
  // Builds the leader's copy now (EXPLAIN shows it); workers' copies on each open().
  GatheringNode(ParticipantBuilder build, GatherParams params) : group_(std::move(build), params) {}

  // "Workers Planned: N" and, with ANALYZE, "Workers Launched: N".
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {group_.leader_copy_ptr()}; }

  int workers_planned() const { return group_.params().workers_planned; }
  int workers_launched() const { return group_.launched(); }

  // Stops the workers (a Limit above has its rows) and collects their figures;
  // as PostgreSQL's ExecShutdownNode, the workers' buffer usage joined here
  // counts as this node's too.
  void shutdown() override;

 protected:
  WorkerGroup group_;
};

}  // namespace tp::scans
