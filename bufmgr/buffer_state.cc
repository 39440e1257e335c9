#include "bufmgr/buffer_state.h"

#include "engine/core/error.h"

namespace tp::bufmgr {

const char* buffer_state_name(BufferState state) {
  switch (state) {
    case BufferState::kFree:
      return "free";
    case BufferState::kEmpty:
      return "empty";
    case BufferState::kReading:
      return "reading";
    case BufferState::kValid:
      return "valid";
    case BufferState::kDirty:
      return "dirty";
    case BufferState::kFailed:
      return "failed";
    case BufferState::kIllegal:
      return "illegal";
  }
  return "illegal";
}

BufferState buffer_state_of(uint32_t word) {
  const uint32_t f = word & kLifecycleFlags;
  if (f == 0) return BufferState::kFree;
  if (!(f & kFlagTagValid)) return BufferState::kIllegal;
  switch (f & ~kFlagTagValid) {
    case 0:
      return BufferState::kEmpty;
    // A retry of a failed read keeps IO_ERROR until the new outcome is known.
    case kFlagIoInProgress:
    case kFlagIoInProgress | kFlagIoError:
      return BufferState::kReading;
    case kFlagValid:
      return BufferState::kValid;
    case kFlagValid | kFlagDirty:
      return BufferState::kDirty;
    case kFlagIoError:
      return BufferState::kFailed;
    default:
      return BufferState::kIllegal;
  }
}

bool buffer_transition_allowed(BufferState from, BufferState to) {
  if (from == BufferState::kIllegal || to == BufferState::kIllegal) return false;
  if (from == to) return true;
  using S = BufferState;
  switch (from) {
    case S::kFree:
      return to == S::kEmpty;
    case S::kEmpty:
      return to == S::kReading || to == S::kFree;
    case S::kReading:
      return to == S::kValid || to == S::kFailed || to == S::kEmpty;
    case S::kValid:
      return to == S::kDirty || to == S::kFree;
    case S::kDirty:
      return to == S::kValid || to == S::kFree;
    case S::kFailed:
      return to == S::kReading || to == S::kFree;
    case S::kIllegal:
      return false;
  }
  return false;
}

uint32_t buffer_transition(uint32_t word, uint32_t set, uint32_t clear) {
  const uint32_t next = (word | set) & ~clear;
  if (!buffer_transition_allowed(buffer_state_of(word), buffer_state_of(next))) {
    std::fprintf(stderr, "tidepool: illegal buffer transition %s -> %s (word %08x -> %08x)\n",
                 buffer_state_name(buffer_state_of(word)), buffer_state_name(buffer_state_of(next)),
                 word, next);
    TP_ASSERT(!"illegal buffer state transition");
  }
  return next;
}

}  // namespace tp::bufmgr
