// What a session's thread is waiting for, as pg_stat_activity's wait_event_type
// and wait_event show it. A session points its thread's slot at its registry
// entry's word (engine/session/session_registry.h) for one statement; code that
// blocks (waiting for an I/O, for a table lock) wraps the wait in a
// WaitEventScope. Threads without a slot (parallel workers, I/O workers) pay
// one thread-local load and nothing else; publishing is one relaxed store, so
// the scope costs nothing worth measuring beside the wait it marks. A statement
// traced with io_trace (engine/core/io_trace.h) also gets each wait as a slice.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

namespace tp {

// PostgreSQL's names (wait_event_type / wait_event), those tidepool can reach.
enum class WaitEvent : uint32_t {
  kNone = 0,
  kDataFileRead,     // IO / DataFileRead: waiting for a read of a relation's block
  kDataFileWrite,    // IO / DataFileWrite: writing a dirty page back
  kAioIoCompletion,  // IO / AioIoCompletion: waiting for an I/O another thread started
  kBufferPin,        // BufferPin / BufferPin: waiting for a free buffer
  kLockRelation,     // Lock / relation: waiting for a table lock
};

inline const char* wait_event_type_name(WaitEvent e) {
  switch (e) {
    case WaitEvent::kDataFileRead:
    case WaitEvent::kDataFileWrite:
    case WaitEvent::kAioIoCompletion:
      return "IO";
    case WaitEvent::kBufferPin:
      return "BufferPin";
    case WaitEvent::kLockRelation:
      return "Lock";
    case WaitEvent::kNone:
      break;
  }
  return "";
}

inline const char* wait_event_name(WaitEvent e) {
  switch (e) {
    case WaitEvent::kDataFileRead:
      return "DataFileRead";
    case WaitEvent::kDataFileWrite:
      return "DataFileWrite";
    case WaitEvent::kAioIoCompletion:
      return "AioIoCompletion";
    case WaitEvent::kBufferPin:
      return "BufferPin";
    case WaitEvent::kLockRelation:
      return "relation";
    case WaitEvent::kNone:
      break;
  }
  return "";
}

// This thread's published wait, or nullptr when nobody watches it.
inline std::atomic<uint32_t>*& wait_event_slot() {
  thread_local std::atomic<uint32_t>* slot = nullptr;
  return slot;
}

class IoTrace;

// The I/O trace this thread records into, or nullptr (engine/core/io_trace.h).
inline IoTrace*& current_io_trace() {
  thread_local IoTrace* trace = nullptr;
  return trace;
}

// Nanoseconds on CLOCK_MONOTONIC: every timestamp of a trace, from every thread.
inline int64_t trace_clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Records the wait `e` from `begin_ns` to now into `trace` (io_trace.cc).
void trace_wait(IoTrace* trace, WaitEvent e, int64_t begin_ns);

// Publishes `e` for its lifetime (nested scopes restore the outer wait).
class WaitEventScope {
 public:
  explicit WaitEventScope(WaitEvent e) : slot_(wait_event_slot()), trace_(current_io_trace()) {
    if (slot_ != nullptr) saved_ = slot_->exchange(uint32_t(e), std::memory_order_relaxed);
    if (trace_ != nullptr) event_ = e, begin_ns_ = trace_clock_ns();
  }
  ~WaitEventScope() {
    if (slot_ != nullptr) slot_->store(saved_, std::memory_order_relaxed);
    if (trace_ != nullptr) trace_wait(trace_, event_, begin_ns_);
  }
  WaitEventScope(const WaitEventScope&) = delete;
  WaitEventScope& operator=(const WaitEventScope&) = delete;

 private:
  std::atomic<uint32_t>* slot_;
  IoTrace* trace_;
  uint32_t saved_ = 0;
  WaitEvent event_ = WaitEvent::kNone;
  int64_t begin_ns_ = 0;
};

}  // namespace tp
