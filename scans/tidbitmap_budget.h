// How many page entries a TID bitmap may hold for a memory budget.
//
// Header-only so the planner (engine/plan/cost_model) and the bitmap itself
// (scans/tidbitmap) share one formula without a link dependency: the cost model
// must predict lossiness with exactly the limit the executor will apply.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

#include "engine/core/page.h"

namespace tp {

// PostgreSQL charges each page-table entry 64 bytes on a 64-bit build: a
// 48-byte entry (block, flags, five 64-bit words) plus two pointers of hash
// table overhead. tidepool keeps that accounting so plans agree with
// PostgreSQL's (work_mem 4 MB -> 65,536 entries).
inline constexpr int64_t kTbmBytesPerEntry = 64;

// Exact pages hold one bit per possible line pointer: kMaxHeapTuplesPerPage (engine/core/page.h).

// A lossy chunk covers this many consecutive heap pages (BLCKSZ / 32).
inline constexpr uint32_t kTbmPagesPerChunk = 256;

// Contract: returns the entry budget for `budget_bytes` of memory, clamped to
// [16, INT_MAX - 1] like PostgreSQL's tbm_calculate_entries.
constexpr int64_t tbm_max_entries(double budget_bytes) {
  const double raw = budget_bytes / static_cast<double>(kTbmBytesPerEntry);
  int64_t entries = raw >= static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int64_t>(raw);
  entries = std::min<int64_t>(entries, INT_MAX - 1);
  return std::max<int64_t>(entries, 16);
}

}  // namespace tp
