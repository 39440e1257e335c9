// The small interface every I/O method implements (one file each: method_sync.cc,
// method_worker.cc, method_uring.cc). The core (io_system.cc) owns handles and states;
// a method only gets SUBMITTED handles to execute and reports them through complete_io().
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "aio/internal.h"

namespace tp::aio {

class IoMethod {
 public:
  virtual ~IoMethod() = default;
  virtual IoMethodKind kind() const = 0;

  // Called on a thread's first use of the IoSystem, on that thread. May throw tp::Error
  // (e.g. the ring cannot be set up): nothing is in flight yet.
  virtual void thread_start(ThreadSlot& /*slot*/) {}
  // Called when a slot is given up (thread exit or IoSystem teardown), after all of its
  // I/O completed. Frees per-thread resources.
  virtual void thread_end(ThreadSlot& /*slot*/) {}

  // Owner thread: start the I/Os (all SUBMITTED and in the owner's in-flight list).
  // Must not throw; failures are encoded in the results. A handle may be completed (and,
  // on the owner, reclaimed) before this returns, so it must not be touched after that.
  virtual void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) = 0;

  // Any thread, `h` seen SUBMITTED at `generation`: make progress on it if the method
  // can (sync: execute it; io_uring: reap the owner's ring). Returns false if the caller
  // should simply sleep on the handle until another thread completes it. `caller` is the
  // waiting thread's slot or null.
  virtual bool wait_one(IoHandle& /*h*/, uint64_t /*generation*/, ThreadSlot* /*caller*/) {
    return false;
  }
  // Non-blocking variant of wait_one: reap what is ready, never sleep.
  virtual void check_one(IoHandle& /*h*/, uint64_t /*generation*/, ThreadSlot* /*caller*/) {}

  // Tests: the lock a submission takes, held by the caller until the guard goes (worker:
  // the queue lock); an empty guard for methods without one.
  virtual std::unique_lock<std::mutex> lock_queue_for_testing() { return {}; }

  // The method's own threads (the I/O workers) that have started, for the tracks of an
  // I/O trace: a worker that ran nothing during a statement still gets its lane.
  virtual std::vector<pid_t> own_threads() const { return {}; }

  // Submitted I/Os no thread has started yet (worker: the queue the workers take from),
  // as last counted; the rest of the submitted ones are at the device. Any thread.
  virtual int queued() const { return 0; }
};

std::unique_ptr<IoMethod> make_sync_method();
// The sync method's execution claim: true if the caller is now the one thread that
// executes the I/O `h` holds at `generation`. Claims only move forward, and only the
// generation the handle is in while SUBMITTED can be claimed, so a stale claimer (its I/O
// finished and the handle was recycled) can never hand a newer I/O to a second executor.
bool sync_claim_execution(IoHandle& h, uint64_t generation);
// The queue holds at least `queue_size` handles (and at least PostgreSQL's 64).
std::unique_ptr<IoMethod> make_worker_method(int io_workers, int queue_size);
// Throws tp::Error with advice if io_uring cannot be used here.
std::unique_ptr<IoMethod> make_uring_method(int entries);
// The advice for an io_uring setup errno (EPERM, ENOMEM, ENOSYS, ...), thrown as tp::Error.
[[noreturn]] void raise_uring_setup_error(int err);

}  // namespace tp::aio
