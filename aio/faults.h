// Fault injection for tests: make chosen reads or writes (relation + block) fail, stop
// short, or need a retry, once or always. Transfer faults act on the result of each
// transfer attempt (every preadv/pwritev, every io_uring completion) on the thread that
// saw it, so they drive the real retry and error paths of every method: an attempt that
// ran past the fault's offset is reported as stopping there (a short transfer, as the
// kernel may return one; the bytes past it may have moved and are moved again by the
// retry, or, after a write error, stay written), and the attempt that starts at the
// offset gets the fault. Costs one relaxed atomic load per transfer when no rule is set.
#pragma once

#include <chrono>
#include <cstdint>

#include "aio/aio.h"
#include "engine/core/block.h"

namespace tp::aio {

enum class FaultKind : uint8_t {
  // Reads or writes: the transfer reaching the block fails with EIO. The bytes before it
  // are transferred and reported with the error (ERROR, bytes_done = the block's offset).
  kEio,
  // Reads: the read ends 4096 bytes into the block, as at end of file: PARTIAL.
  kShortRead,
  // Reads: the read succeeds but bytes of the block are flipped in memory (checksums).
  kCorrupt,
  // Writes: as kEio, with ENOSPC (a full disk).
  kNoSpace,
  // Writes: the write stops 4096 bytes into the block and then makes no more progress
  // (the kernel wrote 0 bytes): PARTIAL, "wrote only N of M bytes".
  kShortWrite,
  // Reads or writes: one transfer stops 4096 bytes into the block (a short transfer the
  // kernel may return at any time); the rest is transferred by a retry: OK.
  kShortTransfer,
  // Reads or writes: the transfer reaching the block reports EAGAIN; it is retried: OK.
  // Must be `once` (retrying a fault that always fires would never end).
  kAgain,
  // io_uring only: the owner's submission of an I/O covering the block is refused with
  // EBUSY (the kernel's "reap completions first") once a completion of an earlier I/O is
  // ready, and that completion is then reaped inside the submission. Fires only when the
  // ring has I/O in the kernel and no other thread is reaping it; stays armed otherwise.
  kRingBusy,
};

struct FaultRule {
  uint32_t relnumber = 0;  // IoFile::relnumber()
  BlockNumber block = kInvalidBlock;
  FaultKind kind = FaultKind::kEio;
  bool once = true;       // removed after its first hit; otherwise hits every transfer reaching it
  IoOp op = IoOp::kRead;  // which I/Os it applies to
};

// Adds a rule; returns its id. Thread-safe. Throws tp::Error for a kind that does not
// apply to the rule's op (kShortRead or kCorrupt on writes, kNoSpace or kShortWrite on
// reads) and for a kAgain rule that is not `once`.
int inject_fault(const FaultRule& rule);
// Removes every rule.
void clear_faults();
// Times any rule fired since the last clear_faults().
uint64_t fault_hits();

// Slows every transfer of relation `relnumber` (each preadv/pwritev of sync, worker and
// the io_uring reaper fallback, each io_uring completion) by `delay`, on the thread that
// saw it, before the I/O completes; its outcome is unchanged. Tests use it to make I/Os
// last long enough to be seen in flight (pg_aios) and waited for (wait events). A zero
// delay turns it off; one relation at a time. Costs one relaxed load per transfer.
void set_transfer_delay(uint32_t relnumber, std::chrono::microseconds delay);

// RAII helper for tests: clears every rule on scope exit.
struct ScopedFaults {
  ScopedFaults() { clear_faults(); }
  ~ScopedFaults() { clear_faults(); }
  ScopedFaults(const ScopedFaults&) = delete;
  ScopedFaults& operator=(const ScopedFaults&) = delete;
};

}  // namespace tp::aio
