// What a session's thread is waiting for, as pg_stat_activity's wait_event_type
// and wait_event show it. A session points its thread's slot at its registry
// entry's word (engine/session/session_registry.h) for one statement; code that
// blocks (waiting for an I/O, for a table lock) wraps the wait in a
// WaitEventScope. Threads without a slot (parallel workers, I/O workers) pay
// one thread-local load and nothing else; publishing is one relaxed store, so
// the scope costs nothing worth measuring beside the wait it marks.
#pragma once

#include <atomic>
#include <cstdint>

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

// Publishes `e` for its lifetime (nested scopes restore the outer wait).
class WaitEventScope {
 public:
  explicit WaitEventScope(WaitEvent e) : slot_(wait_event_slot()) {
    if (slot_ != nullptr) saved_ = slot_->exchange(uint32_t(e), std::memory_order_relaxed);
  }
  ~WaitEventScope() {
    if (slot_ != nullptr) slot_->store(saved_, std::memory_order_relaxed);
  }
  WaitEventScope(const WaitEventScope&) = delete;
  WaitEventScope& operator=(const WaitEventScope&) = delete;

 private:
  std::atomic<uint32_t>* slot_;
  uint32_t saved_ = 0;
};

}  // namespace tp
