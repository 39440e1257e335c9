// io_method=worker: a fixed pool of I/O worker threads serving one bounded queue.
//
// Submission (owner thread), as PostgreSQL 18's: take the queue lock (blocking; it is
// held for a few instructions by anyone), push the batch's handles until the queue is
// full, and wake the lowest-numbered idle worker: one wakeup per submission. Only what
// does not fit in the queue runs here, in the submitter. (PostgreSQL master tries the lock
// and runs the whole batch inline when it is busy. Measured here that fired rarely and
// changed no scan's rate beyond the noise (aio/README.md), so tidepool keeps 18's rule.)
//
// A worker pops one I/O at a time. If more are queued it wakes up to two idle peers (as
// many as are queued, lowest-numbered first), so wakeups fan out only as far as the
// queue needs. It executes preadv/pwritev and runs the shared completion phase (the
// buffer pool's checksum check and VALID/IO_ERROR), which wakes waiters; the owner
// reclaims later. Waiters sleep on the handle: this method has no wait_one.
//
// The queue holds max(64, handles_per_thread) handles rounded up to a power of two
// (PostgreSQL: 64, with at most 64 handles per backend by default), so one thread's
// reads in flight always fit.
#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

#include "aio/method.h"
#include "aio/stats.h"

namespace tp::aio {

namespace {

// PostgreSQL's IO_WORKER_WAKEUP_FANOUT: peers a worker wakes when it finds more queued.
constexpr int kWakeupFanout = 2;

class WorkerMethod final : public IoMethod {
 public:
  WorkerMethod(int io_workers, int queue_size)
      : queue_(std::bit_ceil(size_t(std::max(queue_size, kWorkerQueueSize)))),
        wakeups_(size_t(io_workers)) {
    TP_ASSERT(io_workers >= 1 && io_workers <= kMaxIoWorkers);
    for (int i = 0; i < io_workers; ++i) {
      wakeups_[size_t(i)] = std::make_unique<std::counting_semaphore<>>(0);
      threads_.emplace_back([this, i] { worker_main(i); });
    }
  }

  // Precondition (IoSystem's): nothing is queued. Stops and joins the workers.
  ~WorkerMethod() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    for (auto& w : wakeups_) w->release();
    for (auto& t : threads_) t.join();
    TP_ASSERT(queue_count_ == 0);
  }

  IoMethodKind kind() const override { return IoMethodKind::kWorker; }

  std::vector<pid_t> own_threads() const override {
    std::lock_guard lock(mutex_);
    return tids_;
  }

  void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) override {
    size_t queued = 0;
    int wake = -1;
    {
      std::lock_guard lock(mutex_);
      while (queued < ios.size() && queue_count_ < queue_.size()) {
        queue_[(queue_head_ + queue_count_) & (queue_.size() - 1)] = ios[queued++];
        ++queue_count_;
      }
      queued_.store(int(queue_count_), std::memory_order_relaxed);
      if (queued > 0) wake = take_idle_worker();
    }
    if (wake >= 0) wakeups_[size_t(wake)]->release();
    // Only what did not fit in the queue runs here, now.
    for (size_t i = queued; i < ios.size(); ++i) {
      io_stats_count_inline(IoMethodKind::kWorker, HandleOps::context(*ios[i]));
      complete_io(*ios[i], execute_io_now(*ios[i]), &slot);
    }
  }

  int queued() const override { return queued_.load(std::memory_order_relaxed); }

  std::unique_lock<std::mutex> lock_queue_for_testing() override {
    return std::unique_lock(mutex_);
  }

 private:
  // Under mutex_: the lowest-numbered idle worker, now no longer idle; -1 if none.
  int take_idle_worker() {
    if (idle_mask_ == 0) return -1;
    int w = std::countr_zero(idle_mask_);
    idle_mask_ &= ~(uint64_t{1} << w);
    return w;
  }

  void worker_main(int id) {
    set_trace_thread_name("io worker " + std::to_string(id));  // its track in I/O traces
    const uint64_t my_bit = uint64_t{1} << id;
    std::unique_lock lock(mutex_);
    tids_.push_back(trace_thread_id());
    for (;;) {
      if (queue_count_ == 0) {
        if (stopping_) return;
        idle_mask_ |= my_bit;
        lock.unlock();
        wakeups_[size_t(id)]->acquire();
        lock.lock();
        idle_mask_ &= ~my_bit;  // woken by a peer or spuriously: not idle while looking
        continue;
      }
      IoHandle* h = queue_[queue_head_];
      queue_head_ = (queue_head_ + 1) & (queue_.size() - 1);
      --queue_count_;
      queued_.store(int(queue_count_), std::memory_order_relaxed);
      int wake[kWakeupFanout];
      int nwake = 0;
      while (nwake < kWakeupFanout && size_t(nwake) < queue_count_) {
        int w = take_idle_worker();
        if (w < 0) break;
        wake[nwake++] = w;
      }
      lock.unlock();
      for (int i = 0; i < nwake; ++i) wakeups_[size_t(wake[i])]->release();
      complete_io(*h, execute_io_now(*h), nullptr);
      lock.lock();
    }
  }

  mutable std::mutex mutex_;      // guards the queue, idle_mask_, stopping_ and tids_
  std::vector<IoHandle*> queue_;  // a ring; its size is a power of two
  size_t queue_head_ = 0;
  size_t queue_count_ = 0;
  std::atomic<int> queued_{0};  // queue_count_, for readers without the lock (queued())
  uint64_t idle_mask_ = 0;      // bit i: worker i sleeps on wakeups_[i]
  bool stopping_ = false;
  std::vector<std::unique_ptr<std::counting_semaphore<>>> wakeups_;
  std::vector<std::thread> threads_;
  std::vector<pid_t> tids_;  // the workers' kernel ids, as they start
};

}  // namespace

std::unique_ptr<IoMethod> make_worker_method(int io_workers, int queue_size) {
  return std::make_unique<WorkerMethod>(io_workers, queue_size);
}

}  // namespace tp::aio
