// LiveView: one moment of a Database as the live page draws it (`tidepool serve
// --http`), as JSON. Everything comes from state the system views already read from
// any thread (engine/session/system_views.h): the pool's buffer headers
// (BufferPool::snapshot) and its clock hand, the I/Os in flight (IoSystem::in_flight),
// the pool's counters, and the session registry. It is taken under the database lock
// in watch mode, so a SET that rebuilds the pool or the I/O system never runs under it.
//
// Bounded whatever the pool's size: at most `max_cells` cells (a pool of more buffers
// is drawn as cells of `cell` buffers each, with the mix of their states), and at most
// max_ios I/Os and max_sessions sessions, so a snapshot stays under ~350 kB.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "bufmgr/pool_counters.h"
#include "engine/session/database.h"

namespace tp::live {

struct LiveLimits {
  int max_cells = 16384;  // the default pool (128 MB) one buffer a cell
  int max_ios = 256;
  int max_sessions = 64;
  size_t max_query_bytes = 200;  // of each session's statement
};

// A buffer's state as the page colours it.
enum class CellState : int { kFree = 0, kValid = 1, kDirty = 2, kPinned = 3, kIo = 4 };
inline constexpr int kCellStates = 5;

class LiveView {
 public:
  explicit LiveView(Database& db, LiveLimits limits = {});

  // The next snapshot, its rates (hits and reads per second) against the previous
  // call's counters. Empty when the database lock could not be taken in watch mode
  // right now (a SET rebuilding the pool): the caller tries again at its next tick.
  std::string next_json();
  // pg_buffercache's rows of the buffers of cell `cell`, the pool divided as next_json
  // divides it (at most 64), as JSON; "null" for a cell out of range.
  std::string cell_json(int64_t cell);

 private:
  Database& db_;
  LiveLimits limits_;
  uint64_t seq_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bufmgr::PoolCounters last_counters_{};
};

// Buffers per cell so that `buffers` make at most `max_cells` cells.
int buffers_per_cell(int buffers, int max_cells);

}  // namespace tp::live
