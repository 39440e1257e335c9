// Buffer replacement: the clock sweep, and ring strategies that confine a bulk
// operation's evictions to a small set of buffers.
//
// Clock sweep (ClockSweep::victim), one step per buffer under the hand:
//   1. advance the shared hand atomically (fetch_add) and look at that buffer;
//   2. pinned (refcount > 0): skip it; after every buffer was skipped in a row with no
//      usage count falling anywhere, give up: "no unpinned buffers available";
//   3. usage count > 0: decrement it (CAS) and move on;
//   4. usage count 0: pin it (CAS refcount 0 -> 1) and return it.
// The caller then writes it back if dirty and detaches it from its old tag.
//
// A ring (BufferStrategy) is a fixed array of buffer slots owned by one scan or load.
// For each new page it advances to the next slot: a slot whose buffer is unpinned with
// usage <= 1 is reused at once; an empty slot, or one whose buffer someone else made
// popular or pinned, is refilled by the clock sweep. Pins taken under a ring raise the
// usage count only from 0 to 1, so a scan does not make its pages look hot.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bufmgr/buffer_desc.h"
#include "bufmgr/pool_counters.h"

namespace tp::bufmgr {

class BufferPool;

class ClockSweep {
 public:
  explicit ClockSweep(int nbuffers) : nbuffers_(uint32_t(nbuffers)) {}

  // Returns a buffer pinned by the caller's shared reference (refcount was 0, now 1),
  // usage count 0. The caller must register the pin (BufferPool::note_private_pin).
  // Throws tp::Error if every buffer stays pinned for a whole revolution.
  BufferDesc& victim(BufferDesc* descs);
  // The buffer the hand looks at next (a relaxed read: for the live view).
  int32_t position() const { return int32_t(hand_.load(std::memory_order_relaxed) % nbuffers_); }

 private:
  const uint32_t nbuffers_;
  std::atomic<uint64_t> hand_{0};
};

enum class StrategyKind : uint8_t {
  kBulkRead,   // seq scans of tables larger than a quarter of the pool
  kBulkWrite,  // loads (INSERT ... SELECT, COPY-like bulk inserts)
};

class BufferStrategy;

// The rings alive now, so that the live page (tools/live) can outline their buffers.
// A ring registers when it is made and leaves when it goes, under the mutex: once per
// scan or load, never per page. for_each holds the mutex, so no ring goes meanwhile.
class RingRegistry {
 public:
  void add(const BufferStrategy* ring);
  void remove(const BufferStrategy* ring);
  // f(const BufferStrategy&) for each ring alive, under the mutex.
  template <typename F>
  void for_each(F&& f) const {
    std::lock_guard lock(mutex_);
    for (const BufferStrategy* r : rings_) f(*r);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<const BufferStrategy*> rings_;
};

class BufferStrategy {
 public:
  ~BufferStrategy();
  BufferStrategy(const BufferStrategy&) = delete;
  BufferStrategy& operator=(const BufferStrategy&) = delete;

  // A bulk-read ring of 256 kB + 8 kB * io_combine_limit * effective_io_concurrency,
  // capped by the pin budget and an eighth of the pool (at least one buffer).
  static std::unique_ptr<BufferStrategy> bulk_read(const BufferPool& pool,
                                                   int effective_io_concurrency,
                                                   int io_combine_limit);
  // A 16 MB bulk-write ring, capped by an eighth of the pool.
  static std::unique_ptr<BufferStrategy> bulk_write(const BufferPool& pool);
  // The strategy a seq scan of a `nblocks`-block table should use: a bulk-read ring if
  // the table is larger than a quarter of the pool, else none (nullptr).
  static std::unique_ptr<BufferStrategy> for_seq_scan(const BufferPool& pool, BlockNumber nblocks,
                                                      int effective_io_concurrency,
                                                      int io_combine_limit);

  StrategyKind kind() const { return kind_; }
  IoContext context() const {
    return kind_ == StrategyKind::kBulkRead ? IoContext::kBulkRead : IoContext::kBulkWrite;
  }
  int ring_size() const { return int(ring_.size()); }
  // Most buffers a read stream under this ring should keep pinned: the whole ring but
  // one (the consumer's current buffer) for bulk reads, half of it otherwise.
  int pin_limit() const;

  // Used by BufferPool when it needs a victim under this strategy: the buffer in the
  // next slot, pinned, if it can be reused; otherwise nullptr (the pool then runs the
  // clock sweep and calls remember()).
  BufferDesc* next_reusable(BufferPool& pool);
  // Puts the sweep's victim into the current slot.
  void remember(int32_t buffer) { ring_[current_].store(buffer, std::memory_order_relaxed); }
  // The buffers in the ring's slots now (empty slots left out). Any thread, while the
  // ring is registered (RingRegistry::for_each).
  std::vector<int32_t> buffers() const;

 private:
  BufferStrategy(const BufferPool& pool, StrategyKind kind, int ring_buffers);
  StrategyKind kind_;
  // Atomic only so that the live page may read the slots: relaxed, as cheap as plain.
  std::vector<std::atomic<int32_t>> ring_;
  size_t current_;
  std::shared_ptr<RingRegistry> registry_;  // the pool's; kept should the pool go first
};

}  // namespace tp::bufmgr
