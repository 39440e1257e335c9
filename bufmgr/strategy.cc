#include "bufmgr/strategy.h"

#include <algorithm>

#include "bufmgr/buffer_pool.h"
#include "engine/core/error.h"

namespace tp::bufmgr {

BufferDesc& ClockSweep::victim(BufferDesc* descs) {
  // Skips in a row; reset whenever a usage count falls, since that buffer will be
  // takeable on the next revolution.
  uint64_t skips = 0;
  for (;;) {
    BufferDesc& d = descs[hand_.fetch_add(1, std::memory_order_relaxed) % nbuffers_];
    uint32_t old = d.state.load(std::memory_order_relaxed);
    for (int spins = 0;;) {
      if (old & kFlagLocked) {
        BufferDesc::wait_header_unlocked(spins++);
        old = d.state.load(std::memory_order_relaxed);
        continue;
      }
      if (refcount_of(old) != 0) {
        if (++skips > 2 * uint64_t(nbuffers_))
          throw Error("no unpinned buffers available",
                      "all " + std::to_string(nbuffers_) + " buffers of the pool are pinned",
                      "raise shared_buffers or pin fewer pages at once")
              .with_sqlstate(sqlstate::kInsufficientResources);
        break;
      }
      if (usage_of(old) > 0) {
        if (d.state.compare_exchange_weak(old, old - kUsageOne, std::memory_order_relaxed)) {
          skips = 0;
          break;
        }
        continue;  // old was reloaded by the failed CAS
      }
      if (d.state.compare_exchange_weak(old, old + kRefcountOne, std::memory_order_acquire,
                                        std::memory_order_relaxed))
        return d;
    }
  }
}

void RingRegistry::add(const BufferStrategy* ring) {
  std::lock_guard lock(mutex_);
  rings_.push_back(ring);
}

void RingRegistry::remove(const BufferStrategy* ring) {
  std::lock_guard lock(mutex_);
  std::erase(rings_, ring);
}

BufferStrategy::BufferStrategy(const BufferPool& pool, StrategyKind kind, int ring_buffers)
    : kind_(kind),
      ring_(size_t(std::max(1, ring_buffers))),
      current_(0),
      registry_(pool.ring_registry()) {
  for (auto& slot : ring_) slot.store(kInvalidBuffer, std::memory_order_relaxed);
  registry_->add(this);
}

BufferStrategy::~BufferStrategy() {
  registry_->remove(this);
}

std::vector<int32_t> BufferStrategy::buffers() const {
  std::vector<int32_t> out;
  out.reserve(ring_.size());
  for (const auto& slot : ring_) {
    const int32_t b = slot.load(std::memory_order_relaxed);
    if (b != kInvalidBuffer) out.push_back(b);
  }
  return out;
}

std::unique_ptr<BufferStrategy> BufferStrategy::bulk_read(const BufferPool& pool,
                                                          int effective_io_concurrency,
                                                          int io_combine_limit) {
  constexpr int kBaseBuffers = 256 * 1024 / int(kBlockSize);  // 256 kB
  int wanted = kBaseBuffers + io_combine_limit * effective_io_concurrency;
  int cap = std::min(std::max(kBaseBuffers, pool.max_pins_per_thread()),
                     std::max(1, pool.shared_buffers() / 8));
  return std::unique_ptr<BufferStrategy>(
      new BufferStrategy(pool, StrategyKind::kBulkRead, std::min(wanted, cap)));
}

std::unique_ptr<BufferStrategy> BufferStrategy::bulk_write(const BufferPool& pool) {
  constexpr int kRingBuffers = 16 * 1024 * 1024 / int(kBlockSize);  // 16 MB
  return std::unique_ptr<BufferStrategy>(
      new BufferStrategy(pool, StrategyKind::kBulkWrite,
                         std::min(kRingBuffers, std::max(1, pool.shared_buffers() / 8))));
}

std::unique_ptr<BufferStrategy> BufferStrategy::for_seq_scan(const BufferPool& pool,
                                                             BlockNumber nblocks,
                                                             int effective_io_concurrency,
                                                             int io_combine_limit) {
  if (nblocks <= BlockNumber(pool.shared_buffers() / 4)) return nullptr;
  return bulk_read(pool, effective_io_concurrency, io_combine_limit);
}

int BufferStrategy::pin_limit() const {
  // One slot stays free for the buffer the consumer holds while the stream looks ahead;
  // otherwise the next slot would still be pinned and the sweep would grow the ring.
  int n = ring_size();
  return std::max(1, kind_ == StrategyKind::kBulkRead ? n - 1 : n / 2);
}

BufferDesc* BufferStrategy::next_reusable(BufferPool& pool) {
  current_ = (current_ + 1) % ring_.size();
  int32_t b = ring_[current_].load(std::memory_order_relaxed);
  if (b == kInvalidBuffer) return nullptr;
  BufferDesc& d = pool.desc(b);
  uint32_t old = d.state.load(std::memory_order_relaxed);
  for (;;) {
    if ((old & kFlagLocked) || refcount_of(old) != 0 || usage_of(old) > 1) return nullptr;
    if (d.state.compare_exchange_weak(old, old + kRefcountOne, std::memory_order_acquire,
                                      std::memory_order_relaxed))
      return &d;
  }
}

}  // namespace tp::bufmgr
