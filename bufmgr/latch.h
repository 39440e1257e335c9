// RwLatch: a small shared/exclusive lock in one 32-bit word.
//
// Used for the mapping-table partitions and for each buffer's content lock. It is
// cheaper than std::shared_mutex on the hit path (one atomic add to take it shared,
// one to release it, no syscall unless someone sleeps) and it may be released by a
// thread other than the one that took it, which buffer I/O needs.
//
// Word layout: bit 31 = held exclusively, bit 30 = someone sleeps on the word,
// bits 0..29 = number of shared holders. A waiter spins briefly, then sets the
// sleeper bit and blocks in std::atomic::wait; every release that sees the bit
// clears it and wakes all sleepers, which re-check.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace tp::bufmgr {

// One CPU "pause" in a spin loop (lets the sibling hyperthread run).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class RwLatch {
 public:
  static constexpr uint32_t kExclusive = 1u << 31;
  static constexpr uint32_t kSleepers = 1u << 30;
  static constexpr uint32_t kSharedMask = kSleepers - 1;

  RwLatch() = default;
  RwLatch(const RwLatch&) = delete;
  RwLatch& operator=(const RwLatch&) = delete;

  // Blocks until no exclusive holder, then holds the latch shared.
  void lock_shared() {
    if (try_lock_shared()) return;
    wait_loop([this] { return try_lock_shared(); });
  }
  // Takes the latch shared unless it is held exclusively; never blocks.
  bool try_lock_shared() {
    uint32_t v = word_.load(std::memory_order_relaxed);
    while (!(v & kExclusive)) {
      if (word_.compare_exchange_weak(v, v + 1, std::memory_order_acquire,
                                      std::memory_order_relaxed))
        return true;
    }
    return false;
  }
  // Releases one shared hold.
  void unlock_shared() {
    uint32_t prev = word_.fetch_sub(1, std::memory_order_release);
    if (prev & kSleepers) wake();
  }

  // Blocks until nobody holds the latch, then holds it exclusively.
  void lock() {
    if (try_lock()) return;
    wait_loop([this] { return try_lock(); });
  }
  // Takes the latch exclusively if nobody holds it; never blocks.
  bool try_lock() {
    uint32_t v = word_.load(std::memory_order_relaxed);
    while ((v & (kExclusive | kSharedMask)) == 0) {
      if (word_.compare_exchange_weak(v, v | kExclusive, std::memory_order_acquire,
                                      std::memory_order_relaxed))
        return true;
    }
    return false;
  }
  // Releases the exclusive hold.
  void unlock() {
    uint32_t prev = word_.fetch_and(~kExclusive, std::memory_order_release);
    if (prev & kSleepers) wake();
  }

  // For assertions and introspection only: the answer may be stale at once.
  bool held_exclusive() const { return word_.load(std::memory_order_relaxed) & kExclusive; }
  // True while some thread sleeps waiting for the latch (after its spin).
  bool has_sleepers() const { return word_.load(std::memory_order_relaxed) & kSleepers; }

 private:
  template <typename TryFn>
  void wait_loop(TryFn try_take) {
    for (int spin = 0; spin < 64; ++spin) {
      cpu_relax();
      if (try_take()) return;
    }
    for (;;) {
      // Announce the sleeper, then sleep only if the word still shows the latch busy:
      // a release between the fetch_or and the wait changes the word, so no wake-up is lost.
      uint32_t v = word_.fetch_or(kSleepers, std::memory_order_relaxed) | kSleepers;
      if (try_take()) return;
      word_.wait(v, std::memory_order_relaxed);
      if (try_take()) return;
    }
  }
  void wake() {
    word_.fetch_and(~kSleepers, std::memory_order_relaxed);
    word_.notify_all();
  }

  std::atomic<uint32_t> word_{0};
};

}  // namespace tp::bufmgr
