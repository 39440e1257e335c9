#include "scans/gather.h"

#include <algorithm>
#include <optional>
#include <system_error>

#include "bufmgr/buffer_usage.h"
#include "engine/core/interrupts.h"

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

struct GatherNode::Worker {
  std::unique_ptr<ExecNode> tree;  // built by the leader; ended on the worker's thread
  std::thread thread;
  // Written by the worker before it ends, read by the leader after join().
  std::vector<NodeInstrumentation> instr;  // pre-order, as the tree's nodes
  bufmgr::BufferUsage usage;               // the worker thread's, for the whole run
};

GatherNode::GatherNode(ParticipantBuilder build, GatherParams params)
    : build_(std::move(build)), params_(params), blocks_(params.nblocks) {
  leader_copy_ = build_(blocks_);
}

GatherNode::~GatherNode() {
  try {
    stop_workers();
  } catch (...) {  // a destructor must not throw; the statement has ended anyway
  }
}

void GatherNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Workers Planned: " + std::to_string(params_.workers_planned));
  if (analyze) lines.push_back("Workers Launched: " + std::to_string(launched_));
}

void GatherNode::do_open() {
  stop_workers();  // a rescan: the previous run's workers must be done with the blocks
  error_ = nullptr;
  blocks_.reset();
  stop_.store(false, std::memory_order_relaxed);
  leader_done_ = false;
  holding_ = false;
  start_workers();
  // The leader runs its copy when it participates, and always when no worker
  // started (PostgreSQL's need_to_scan_locally).
  leader_runs_ = params_.leader_participation || launched_ == 0;
  if (leader_runs_) {
    try {
      leader_copy_->open();
    } catch (...) {
      stop_workers();
      throw;
    }
  }
}

void GatherNode::start_workers() {
  launched_ = 0;
  int wanted = params_.workers_planned;
  int granted =
      params_.slots ? params_.slots->reserve(wanted, params_.max_parallel_workers) : wanted;
  reserved_ = granted;
  queue_capacity_ = kQueuedBatchesPerWorker * size_t(std::max(1, granted));  // before any thread
  std::vector<ExecNode*> leader_nodes;
  preorder(*leader_copy_, leader_nodes);
  std::atomic<bool>* cancel = statement_cancel_flag();
  {
    std::lock_guard lock(mutex_);
    running_ = 0;
  }
  try {
    for (int i = 0; i < granted; ++i) {
      auto w = std::make_unique<Worker>();
      w->tree = build_(blocks_);
      std::vector<ExecNode*> nodes;
      preorder(*w->tree, nodes);
      for (size_t k = 0; k < nodes.size() && k < leader_nodes.size(); ++k)
        nodes[k]->instr.timing = leader_nodes[k]->instr.timing;
      {
        std::lock_guard lock(mutex_);
        ++running_;
      }
      Worker* wp = w.get();
      try {
        w->thread = std::thread([this, wp, cancel] { run_worker(*wp, cancel); });
      } catch (const std::system_error&) {
        // No thread: run with the workers that did start, as PostgreSQL does when
        // it cannot register a background worker.
        std::lock_guard lock(mutex_);
        --running_;
        break;
      }
      workers_.push_back(std::move(w));
      ++launched_;
    }
  } catch (...) {
    stop_workers();
    throw;
  }
  if (params_.slots && launched_ < reserved_) {
    params_.slots->release(reserved_ - launched_);
    reserved_ = launched_;
  }
}

void GatherNode::run_worker(Worker& w, std::atomic<bool>* cancel) {
  // A cancel of the leader's statement reaches its workers through the same flag.
  std::optional<StatementCancelScope> scope;
  if (cancel) scope.emplace(*cancel);
  const bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  try {
    w.tree->open();
    while (!stop_.load(std::memory_order_relaxed)) {
      const RowBatch* b = w.tree->next();
      if (!b || !push(*b)) break;
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    stop_.store(true, std::memory_order_relaxed);
  }
  space_cv_.notify_all();  // others waiting for room stop now
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
    --running_;
  }
  queue_cv_.notify_all();
}

bool GatherNode::push(const RowBatch& b) {
  RowBatch copy;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      copy = std::move(free_.back());
      free_.pop_back();
    }
  }
  copy.reset(b.width, b.count);
  std::copy_n(b.values.begin(), size_t(b.count) * b.width, copy.values.begin());
  copy.count = b.count;
  {
    std::unique_lock lock(mutex_);
    space_cv_.wait(lock, [&] {
      return queue_.size() < queue_capacity_ || stop_.load(std::memory_order_relaxed);
    });
    if (stop_.load(std::memory_order_relaxed)) return false;
    queue_.push_back(std::move(copy));
  }
  queue_cv_.notify_one();
  return true;
}

bool GatherNode::take_queued(bool wait) {
  std::unique_lock lock(mutex_);
  if (wait) queue_cv_.wait(lock, [&] { return !queue_.empty() || running_ == 0 || error_; });
  if (error_ || queue_.empty()) return false;
  current_ = std::move(queue_.front());
  queue_.pop_front();
  holding_ = true;
  lock.unlock();
  space_cv_.notify_one();
  return true;
}

const RowBatch* GatherNode::do_next() {
  if (holding_) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(current_));
    holding_ = false;
  }
  for (;;) {
    if (take_queued(false)) return &current_;
    rethrow_worker_error();
    if (leader_runs_ && !leader_done_) {
      const RowBatch* b = nullptr;
      try {
        b = leader_copy_->next();
      } catch (...) {
        stop_workers();
        throw;
      }
      if (b) return b;
      leader_done_ = true;
      continue;
    }
    if (take_queued(true)) return &current_;
    bool ended;
    {
      std::lock_guard lock(mutex_);
      ended = running_ == 0 && queue_.empty();
    }
    if (ended) {
      end_workers();
      rethrow_worker_error();
      return nullptr;
    }
  }
}

void GatherNode::rethrow_worker_error() {
  std::exception_ptr e;
  {
    std::lock_guard lock(mutex_);
    e = error_;
  }
  if (!e) return;
  stop_workers();
  {
    std::lock_guard lock(mutex_);
    error_ = nullptr;
  }
  std::rethrow_exception(e);
}

void GatherNode::stop_workers() {
  stop_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(mutex_);  // a worker between its check and its wait sees it
  }
  space_cv_.notify_all();
  end_workers();
}

void GatherNode::end_workers() {
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
  workers_.clear();
  // As PostgreSQL adds workers' buffer usage to the leader's: the Gather and the
  // nodes above it count what their workers read.
  bufmgr::thread_buffer_usage() += workers_usage;
  if (params_.slots && reserved_ > 0) params_.slots->release(reserved_);
  reserved_ = 0;
  std::lock_guard lock(mutex_);
  queue_.clear();
  holding_ = false;
}

void GatherNode::shutdown() {
  stop_workers();
  ExecNode::shutdown();
}

}  // namespace tp::scans
