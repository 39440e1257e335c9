// The handle state machine: names, legal transitions, the one function that moves a
// handle, and the steps shared by every method (execute, complete, reclaim).
#include <unistd.h>

#include <cerrno>

#include "aio/file.h"
#include "aio/internal.h"
#include "engine/core/wait_event.h"

namespace tp::aio {

const char* io_state_name(IoState state) {
  switch (state) {
    case IoState::kIdle:
      return "IDLE";
    case IoState::kHandedOut:
      return "HANDED_OUT";
    case IoState::kDefined:
      return "DEFINED";
    case IoState::kStaged:
      return "STAGED";
    case IoState::kSubmitted:
      return "SUBMITTED";
    case IoState::kCompletedIo:
      return "COMPLETED_IO";
    case IoState::kCompletedShared:
      return "COMPLETED_SHARED";
    case IoState::kCompletedLocal:
      return "COMPLETED_LOCAL";
  }
  return "?";
}

namespace {

// The lifecycle is a cycle with one shortcut: an acquired handle may be released unused.
bool transition_is_legal(IoState from, IoState to) {
  switch (from) {
    case IoState::kIdle:
      return to == IoState::kHandedOut;
    case IoState::kHandedOut:
      return to == IoState::kDefined || to == IoState::kIdle;
    case IoState::kDefined:
      return to == IoState::kStaged;
    case IoState::kStaged:
      return to == IoState::kSubmitted;
    case IoState::kSubmitted:
      return to == IoState::kCompletedIo;
    case IoState::kCompletedIo:
      return to == IoState::kCompletedShared;
    case IoState::kCompletedShared:
      return to == IoState::kCompletedLocal;
    case IoState::kCompletedLocal:
      return to == IoState::kIdle;
  }
  return false;
}

// The trace's timestamp for the step into `to`.
void stamp(IoTraceRecord& t, IoHandle& h, IoState to) {
  switch (to) {
    case IoState::kSubmitted:
      t.submitted = trace_clock_ns();
      break;
    case IoState::kCompletedIo: {
      const IoResult& r = HandleOps::result(h);
      t.io_done = trace_clock_ns();
      t.completer_tid = current_tid();
      t.status = uint8_t(r.status);
      t.bytes_done = r.bytes_done;
      break;
    }
    case IoState::kCompletedShared:
      t.callback_done = trace_clock_ns();
      break;
    case IoState::kCompletedLocal:
      t.reaped = trace_clock_ns();
      break;
    case IoState::kIdle:
      HandleOps::trace(h) = nullptr;  // the next I/O of this handle has its own record
      break;
    default:
      break;
  }
}

}  // namespace

void trace_staged(IoHandle& h, IoTrace& trace, IoMethodKind method) noexcept {
  IoTraceRecord* t = trace.new_io();
  HandleOps::trace(h) = t;
  if (t == nullptr) return;  // full: counted as dropped
  t->relnumber = HandleOps::file(h)->relnumber();
  t->first_block = HandleOps::first_block(h);
  t->nblocks = uint16_t(HandleOps::nblocks(h));
  t->write = HandleOps::op(h) == IoOp::kWrite;
  t->direct = HandleOps::direct(h);
  t->method = uint8_t(method);
  t->issuer_tid = current_tid();
  t->staged = trace_clock_ns();
}

void HandleOps::set_state(IoHandle& h, IoState to) {
  // Only one thread moves a handle at any time (the owner, or the single thread that
  // completes it), so a load + store is enough; release publishes the fields written
  // before the move to whoever observes the new state.
  uint64_t word = h.word_.load(std::memory_order_relaxed);
  IoState from = word_state(word);
  if (!transition_is_legal(from, to)) {
    std::fprintf(stderr, "tidepool: illegal I/O handle transition %s -> %s (handle %u)\n",
                 io_state_name(from), io_state_name(to), h.index_);
    TP_ASSERT(!"legal I/O handle state transition");
  }
  // A traced I/O's step is stamped before the state is published: past
  // COMPLETED_SHARED the completing thread must not touch the handle.
  if (IoTraceRecord* t = h.trace_) stamp(*t, h, to);
  uint64_t generation = word_generation(word) + (to == IoState::kIdle ? 1 : 0);
  h.word_.store(make_word(generation, to), std::memory_order_release);
  h.word_.notify_all();
}

IoWaitRef IoHandle::wait_ref() const {
  return IoWaitRef{index_, word_generation(word_.load(std::memory_order_acquire))};
}
IoState IoHandle::state() const {
  return word_state(word_.load(std::memory_order_acquire));
}
uint64_t IoHandle::generation() const {
  return word_generation(word_.load(std::memory_order_acquire));
}

void IoHandle::set_completion(const IoCompletion& completion) {
  TP_ASSERT(state() == IoState::kHandedOut);
  completion_ = completion;
}
void IoHandle::set_context(IoContext context) {
  TP_ASSERT(state() == IoState::kHandedOut);
  context_ = context;
}
void IoHandle::set_flags(uint32_t flags) {
  TP_ASSERT(state() == IoState::kHandedOut);
  TP_ASSERT((flags & ~uint32_t(kIoFlagAdvice | kIoFlagSynchronous | kIoFlagDirect)) == 0);
  flags_ = flags;
}

int64_t execute_io_now(IoHandle& h, uint32_t skip_bytes) {
  const uint32_t total = HandleOps::bytes_requested(h);
  const uint64_t base = HandleOps::offset_bytes(h);
  const iovec* iov = HandleOps::iov(h);
  const int nblocks = HandleOps::nblocks(h);
  const int fd = HandleOps::fd(h);
  const bool is_read = HandleOps::op(h) == IoOp::kRead;
  // The thread blocks in the system call: a session's thread (sync, or an I/O the
  // worker method runs inline) shows it in pg_stat_activity; I/O workers have no slot.
  WaitEventScope waiting(is_read ? WaitEvent::kDataFileRead : WaitEvent::kDataFileWrite);
  IoTraceRecord* traced = HandleOps::trace(h);
  if (traced != nullptr)
    traced->exec_begin = trace_clock_ns(), traced->executor_tid = current_tid();
  struct StampEnd {
    IoTraceRecord* t;
    ~StampEnd() {
      if (t != nullptr) t->exec_end = trace_clock_ns();
    }
  } stamp_end{traced};
  uint32_t done = skip_bytes;
  iovec rest[kMaxBlocksPerIo];
  while (done < total) {
    // Rebuild the vector from the first byte not yet transferred.
    int first = int(done / kBlockSize);
    uint32_t within = done % kBlockSize;
    int count = 0;
    for (int i = first; i < nblocks; ++i) rest[count++] = iov[i];
    rest[0].iov_base = static_cast<char*>(rest[0].iov_base) + within;
    rest[0].iov_len -= within;
    ssize_t n = is_read ? ::preadv(fd, rest, count, off_t(base + done))
                        : ::pwritev(fd, rest, count, off_t(base + done));
    int64_t moved = apply_transfer_faults(h, done, n < 0 ? -int64_t(errno) : int64_t(n));
    if (moved == -EINTR || moved == -EAGAIN) continue;  // nothing moved: try again
    if (moved < 0) {
      // What moved before the error is part of the result (complete_io reports it).
      HandleOps::progress_bytes(h) = done;
      return moved;
    }
    if (moved == 0) break;  // end of file (reads); a write of 0 bytes is reported as partial
    done += uint32_t(moved);
  }
  return done;
}

void complete_io(IoHandle& h, int64_t raw, ThreadSlot* completer) noexcept {
  ThreadSlot* owner = HandleOps::owner(h);
  IoFile* file = HandleOps::file(h);
  IoResult& r = HandleOps::result(h);
  r = IoResult{};
  r.op = HandleOps::op(h);
  r.bytes_requested = HandleOps::bytes_requested(h);
  r.relnumber = file->relnumber();
  r.first_block = HandleOps::first_block(h);
  r.nblocks = uint16_t(HandleOps::nblocks(h));
  if (raw < 0) {
    r.status = IoStatus::kError;
    r.error_number = int(-raw);
    r.bytes_done = HandleOps::progress_bytes(h);
  } else {
    r.bytes_done = uint32_t(raw);
    r.status = r.bytes_done == r.bytes_requested ? IoStatus::kOk : IoStatus::kPartial;
  }
  if (r.op == IoOp::kWrite && r.bytes_done >= kBlockSize)
    file->note_written_up_to(r.first_block + r.bytes_done / kBlockSize);
  HandleOps::set_state(h, IoState::kCompletedIo);

  IoCompletionInfo info{r.op,
                        file,
                        r.first_block,
                        HandleOps::nblocks(h),
                        HandleOps::iov(h),
                        HandleOps::completion(h).data};
  if (r.op == IoOp::kRead) apply_corruption_faults(info, r.relnumber, r);
  if (IoCompletionFn fn = HandleOps::completion(h).fn) fn(info, r);
  HandleOps::set_state(h, IoState::kCompletedShared);
  // From here a non-owner must not touch h: the owner may recycle it at any moment.
  if (completer != nullptr && completer == owner) reclaim_io(h);
}

void reclaim_io(IoHandle& h) noexcept {
  ThreadSlot& slot = *HandleOps::owner(h);
  HandleOps::set_state(h, IoState::kCompletedLocal);
  if (IoResult* out = HandleOps::issuer_result(h)) *out = HandleOps::result(h);
  HandleOps::issuer_result(h) = nullptr;
  slot.in_flight.erase(slot.in_flight.iterator_to(h));
  HandleOps::set_state(h, IoState::kIdle);
  slot.idle.push_front(h);  // reused first: its memory is warm
}

pid_t current_tid() {
  return trace_thread_id();  // one cached gettid per thread, shared with the I/O trace
}

}  // namespace tp::aio
