// io_method=worker: a fixed pool of I/O worker threads serving one bounded queue.
//
// Submission (owner thread): try the queue lock without waiting; if another thread holds
// it, run the whole batch here (a contended lock costs more than the I/O saves). Push
// handles until the queue (64) is full, run the rest here, and wake the lowest-numbered
// idle worker: one wakeup per batch. A worker that pops an I/O and still sees work queued
// wakes the next idle worker above it, so wakeups cascade only as far as the queue needs.
//
// Workers execute preadv/pwritev and run the shared completion phase (the buffer pool's
// checksum check and VALID/IO_ERROR), then wake waiters; the owner reclaims later. Waiters
// sleep on the handle: this method has no wait_one.
#include <bit>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

#include "aio/method.h"
#include "aio/stats.h"

namespace tp::aio {

namespace {

class WorkerMethod final : public IoMethod {
 public:
  explicit WorkerMethod(int io_workers) : wakeups_(size_t(io_workers)) {
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

  void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) override {
    size_t queued = 0;
    int wake = -1;
    {
      std::unique_lock lock(mutex_, std::try_to_lock);
      if (lock.owns_lock()) {
        while (queued < ios.size() && queue_count_ < kWorkerQueueSize) {
          queue_[(queue_head_ + queue_count_) % kWorkerQueueSize] = ios[queued++];
          ++queue_count_;
        }
        if (queued > 0 && idle_mask_ != 0) {
          wake = std::countr_zero(idle_mask_);
          idle_mask_ &= ~(uint64_t{1} << wake);
        }
      }
    }
    if (wake >= 0) wakeups_[size_t(wake)]->release();
    // Whatever did not fit (or all of it, if the lock was busy) runs here, now.
    for (size_t i = queued; i < ios.size(); ++i) {
      io_stats_count_inline(IoMethodKind::kWorker, HandleOps::context(*ios[i]));
      complete_io(*ios[i], execute_io_now(*ios[i]), &slot);
    }
  }

 private:
  void worker_main(int id) {
    const uint64_t my_bit = uint64_t{1} << id;
    std::unique_lock lock(mutex_);
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
      queue_head_ = (queue_head_ + 1) % kWorkerQueueSize;
      --queue_count_;
      int wake = -1;
      if (queue_count_ > 0) {
        // Chain wakeup: prefer an idle worker above us, so work gathers in low ids.
        uint64_t above = idle_mask_ & ~((my_bit << 1) - 1);
        uint64_t pick = above != 0 ? above : idle_mask_;
        if (pick != 0) {
          wake = std::countr_zero(pick);
          idle_mask_ &= ~(uint64_t{1} << wake);
        }
      }
      lock.unlock();
      if (wake >= 0) wakeups_[size_t(wake)]->release();
      complete_io(*h, execute_io_now(*h), nullptr);
      lock.lock();
    }
  }

  std::mutex mutex_;  // guards the queue, idle_mask_ and stopping_
  IoHandle* queue_[kWorkerQueueSize] = {};
  int queue_head_ = 0;
  int queue_count_ = 0;
  uint64_t idle_mask_ = 0;  // bit i: worker i sleeps on wakeups_[i]
  bool stopping_ = false;
  std::vector<std::unique_ptr<std::counting_semaphore<>>> wakeups_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<IoMethod> make_worker_method(int io_workers) {
  return std::make_unique<WorkerMethod>(io_workers);
}

}  // namespace tp::aio
