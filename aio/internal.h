// Internals shared by the files of aio/: per-thread slots, the one function that moves a
// handle's state, and the execute/complete/reclaim steps every method is built from.
// Not for use outside aio/.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <boost/intrusive/list.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "aio/aio.h"
#include "engine/core/error.h"

namespace tp::aio {

using HandleList = boost::intrusive::list<
    IoHandle,
    boost::intrusive::member_hook<IoHandle, boost::intrusive::list_member_hook<>,
                                  &IoHandle::owner_link>,
    boost::intrusive::constant_time_size<true>>;

// Method-owned state of one thread slot (e.g. its io_uring ring).
struct MethodThreadState {
  virtual ~MethodThreadState() = default;
};

// The handles and bookkeeping of one thread using one IoSystem. The slot outlives the
// thread: when the thread exits it is returned (all I/O completed) and a later thread may
// take it, so wait refs to its handles stay meaningful.
struct ThreadSlot {
  uint32_t slot_index = 0;
  int handle_count = 0;
  std::unique_ptr<IoHandle[]> handles;
  std::atomic<pid_t> owner_tid{0};  // 0 while free

  // Owner only.
  HandleList idle;       // most recently recycled first
  HandleList in_flight;  // SUBMITTED .. COMPLETED_SHARED, oldest first
  IoHandle* staged[kMaxBatchSize] = {};
  int staged_count = 0;
  IoHandle* handed_out = nullptr;  // handed out and not yet defined
  bool in_batch = false;

  std::unique_ptr<MethodThreadState> method_state;
};

// Unpacking of IoHandle::word_.
inline IoState word_state(uint64_t word) {
  return IoState(word & 0xff);
}
inline uint64_t word_generation(uint64_t word) {
  return word >> 8;
}
inline uint64_t make_word(uint64_t generation, IoState state) {
  return generation << 8 | uint64_t(state);
}

// Friend of IoHandle: the only code touching its private fields.
struct HandleOps {
  static uint64_t load_word(const IoHandle& h) { return h.word_.load(std::memory_order_acquire); }
  // Moves `h` to `to`, asserting the transition is legal; IDLE bumps the generation.
  // Wakes every thread sleeping on the handle.
  static void set_state(IoHandle& h, IoState to);
  // Sleeps until the handle's word differs from `seen`.
  static void sleep_on(const IoHandle& h, uint64_t seen) { h.word_.wait(seen); }

  static uint32_t& index(IoHandle& h) { return h.index_; }
  static ThreadSlot*& owner(IoHandle& h) { return h.owner_; }
  static IoOp& op(IoHandle& h) { return h.op_; }
  static bool& direct(IoHandle& h) { return h.direct_; }
  static IoContext& context(IoHandle& h) { return h.context_; }
  static uint32_t& flags(IoHandle& h) { return h.flags_; }
  static int& fd(IoHandle& h) { return h.fd_; }
  static IoFile*& file(IoHandle& h) { return h.file_; }
  static BlockNumber& first_block(IoHandle& h) { return h.first_block_; }
  static int& nblocks(IoHandle& h) { return h.nblocks_; }
  static IoCompletion& completion(IoHandle& h) { return h.completion_; }
  static iovec* iov(IoHandle& h) { return h.iov_; }
  static iovec* work_iov(IoHandle& h) { return h.work_iov_; }
  static IoResult*& issuer_result(IoHandle& h) { return h.issuer_result_; }
  static IoTraceRecord*& trace(IoHandle& h) { return h.trace_; }
  static IoResult& result(IoHandle& h) { return h.result_; }
  static std::atomic<uint64_t>& claimed_generation(IoHandle& h) { return h.claimed_generation_; }
  static uint32_t& progress_bytes(IoHandle& h) { return h.progress_bytes_; }
  static std::atomic<uint64_t>& shown_target(IoHandle& h) { return h.shown_target_; }
  static std::atomic<uint64_t>& shown_shape(IoHandle& h) { return h.shown_shape_; }

  static uint32_t bytes_requested(const IoHandle& h) { return uint32_t(h.nblocks_) * kBlockSize; }
  static uint64_t offset_bytes(const IoHandle& h) { return uint64_t(h.first_block_) * kBlockSize; }
};

// Runs the I/O described by `h` with preadv/pwritev in the calling thread, starting
// `skip_bytes` in, continuing after short transfers (and EINTR / EAGAIN) until done, end
// of file (0) or an error. Returns bytes transferred (counting skip_bytes), or -errno
// with the bytes transferred before the error left in progress_bytes. Never throws.
int64_t execute_io_now(IoHandle& h, uint32_t skip_bytes = 0);

// The completion every method funnels into, on whichever thread finished the I/O:
// encodes `raw` (bytes, or -errno with the bytes moved before it in progress_bytes) into
// the result, applies injected corruption, moves SUBMITTED -> COMPLETED_IO, runs the
// shared callback, -> COMPLETED_SHARED (waking waiters). If `completer` is the handle's owner slot,
// reclaims at once. Never throws.
void complete_io(IoHandle& h, int64_t raw, ThreadSlot* completer) noexcept;

// A traced statement's I/O being staged (the caller's thread has a trace): gives `h` a
// record of the trace, with what it reads or writes and how. Owner only.
void trace_staged(IoHandle& h, IoTrace& trace, IoMethodKind method) noexcept;

// Owner phase: COMPLETED_SHARED -> COMPLETED_LOCAL -> IDLE. Fills the issuer's result,
// unlinks from the in-flight list, pushes the handle on the idle list. Owner thread only.
void reclaim_io(IoHandle& h) noexcept;

// Injected faults (faults.cc). Each costs one relaxed load when no rule is set; none throws.
// What one transfer attempt of `h` that started `done` bytes in and moved `moved` bytes
// (or failed: -errno) is to be reported as: called after every preadv/pwritev and every
// io_uring completion, before the result is acted on.
int64_t apply_transfer_faults(IoHandle& h, uint32_t done, int64_t moved) noexcept;
// Flips bytes of fully read blocks named by kCorrupt rules (before the shared callback).
void apply_corruption_faults(const IoCompletionInfo& info, uint32_t relnumber,
                             const IoResult& result) noexcept;
// io_uring submission: the id of a kRingBusy rule covering one of `ios`, or 0.
int ring_busy_fault_for(std::span<IoHandle* const> ios) noexcept;
// Counts a hit of rule `id` (removing it if it fires once).
void fault_fired(int id) noexcept;

// The calling thread's kernel id, cached.
pid_t current_tid();

}  // namespace tp::aio
