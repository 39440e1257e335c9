// The pool's counters, per I/O context (like pg_stat_io's rows for shared buffers).
// Each thread keeps its share in its ThreadPins (thread_pins.h); BufferPool::counters
// sums them.
#pragma once

#include <cstdint>

#include "aio/aio.h"

namespace tp::bufmgr {

// The context is aio's: what the thread was doing when it touched a buffer (a ring's bulk
// read or write, or normal work), the same tag its I/Os carry into aio's statistics.
using aio::IoContext;
using aio::kIoContextCount;

// Per-context counters of one pool (sums over threads).
struct PoolCounters {
  uint64_t hits = 0;       // a pin found the page valid in the pool
  uint64_t reads = 0;      // blocks read from the file (not I/Os: a 16-block read counts 16)
  uint64_t writes = 0;     // blocks written back (eviction, flush)
  uint64_t evictions = 0;  // valid buffers given up for another page
  uint64_t extends = 0;    // blocks added to files
};

enum class Counter : uint8_t { kHit, kRead, kWrite, kEviction, kExtend };
inline constexpr int kCounterCount = 5;

}  // namespace tp::bufmgr
