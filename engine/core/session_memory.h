// What one session holds in memory that grows with what its client sends or
// asks for, as `tidepool_session_memory` shows it (engine/session/README.md).
//
// Accounted, not measured: each holder of such memory (the server's message
// buffers, the statement's text and parse tree, a Sort's rows, a hash table)
// publishes its current size through a TrackedMemory, at the points where it
// grows anyway (per message, per parse chunk, per input batch), so the figure
// costs one relaxed atomic add per batch and no hook on malloc. Fixed-size
// state (a plan's nodes, a scan's read stream, pinned buffers of the shared
// pool) is not counted: it does not grow with the client's demands.
//
// A holder takes the gauge of the session whose statement runs on the thread
// that creates it (a parallel worker's nodes are built by the leader's thread),
// so its updates from any thread count for that session.
#pragma once

#include <atomic>
#include <cstdint>

namespace tp {

enum class MemoryPart : int {
  kMessages,   // the protocol message being handled and the queued replies
  kStatement,  // the statement's text and parse tree
  kExecutor,   // rows held by Sort, Incremental Sort, hashing, DISTINCT aggregates
  kCount,
};

class SessionMemory {
 public:
  // Adds `delta` (negative to release) to `part`, and the total's peak.
  void add(MemoryPart part, int64_t delta) {
    parts_[int(part)].fetch_add(delta, std::memory_order_relaxed);
    const int64_t total = total_.fetch_add(delta, std::memory_order_relaxed) + delta;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (total > peak && !peak_.compare_exchange_weak(peak, total, std::memory_order_relaxed)) {
    }
  }
  int64_t bytes(MemoryPart part) const { return parts_[int(part)].load(std::memory_order_relaxed); }
  int64_t total() const { return total_.load(std::memory_order_relaxed); }
  // The highest total since the session began.
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> parts_[int(MemoryPart::kCount)] = {};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> peak_{0};
};

// The gauge of the session whose statement runs on this thread, or nullptr.
inline SessionMemory*& session_memory() {
  thread_local SessionMemory* gauge = nullptr;
  return gauge;
}

// Points this thread's session_memory() at `gauge` for its lifetime.
class SessionMemoryScope {
 public:
  explicit SessionMemoryScope(SessionMemory& gauge) : saved_(session_memory()) {
    session_memory() = &gauge;
  }
  ~SessionMemoryScope() { session_memory() = saved_; }
  SessionMemoryScope(const SessionMemoryScope&) = delete;
  SessionMemoryScope& operator=(const SessionMemoryScope&) = delete;

 private:
  SessionMemory* saved_;
};

// One holder's share of a part: set() publishes its current size, the
// destructor withdraws it. Without a gauge (no session, a unit test) it does
// nothing. The gauge must outlive it: a session's gauge lives as long as the
// session, and holders live within a statement or a connection's query loop.
class TrackedMemory {
 public:
  explicit TrackedMemory(MemoryPart part, SessionMemory* gauge = session_memory())
      : gauge_(gauge), part_(part) {}
  ~TrackedMemory() { set(0); }
  TrackedMemory(const TrackedMemory&) = delete;
  TrackedMemory& operator=(const TrackedMemory&) = delete;

  void set(uint64_t bytes) {
    if (gauge_ == nullptr || bytes == held_) return;
    gauge_->add(part_, int64_t(bytes) - int64_t(held_));
    held_ = bytes;
  }
  uint64_t held() const { return held_; }

 private:
  SessionMemory* gauge_;
  MemoryPart part_;
  uint64_t held_ = 0;
};

}  // namespace tp
