// Fault injection for tests: make chosen reads (relation + block) fail, once or always.
// Applied in the common completion path, so it behaves the same under every method and
// runs on the completing thread like a real failure would. Costs one relaxed atomic load
// per completed read when no rule is set.
#pragma once

#include <cstdint>

#include "engine/page.h"

namespace tp::aio {

enum class FaultKind : uint8_t {
  kEio,        // the read fails with EIO; bytes before the block count as done
  kShortRead,  // the read stops 4096 bytes into the block: PARTIAL
  kCorrupt,    // the read succeeds but bytes of the block are flipped in memory
};

struct FaultRule {
  uint32_t relnumber = 0;  // IoFile::relnumber()
  BlockNumber block = kInvalidBlock;
  FaultKind kind = FaultKind::kEio;
  bool once = true;  // removed after its first hit; otherwise hits every read of the block
};

// Adds a rule; returns its id. Thread-safe.
int inject_fault(const FaultRule& rule);
// Removes one rule (no-op if gone) or all of them.
void remove_fault(int id);
void clear_faults();
// Times any rule fired since the last clear_faults().
uint64_t fault_hits();

// RAII helper for tests: clears every rule on scope exit.
struct ScopedFaults {
  ScopedFaults() { clear_faults(); }
  ~ScopedFaults() { clear_faults(); }
  ScopedFaults(const ScopedFaults&) = delete;
  ScopedFaults& operator=(const ScopedFaults&) = delete;
};

}  // namespace tp::aio
