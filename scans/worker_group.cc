#include "scans/worker_group.h"

#include <algorithm>
#include <optional>
#include <system_error>

#include "bufmgr/buffer_usage.h"
#include "engine/core/interrupts.h"
#include "engine/core/io_trace.h"
#include "engine/core/stream_gauges.h"
#include "engine/core/typed_expr.h"

namespace tp::scans {

namespace {

// Batches a worker may have queued before it waits for the leader: enough to
// keep every worker reading while the leader is busy with its own copy.
constexpr size_t kQueuedBatchesPerWorker = 8;

// The nodes of a tree in pre-order: a worker's copy has the leader's shape.
void preorder(ExecNode& n, std::vector<ExecNode*>& out) {
  out.push_back(&n);
  for (ExecNode* c : n.mutable_children()) preorder(*c, out);
}

}  // namespace

int ParallelWorkerSlots::reserve(int wanted, int limit) {
  int used = in_use_.load(std::memory_order_acquire);
  for (;;) {
    int n = std::min(wanted, std::max(0, limit - used));
    if (n <= 0) return 0;
    if (in_use_.compare_exchange_weak(used, used + n, std::memory_order_acq_rel)) return n;
  }
}

struct WorkerGroup::Worker {
  std::unique_ptr<ExecNode> tree;  // built by the leader; ended on the worker's thread
  std::thread thread;
  // Guarded by the group's mutex.
  std::deque<RowBatch> queue;
  bool ended = false;
  std::condition_variable space_cv;  // the worker waits: room in its queue, or stop
  // Written by the worker before it ends, read by the leader after join().
  std::vector<NodeInstrumentation> instr;  // pre-order, as the tree's nodes
  bufmgr::BufferUsage usage;               // the worker thread's, for the whole run
};

WorkerGroup::WorkerGroup(ParticipantBuilder build, GatherParams params)
    : build_(std::move(build)), params_(params), blocks_(params.nblocks) {
  leader_copy_ = build_(blocks_);
}

WorkerGroup::~WorkerGroup() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; the statement has ended anyway
  }
}

void WorkerGroup::start() {
  stop();  // a rescan: the previous run's workers must be done with the blocks
  error_ = nullptr;
  blocks_.reset();
  stop_.store(false, std::memory_order_relaxed);
  launched_ = 0;
  next_ = 0;
  int wanted = params_.workers_planned;
  int granted =
      params_.slots ? params_.slots->reserve(wanted, params_.max_parallel_workers) : wanted;
  reserved_ = granted;
  // Before any participant opens its scan (threads started below see it). If fewer
  // threads start than were granted, the participants that run take a bigger share.
  const int participants = std::max(1, granted + (params_.leader_participation ? 1 : 0));
  blocks_.set_participants(participants);
  if (params_.shared) params_.shared->reset(participants);
  std::vector<ExecNode*> leader_nodes;
  preorder(*leader_copy_, leader_nodes);
  std::atomic<bool>* cancel = statement_cancel_flag();
  try {
    for (int i = 0; i < granted; ++i) {
      auto w = std::make_unique<Worker>();
      w->tree = build_(blocks_);
      if (!w->tree) break;  // no copy for this run: as a worker that cannot start
      std::vector<ExecNode*> nodes;
      preorder(*w->tree, nodes);
      for (size_t k = 0; k < nodes.size() && k < leader_nodes.size(); ++k)
        nodes[k]->instr.timing = leader_nodes[k]->instr.timing;
      Worker* wp = w.get();
      {
        // Registered before its thread runs: the thread reads workers_ never,
        // but the leader's waits look at every registered worker.
        std::lock_guard lock(mutex_);
        workers_.push_back(std::move(w));
      }
      try {
        // A traced statement's workers record into the leader's trace.
        // A generic plan's workers read its $n from the leader's values, which live
        // until the statement ends (after the workers do).
        wp->thread =
            std::thread([this, wp, cancel, trace = current_io_trace(), i,
                         params = current_extern_params(), gauges = stream_gauge_slot().gauges] {
              current_extern_params() = params;
              IoTraceScope tracing(trace);
              // The worker's streams show under the leader's session.
              StreamGaugeScope streams({.gauges = gauges, .worker = i + 1});
              if (trace != nullptr) set_trace_thread_name("parallel worker " + std::to_string(i));
              run_worker(*wp, cancel);
            });
      } catch (const std::system_error&) {
        // No thread: run with the workers that did start, as PostgreSQL does when
        // it cannot register a background worker.
        std::lock_guard lock(mutex_);
        workers_.pop_back();
        break;
      }
      ++launched_;
    }
  } catch (...) {
    stop();
    throw;
  }
  if (params_.slots && launched_ < reserved_) {
    params_.slots->release(reserved_ - launched_);
    reserved_ = launched_;
  }
}

void WorkerGroup::run_worker(Worker& w, std::atomic<bool>* cancel) {
  // A cancel of the leader's statement reaches its workers through the same flag.
  std::optional<StatementCancelScope> scope;
  if (cancel) scope.emplace(*cancel);
  const bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  try {
    w.tree->open();
    while (!stop_.load(std::memory_order_relaxed)) {
      const RowBatch* b = w.tree->next();
      if (!b || !push(w, *b)) break;
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    stop_.store(true, std::memory_order_relaxed);
    for (auto& other : workers_) other->space_cv.notify_all();  // others waiting stop now
  }
  std::vector<ExecNode*> nodes;
  preorder(*w.tree, nodes);
  for (ExecNode* n : nodes) {
    NodeInstrumentation in = n->instr;
    if (const bufmgr::ReadStreamStats* st = n->stream_stats()) in.worker_streams += *st;
    w.instr.push_back(in);
  }
  // Pins and I/O handles belong to this thread: release them here.
  w.tree.reset();
  w.usage = bufmgr::thread_buffer_usage() - before;
  {
    std::lock_guard lock(mutex_);
    w.ended = true;
  }
  ready_cv_.notify_all();
}

bool WorkerGroup::push(Worker& w, const RowBatch& b) {
  RowBatch copy;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      copy = std::move(free_.back());
      free_.pop_back();
    }
  }
  copy.reset(b.width, b.count);
  copy.shape = b.shape;
  copy.append_rows(b, 0, b.count);
  {
    std::unique_lock lock(mutex_);
    w.space_cv.wait(lock, [&] {
      return w.queue.size() < kQueuedBatchesPerWorker || stop_.load(std::memory_order_relaxed);
    });
    if (stop_.load(std::memory_order_relaxed)) return false;
    w.queue.push_back(std::move(copy));
  }
  ready_cv_.notify_all();
  return true;
}

bool WorkerGroup::pop_locked(Worker& w, RowBatch& out) {
  if (w.queue.empty()) return false;
  if (!out.values.empty()) free_.push_back(std::move(out));
  out = std::move(w.queue.front());
  w.queue.pop_front();
  w.space_cv.notify_one();
  return true;
}

bool WorkerGroup::try_take(int i, RowBatch& out) {
  std::lock_guard lock(mutex_);
  if (error_locked()) return false;
  return pop_locked(*workers_[size_t(i)], out);
}

bool WorkerGroup::try_take_any(RowBatch& out) {
  std::lock_guard lock(mutex_);
  if (error_locked() || workers_.empty()) return false;
  for (size_t k = 0; k < workers_.size(); ++k) {
    size_t i = (next_ + k) % workers_.size();
    if (pop_locked(*workers_[i], out)) {
      next_ = (i + 1) % workers_.size();
      return true;
    }
  }
  return false;
}

bool WorkerGroup::wait_for(int i) {
  Worker& w = *workers_[size_t(i)];
  bool ready;
  {
    std::unique_lock lock(mutex_);
    ready_cv_.wait(lock, [&] { return !w.queue.empty() || w.ended || error_locked(); });
    ready = !w.queue.empty();
  }
  rethrow_error();
  return ready;
}

bool WorkerGroup::wait_any() {
  bool ready = false;
  {
    std::unique_lock lock(mutex_);
    ready_cv_.wait(lock, [&] {
      if (error_locked()) return true;
      bool all_ended = true;
      for (auto& w : workers_) {
        if (!w->queue.empty()) {
          ready = true;
          return true;
        }
        all_ended = all_ended && w->ended;
      }
      return all_ended;
    });
  }
  rethrow_error();
  return ready;
}

void WorkerGroup::recycle(RowBatch& b) {
  if (b.values.empty()) return;
  std::lock_guard lock(mutex_);
  free_.push_back(std::move(b));
  b = RowBatch{};
}

void WorkerGroup::rethrow_error() {
  std::exception_ptr e;
  {
    std::lock_guard lock(mutex_);
    e = error_;
  }
  if (!e) return;
  stop();
  {
    std::lock_guard lock(mutex_);
    error_ = nullptr;
  }
  std::rethrow_exception(e);
}

void WorkerGroup::stop() {
  stop_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);  // a worker between its check and its wait sees it
    for (auto& w : workers_) w->space_cv.notify_all();
  }
  end_workers();
}

void WorkerGroup::end_workers() {
  if (workers_.empty() && reserved_ == 0) return;
  std::vector<ExecNode*> nodes;
  preorder(*leader_copy_, nodes);
  bufmgr::BufferUsage workers_usage;
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
    for (size_t k = 0; k < nodes.size() && k < w->instr.size(); ++k)
      nodes[k]->instr.add(w->instr[k]);
    workers_usage += w->usage;
  }
  {
    std::lock_guard lock(mutex_);
    workers_.clear();
  }
  // As PostgreSQL adds workers' buffer usage to the leader's: the gathering node
  // and the nodes above it count what their workers read.
  bufmgr::thread_buffer_usage() += workers_usage;
  if (params_.slots && reserved_ > 0) params_.slots->release(reserved_);
  reserved_ = 0;
}

void GatheringNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Workers Planned: " + std::to_string(group_.params().workers_planned));
  if (analyze) lines.push_back("Workers Launched: " + std::to_string(group_.launched()));
}

void GatheringNode::shutdown() {
  const bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  group_.stop();
  ExecNode::shutdown();
  if (instr.loops > 0) instr.buffers += bufmgr::thread_buffer_usage() - before;
}

}  // namespace tp::scans
