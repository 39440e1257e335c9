// The buffer descriptor's state word and the buffer lifecycle it encodes.
//
// Every buffer has one 32-bit atomic word (PostgreSQL 18 packs it the same way):
//
//   bit  31..28  27        26              25         24     23     22       21..18  17..0
//        unused  IO_ERROR  IO_IN_PROGRESS  TAG_VALID  VALID  DIRTY  LOCKED   usage   refcount
//
// refcount counts threads holding a pin (each thread once, see PrivatePins) plus one
// per I/O in flight on the buffer. usage is the clock-sweep popularity, 0..5. LOCKED is
// the header lock: held for a few instructions while the tag or flags change; pins wait
// while it is set, unpins never do.
//
// The flags describe one lifecycle. buffer_state_of() names the lifecycle state of a
// word and buffer_transition() is the one place that changes flags; it aborts on a move
// the table in bufmgr/README.md does not allow.
#pragma once

#include <cstdint>

namespace tp::bufmgr {

inline constexpr uint32_t kRefcountOne = 1u;
inline constexpr uint32_t kRefcountMask = (1u << 18) - 1;
inline constexpr uint32_t kUsageShift = 18;
inline constexpr uint32_t kUsageOne = 1u << kUsageShift;
inline constexpr uint32_t kUsageMask = 0xFu << kUsageShift;
inline constexpr uint32_t kMaxUsageCount = 5;

inline constexpr uint32_t kFlagLocked = 1u << 22;
inline constexpr uint32_t kFlagDirty = 1u << 23;
inline constexpr uint32_t kFlagValid = 1u << 24;
inline constexpr uint32_t kFlagTagValid = 1u << 25;
inline constexpr uint32_t kFlagIoInProgress = 1u << 26;
inline constexpr uint32_t kFlagIoError = 1u << 27;

// The flags that define the lifecycle state (LOCKED is a lock, not a state).
inline constexpr uint32_t kLifecycleFlags =
    kFlagDirty | kFlagValid | kFlagTagValid | kFlagIoInProgress | kFlagIoError;

inline constexpr uint32_t refcount_of(uint32_t word) {
  return word & kRefcountMask;
}
inline constexpr uint32_t usage_of(uint32_t word) {
  return (word & kUsageMask) >> kUsageShift;
}

// The lifecycle of one buffer. Each value says who moves it on.
enum class BufferState : uint8_t {
  kFree,     // no tag. The thread that took it as a victim gives it a tag -> kEmpty.
  kEmpty,    // tagged, contents not read. A reader sets IO_IN_PROGRESS -> kReading;
             // eviction or drop -> kFree.
  kReading,  // a read (or zero-fill) owns the buffer. The I/O's shared completion
             // -> kValid, kFailed, or back to kEmpty for blocks a short read missed.
  kValid,    // contents match the file. A writer with the exclusive content lock
             // -> kDirty; eviction or drop -> kFree.
  kDirty,    // contents newer than the file. Write-back -> kValid; drop -> kFree.
  kFailed,   // the last read failed (I/O error or bad checksum). A later reader
             // retries -> kReading; eviction or drop -> kFree.
  kIllegal,  // a flag combination that must never exist.
};

// Names the state for messages and introspection ("valid", "dirty", ...).
const char* buffer_state_name(BufferState state);

// The lifecycle state a state word encodes.
BufferState buffer_state_of(uint32_t word);

// True if the lifecycle allows moving from `from` to `to` (staying put is allowed).
bool buffer_transition_allowed(BufferState from, BufferState to);

// The one function that changes lifecycle flags: returns `word` with `set` added and
// `clear` removed, aborting if that is not a legal move. Refcount, usage and LOCKED
// pass through unchanged.
uint32_t buffer_transition(uint32_t word, uint32_t set, uint32_t clear);

}  // namespace tp::bufmgr
