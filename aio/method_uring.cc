// io_method=io_uring: one ring per thread slot, created when the thread first uses the
// IoSystem and closed when it gives the slot up.
//
// Only the owner thread submits to its ring, so the submission queue needs no lock. The
// completion queue has a mutex: the owner, or any thread waiting for one of the owner's
// I/Os, takes it to reap completions and runs the shared completion phase on the owner's
// behalf; the owner reclaims later. user_data is the handle's address.
//
// Short transfers and -EAGAIN / -EINTR completions: the owner resubmits the rest to its
// ring; another thread that reaps one finishes the rest with preadv in place (it may not
// touch the owner's ring). A resubmission can happen inside a submission (the kernel
// refused it: reap first), so submitting loops until the queue is empty (submit_queued).
//
// Buffered reads that hit the page cache would be copied inline, in the submitting
// thread, by io_uring_submit; with more than 4 I/Os in flight or an I/O of 4 blocks or
// more we set IOSQE_ASYNC so the copy happens in kernel workers (as PostgreSQL does).
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "aio/method.h"

namespace tp::aio {

namespace {

struct UringThreadState final : MethodThreadState {
  std::mutex completion_mutex;  // held to reap the CQ, and to open/close the ring
  io_uring ring{};
  bool ready = false;  // guarded by completion_mutex
  // SQEs the kernel took and whose completions were not reaped yet. Exact when read
  // under completion_mutex by the owner (the kRingBusy test fault relies on it).
  std::atomic<int> in_kernel{0};

  ~UringThreadState() override {
    if (ready) io_uring_queue_exit(&ring);
  }
};

UringThreadState& state_of(ThreadSlot& slot) {
  return static_cast<UringThreadState&>(*slot.method_state);
}

}  // namespace

void raise_uring_setup_error(int err) {
  std::string why;
  std::string hint;
  switch (err) {
    case EPERM:
      why = "io_uring is disabled on this system (sysctl kernel.io_uring_disabled)";
      hint = "Set kernel.io_uring_disabled = 0, or use io_method=worker.";
      break;
    case ENOMEM:
      why = "not enough locked memory for the ring";
      hint = "Raise the memlock limit (ulimit -l), or use io_method=worker.";
      break;
    case ENOSYS:
      why = "this kernel does not support io_uring";
      hint = "io_uring needs Linux 5.1 or later; use io_method=worker.";
      break;
    case EMFILE:
    case ENFILE:
      why = "too many open files (each thread's ring needs a file descriptor)";
      hint = "Raise the open files limit (ulimit -n), or use io_method=worker.";
      break;
    default:
      why = std::strerror(err);
      hint = "Use io_method=worker.";
      break;
  }
  // A kernel without io_uring cannot have it; otherwise a limit (locked memory,
  // open files) ran out.
  throw Error("could not set up io_uring: " + why, {}, hint)
      .with_sqlstate(err == ENOSYS ? sqlstate::kFeatureNotSupported
                                   : sqlstate::kInsufficientResources);
}

namespace {

class UringMethod final : public IoMethod {
 public:
  explicit UringMethod(int entries) : entries_(unsigned(entries)) {
    // Probe once, so an unusable io_uring is reported when the method is chosen.
    io_uring probe{};
    int rc = io_uring_queue_init(8, &probe, 0);
    if (rc < 0) raise_uring_setup_error(-rc);
    io_uring_queue_exit(&probe);
  }

  IoMethodKind kind() const override { return IoMethodKind::kIoUring; }

  void thread_start(ThreadSlot& slot) override {
    if (slot.method_state == nullptr) slot.method_state = std::make_unique<UringThreadState>();
    UringThreadState& st = state_of(slot);
    std::lock_guard lock(st.completion_mutex);
    TP_ASSERT(!st.ready);
    int rc = io_uring_queue_init(entries_, &st.ring, 0);
    if (rc < 0) raise_uring_setup_error(-rc);
    st.ready = true;
  }

  void thread_end(ThreadSlot& slot) override {
    if (slot.method_state == nullptr) return;
    UringThreadState& st = state_of(slot);
    std::lock_guard lock(st.completion_mutex);
    if (st.ready) io_uring_queue_exit(&st.ring);
    st.ready = false;
  }

  void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) override {
    UringThreadState& st = state_of(slot);
    for (IoHandle* h : ios) {
      HandleOps::progress_bytes(*h) = 0;
      queue_sqe(slot, st, *h);
    }
    submit_queued(slot, st, /*holding_completion_lock=*/false, ring_busy_fault_for(ios));
  }

  bool wait_one(IoHandle& h, uint64_t generation, ThreadSlot* caller) override {
    UringThreadState& st = state_of(*HandleOps::owner(h));
    std::lock_guard lock(st.completion_mutex);
    for (;;) {
      uint64_t word = HandleOps::load_word(h);
      if (word_generation(word) != generation || word_state(word) != IoState::kSubmitted)
        return true;
      TP_ASSERT(st.ready);  // a ring with I/O in flight is not closed
      if (io_uring_cq_ready(&st.ring) == 0) {
        io_uring_cqe* cqe = nullptr;
        int rc = io_uring_wait_cqe(&st.ring, &cqe);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN) {
          std::fprintf(stderr, "tidepool: io_uring_wait_cqe failed: %s\n", std::strerror(-rc));
          TP_ASSERT(!"io_uring_wait_cqe succeeds");
        }
      }
      drain(*HandleOps::owner(h), st, caller);
    }
  }

  void check_one(IoHandle& h, uint64_t /*generation*/, ThreadSlot* caller) override {
    UringThreadState& st = state_of(*HandleOps::owner(h));
    // Whoever holds the lock is reaping already; never wait for it here.
    std::unique_lock lock(st.completion_mutex, std::try_to_lock);
    if (!lock.owns_lock() || !st.ready) return;
    if (io_uring_cq_ready(&st.ring) > 0) drain(*HandleOps::owner(h), st, caller);
  }

 private:
  // Owner only: fills one SQE for the bytes of `h` not yet transferred.
  void queue_sqe(ThreadSlot& slot, UringThreadState& st, IoHandle& h) {
    io_uring_sqe* sqe = io_uring_get_sqe(&st.ring);
    // The SQ has room for every handle of the slot, and is flushed at every submit.
    TP_ASSERT(sqe != nullptr);
    const uint32_t done = HandleOps::progress_bytes(h);
    const iovec* iov = HandleOps::iov(h);
    int first = int(done / kBlockSize);
    int count = HandleOps::nblocks(h) - first;
    if (done % kBlockSize != 0 || first > 0) {
      // Resubmitting the rest of a short transfer: a private copy of the vector, since
      // the callback's view (iov) must keep describing whole blocks.
      iovec* work = HandleOps::work_iov(h);
      for (int i = 0; i < count; ++i) work[i] = iov[first + i];
      work[0].iov_base = static_cast<char*>(work[0].iov_base) + done % kBlockSize;
      work[0].iov_len -= done % kBlockSize;
      iov = work;
    } else {
      iov = iov + first;
    }
    const uint64_t offset = HandleOps::offset_bytes(h) + done;
    const bool is_read = HandleOps::op(h) == IoOp::kRead;
    if (is_read)
      io_uring_prep_readv(sqe, HandleOps::fd(h), iov, unsigned(count), offset);
    else
      io_uring_prep_writev(sqe, HandleOps::fd(h), iov, unsigned(count), offset);
    io_uring_sqe_set_data(sqe, &h);
    if (is_read && !HandleOps::direct(h) &&
        (slot.in_flight.size() > 4 || HandleOps::nblocks(h) >= 4))
      io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
  }

  // Owner only: hands every queued SQE to the kernel. It loops until the submission
  // queue is empty instead of counting its own entries: reaping in here (on EAGAIN or
  // EBUSY) may resubmit a short transfer, and that nested call flushes everything queued,
  // this call's entries included, so a count of them would never be reached.
  void submit_queued(ThreadSlot& slot, UringThreadState& st, bool holding_completion_lock,
                     int busy_fault = 0) {
    while (io_uring_sq_ready(&st.ring) > 0) {
      int rc =
          busy_fault != 0 && refuse_as_busy(st, busy_fault) ? -EBUSY : io_uring_submit(&st.ring);
      busy_fault = 0;
      if (rc > 0) {
        st.in_kernel.fetch_add(rc, std::memory_order_relaxed);
        continue;
      }
      if (rc == -EINTR) continue;
      if (rc == 0 || rc == -EAGAIN || rc == -EBUSY) {
        // The kernel wants completions reaped first. Never block on the lock: its holder
        // may be waiting for exactly the I/O we are trying to submit.
        if (holding_completion_lock) {
          drain(slot, st, &slot);
          continue;
        }
        std::unique_lock lock(st.completion_mutex, std::try_to_lock);
        if (lock.owns_lock())
          drain(slot, st, &slot);
        else
          std::this_thread::yield();
        continue;
      }
      // Anything else means a broken ring or kernel; there is no sane way on.
      std::fprintf(stderr, "tidepool: io_uring_submit failed: %s\n", std::strerror(-rc));
      TP_ASSERT(!"io_uring_submit succeeds");
    }
  }

  // The kRingBusy test fault: makes the submission look refused by a busy kernel once a
  // completion is ready to be reaped (waiting for one of the I/Os the kernel holds).
  // Fires only when it can: some I/O is in the kernel and no other thread is reaping.
  static bool refuse_as_busy(UringThreadState& st, int fault_id) {
    std::unique_lock lock(st.completion_mutex, std::try_to_lock);
    if (!lock.owns_lock() || st.in_kernel.load(std::memory_order_relaxed) == 0) return false;
    io_uring_cqe* cqe = nullptr;
    int rc;
    do rc = io_uring_wait_cqe(&st.ring, &cqe);  // leaves the completion in the queue
    while (rc == -EINTR);
    if (rc < 0) return false;
    fault_fired(fault_id);
    return true;
  }

  // Completion lock held: processes the CQEs that are ready now.
  void drain(ThreadSlot& owner, UringThreadState& st, ThreadSlot* caller) {
    io_uring_cqe* cqes[kMaxBatchSize];
    for (;;) {
      unsigned n = io_uring_peek_batch_cqe(&st.ring, cqes, kMaxBatchSize);
      if (n == 0) return;
      IoHandle* handles[kMaxBatchSize];
      int results[kMaxBatchSize];
      for (unsigned i = 0; i < n; ++i) {
        handles[i] = static_cast<IoHandle*>(io_uring_cqe_get_data(cqes[i]));
        results[i] = cqes[i]->res;
      }
      io_uring_cq_advance(&st.ring, n);  // copy first: completion may refill the CQ
      st.in_kernel.fetch_sub(int(n), std::memory_order_relaxed);
      for (unsigned i = 0; i < n; ++i) process(owner, st, *handles[i], results[i], caller);
    }
  }

  void process(ThreadSlot& owner, UringThreadState& st, IoHandle& h, int res, ThreadSlot* caller) {
    const uint32_t total = HandleOps::bytes_requested(h);
    uint32_t& done = HandleOps::progress_bytes(h);
    const int64_t moved = apply_transfer_faults(h, done, res);
    bool retry = moved == -EAGAIN || moved == -EINTR;
    if (moved < 0 && !retry) {
      complete_io(h, moved, caller);  // progress_bytes: what moved before the error
      return;
    }
    if (moved > 0) done += uint32_t(moved);
    if (done == total || moved == 0) {
      complete_io(h, done, caller);  // res == 0: end of file, PARTIAL unless all done
      return;
    }
    if (caller == &owner) {
      queue_sqe(owner, st, h);
      submit_queued(owner, st, /*holding_completion_lock=*/true);
    } else {
      complete_io(h, execute_io_now(h, done), caller);
    }
  }

  unsigned entries_;
};

}  // namespace

std::unique_ptr<IoMethod> make_uring_method(int entries) {
  return std::make_unique<UringMethod>(entries);
}

}  // namespace tp::aio
