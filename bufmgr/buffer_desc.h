// BufferDesc: the shared header of one buffer, and the header-lock helpers.
//
// Who may read or write each field:
//   state      atomically, by anyone (see buffer_state.h).
//   tag, file  written only by a thread that holds the header lock, the only pin
//              (refcount == 1) and the exclusive partition lock of the mapping table;
//              readable by anyone holding a pin, the header lock, or the partition lock
//              of the buffer's current tag.
//   io_ref     the wait reference of the read in flight; written and read under the
//              header lock, meaningful only while IO_IN_PROGRESS is set.
//   content    the content lock (shared / exclusive); only pinned buffers are locked.
//   map_hook   the mapping table's link; touched only under the partition lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include <boost/intrusive/unordered_set_hook.hpp>

#include "aio/aio.h"
#include "bufmgr/buffer_state.h"
#include "bufmgr/latch.h"
#include "engine/core/block.h"

namespace tp::aio {
class IoFile;
}

namespace tp::bufmgr {

// Which page a buffer holds: a relation file (IoFile::relnumber) and a block in it.
struct BufferTag {
  uint32_t relnumber = 0;
  BlockNumber block = kInvalidBlock;
  friend bool operator==(const BufferTag&, const BufferTag&) = default;
};

// A 64-bit mix of the tag: the mapping table takes its partition from the top bits and
// its bucket from the low bits, so the two never correlate.
inline uint64_t buffer_tag_hash(const BufferTag& tag) {
  uint64_t x = (uint64_t(tag.relnumber) << 32) | tag.block;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

using MapHook = boost::intrusive::unordered_set_member_hook<
    boost::intrusive::link_mode<boost::intrusive::normal_link>, boost::intrusive::store_hash<true>>;

struct alignas(64) BufferDesc {
  std::atomic<uint32_t> state{0};
  int32_t id = -1;
  BufferTag tag;
  aio::IoFile* file = nullptr;
  aio::IoWaitRef io_ref;
  RwLatch content;
  MapHook map_hook;

  uint32_t load_state() const { return state.load(std::memory_order_acquire); }

  // Takes the header lock (spinning while another thread holds it) and returns the
  // state word as it was, with LOCKED set.
  uint32_t lock_header() {
    for (int spins = 0;; ++spins) {
      uint32_t old = state.fetch_or(kFlagLocked, std::memory_order_acquire);
      if (!(old & kFlagLocked)) return old | kFlagLocked;
      wait_header_unlocked(spins);
    }
  }

  // Releases the header lock, applying a lifecycle change (buffer_transition) at the
  // same time. `usage` replaces the usage count unless it is kKeepUsage. Concurrent
  // unpins may change the refcount meanwhile, hence the CAS loop.
  static constexpr uint32_t kKeepUsage = ~0u;
  uint32_t unlock_header(uint32_t set = 0, uint32_t clear = 0, uint32_t usage = kKeepUsage) {
    uint32_t old = state.load(std::memory_order_relaxed);
    for (;;) {
      uint32_t next = buffer_transition(old, set, clear) & ~kFlagLocked;
      if (usage != kKeepUsage) next = (next & ~kUsageMask) | (usage << kUsageShift);
      if (state.compare_exchange_weak(old, next, std::memory_order_release,
                                      std::memory_order_relaxed))
        return next;
    }
  }

  // Spins politely while the header lock is held by someone else.
  static void wait_header_unlocked(int spins) {
    if (spins < 100) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
};

}  // namespace tp::bufmgr
