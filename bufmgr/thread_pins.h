// ThreadPins: one thread's pins and counters in one pool; PoolThreads: a pool's set of
// them, one per thread that ever used it.
//
// Each thread that uses a pool gets a ThreadPins: its own pin count for every buffer, so
// the shared refcount in the state word moves only on a thread's first pin and last
// unpin of a buffer; the number of distinct buffers it pins (checked against the pool's
// per-thread pin budget); and its share of the pool's counters. Only the owning thread
// writes a ThreadPins; other threads read the counters (relaxed atomics) for totals.
//
// Lookup is a thread_local (pool id, ThreadPins*) cache, so the hot path costs one
// compare. A thread's ThreadPins return to their pools when the thread exits, if the
// pool still exists (a process-wide registry in thread_pins.cc keeps the live pools).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bufmgr/pool_counters.h"

namespace tp::bufmgr {

class ThreadPins {
 public:
  explicit ThreadPins(int buffers) : counts_(size_t(buffers), 0) {}

  uint32_t& count(int32_t buffer) { return counts_[size_t(buffer)]; }
  // Buffers with count > 0. Written only by the owner; atomic so leak checks may read it.
  uint32_t distinct() const { return distinct_.load(std::memory_order_relaxed); }
  void set_distinct(uint32_t n) { distinct_.store(n, std::memory_order_relaxed); }

  // Adds n to one counter. Only the owning thread calls it (load + store, no RMW).
  void add(IoContext context, Counter counter, uint64_t n = 1) {
    std::atomic<uint64_t>& a = counters_[int(context)][int(counter)];
    a.store(a.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void add_to(IoContext context, PoolCounters& sum) const {
    const auto& row = counters_[int(context)];
    sum.hits += row[int(Counter::kHit)].load(std::memory_order_relaxed);
    sum.reads += row[int(Counter::kRead)].load(std::memory_order_relaxed);
    sum.writes += row[int(Counter::kWrite)].load(std::memory_order_relaxed);
    sum.evictions += row[int(Counter::kEviction)].load(std::memory_order_relaxed);
    sum.extends += row[int(Counter::kExtend)].load(std::memory_order_relaxed);
  }
  bool in_use = true;  // guarded by the pool's thread mutex
  // Read streams this thread has open on the pool (owner only): each leaves room in the
  // pin budget for the others to make progress.
  int open_streams = 0;

 private:
  std::vector<uint32_t> counts_;
  std::atomic<uint32_t> distinct_{0};
  std::atomic<uint64_t> counters_[kIoContextCount][kCounterCount] = {};
};

// The pools alive in the process, by id, so exiting threads can hand back their
// ThreadPins. Every function is thread-safe.
class PoolThreads {
 public:
  // Creates the set for a pool with `buffers` buffers and registers it under a fresh id.
  explicit PoolThreads(int buffers);
  // Unregisters; ThreadPins still held by live threads are freed here (they must hold no
  // pins: the pool's destructor checks).
  ~PoolThreads();

  uint64_t id() const { return id_; }

  // The calling thread's ThreadPins for this pool (created on first use).
  ThreadPins& mine() {
    struct Cache {
      uint64_t id = 0;
      ThreadPins* pins = nullptr;
    };
    thread_local Cache cache;
    if (cache.id == id_) [[likely]]
      return *cache.pins;
    cache.pins = &register_thread();
    cache.id = id_;
    return *cache.pins;
  }

  // Sum of counters over every thread that ever used the pool.
  PoolCounters totals(IoContext context) const;
  // Sum of pins over every thread (for leak checks; racy while threads run).
  uint64_t pins_held() const;

 private:
  friend struct ThreadExitHook;
  ThreadPins& register_thread();
  void thread_exited(ThreadPins* pins);

  uint64_t id_;
  int buffers_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<ThreadPins>> all_;
};

}  // namespace tp::bufmgr
