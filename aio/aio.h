// tidepool's asynchronous I/O layer: the public API.
//
// Map of aio/ (aio/README.md is the design document):
//   aio.h             this file: config, handles, results, wait refs, IoSystem
//   file.h            IoFile: one relation data file (buffered + O_DIRECT fds)
//   internal.h        aio-private: thread slots, HandleOps (the only code touching handles)
//   handle.cc         the handle state machine; execute / complete / reclaim steps
//   io_system.cc      per-thread handle pools; acquire / define / stage / submit / wait
//   results.cc        enum names; IoResult -> tp::Error text
//   method.h          the small interface every I/O method implements
//   method_sync.cc    io_method=sync   (runs at submission or when waited for)
//   method_worker.cc  io_method=worker (I/O worker threads, bounded queue)
//   method_uring.cc   io_method=io_uring (one ring per thread)
//   faults.h/.cc      fault injection for tests (read/write transfer faults, corruption)
//   stats.h/.cc       cumulative counters per method and context (IoSystem::in_flight()
//                     is the pg_aios-like snapshot)
//   device_probe.h    the raw-device measuring loop used by bench/device_probe
//
// Usage, in short (the README has the annotated version):
//   tp::aio::IoSystem io({.method = tp::aio::IoMethodKind::kWorker});
//   tp::aio::IoResult ret;                        // the issuer's result object
//   tp::aio::IoHandle* h = io.acquire(&ret);      // HANDED_OUT, owned by this thread
//   h->set_completion({&my_shared_cb, {bufid}});   // optional; runs on the completing thread
//   tp::aio::IoWaitRef ref = h->wait_ref();       // copy it anywhere, any thread may wait
//   io.start_read(h, file, 17, page, 1);          // DEFINED -> STAGED -> SUBMITTED
//   io.wait(ref);                                 // owner: completes + reclaims, fills ret
//   tp::aio::check_io_result(ret, file);          // throws tp::Error on failure
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/intrusive/list_hook.hpp>

#include "engine/core/block.h"
#include "engine/core/io_trace.h"

namespace tp::aio {

class IoFile;
class IoSystemCore;
struct ThreadSlot;

// Limits. PostgreSQL uses the same figures (io_max_concurrency 64 by default and at most
// 1024, io_max_combine_limit 128 blocks, PGAIO_SUBMIT_BATCH_SIZE 32, io worker queue 64,
// MAX_IO_WORKERS 32).
inline constexpr int kHandlesPerThread = 64;  // the default
inline constexpr int kMaxHandlesPerThread = 1024;
inline constexpr int kMaxBlocksPerIo = 128;  // 1 MB
inline constexpr int kMaxBatchSize = 32;
inline constexpr int kWorkerQueueSize = 64;
inline constexpr int kMaxIoWorkers = 32;
inline constexpr int kMaxThreadSlots = 256;  // threads that may use one IoSystem at once
inline constexpr size_t kDirectIoAlignment = 4096;

enum class IoMethodKind : uint8_t { kSync = 0, kWorker = 1, kIoUring = 2 };
inline constexpr int kIoMethodCount = 3;

// "sync", "worker", "io_uring".
const char* io_method_name(IoMethodKind method);
// Parses a method name as SET io_method would; throws tp::Error naming the valid values.
IoMethodKind parse_io_method(std::string_view name);

// What the issuer is doing, supplied per I/O (like pg_stat_io's context): aio counts its
// I/Os by it, and the buffer pool its hits, reads, writes, evictions and extends.
// kBulkRead and kBulkWrite are the work of a ring (a big seq scan, a bulk load).
enum class IoContext : uint8_t { kNormal = 0, kBulkRead = 1, kBulkWrite = 2 };
inline constexpr int kIoContextCount = 3;
const char* io_context_name(IoContext context);

// The plain configuration an IoSystem is built from.
struct IoConfig {
  IoMethodKind method = IoMethodKind::kWorker;
  int io_workers = 3;      // worker method only: 1..32
  bool io_direct = false;  // O_DIRECT for every data file I/O (buffers must be 4096-aligned)
  // I/O handles per thread (PostgreSQL's io_max_concurrency): 1..1024. A thread never
  // has more I/Os staged or in flight than this.
  int handles_per_thread = kHandlesPerThread;
};

// Handle lifecycle. Each value says who moves the handle on from it.
enum class IoState : uint32_t {
  kIdle,         // in the owner's idle list; owner's acquire -> HANDED_OUT
  kHandedOut,    // owner holds it, nothing defined; owner's start_* -> DEFINED (or release -> IDLE)
  kDefined,      // operation and target filled in; owner stages it -> STAGED
  kStaged,       // waiting in the owner's batch; owner's submit -> SUBMITTED
  kSubmitted,    // method has it; the completing thread (any) -> COMPLETED_IO
  kCompletedIo,  // raw result stored; the completing thread runs the shared phase -> SHARED
  kCompletedShared,  // shared callback done, waiters woken; owner's reclaim -> COMPLETED_LOCAL
  kCompletedLocal,   // owner filled the issuer's result; owner recycles it -> IDLE (generation+1)
};
const char* io_state_name(IoState state);

enum class IoOp : uint8_t { kInvalid = 0, kRead = 1, kWrite = 2 };
const char* io_op_name(IoOp op);

// How an I/O ended. PARTIAL means fewer bytes than asked (e.g. a read past end of file);
// the caller decides whether to issue the rest. ERROR carries an errno. INVALID_PAGE is
// set by a shared-completion callback whose verification failed: the bytes arrived but
// block `callback_data` is not a valid page (checksum or header).
enum class IoStatus : uint8_t { kUnknown = 0, kOk = 1, kPartial = 2, kError = 3, kInvalidPage = 4 };

// The encoded outcome of one I/O. Completion code never throws: it fills one of these,
// and the issuer raises it (check_io_result) on its own thread.
struct IoResult {
  IoStatus status = IoStatus::kUnknown;
  IoOp op = IoOp::kInvalid;
  int error_number = 0;          // errno when status == kError
  uint32_t bytes_done = 0;       // bytes transferred (all of them when kOk)
  uint32_t bytes_requested = 0;  // nblocks * kBlockSize
  uint32_t relnumber = 0;        // IoFile::relnumber() of the target
  BlockNumber first_block = kInvalidBlock;
  uint16_t nblocks = 0;
  // Free for the shared-completion callback: e.g. the block that failed verification.
  uint32_t callback_data = 0;

  bool ok() const { return status == IoStatus::kOk; }
  // Blocks fully transferred, counted from first_block.
  uint32_t blocks_done() const { return bytes_done / kBlockSize; }
};

// Text of a failed result: "could not read block 17 of relation \"t\": Input/output error",
// "could not read block 17 of relation \"t\": read only 4096 of 8192 bytes". For several
// blocks: "blocks 17..20". kInvalidPage: "invalid page in block 41 of relation \"t\"".
// Precondition: status is not kOk.
std::string describe_io_failure(const IoResult& result, std::string_view relation_name);
// The SQLSTATE of a failed I/O: disk full, I/O error, data corrupted (invalid page).
const char* io_failure_sqlstate(const IoResult& result);
// Throws tp::Error(describe_io_failure(result, file.name())) unless result.ok().
void check_io_result(const IoResult& result, const IoFile& file);
[[noreturn]] void raise_io_error(const IoResult& result, const IoFile& file);

// A wait reference: (global handle index, generation). Copyable anywhere. If the handle
// was recycled since (generation moved on), the I/O is finished and waits return at once.
struct IoWaitRef {
  uint32_t handle_index = UINT32_MAX;
  uint64_t generation = 0;
  bool valid() const { return handle_index != UINT32_MAX; }
  friend bool operator==(const IoWaitRef&, const IoWaitRef&) = default;
};

// What the shared-completion callback sees. It runs on whichever thread completes the
// I/O (the issuer, an I/O worker, or any thread reaping the issuer's io_uring).
struct IoCompletionInfo {
  IoOp op;
  const IoFile* file;
  BlockNumber first_block;
  int nblocks;
  const iovec* iov;      // one 8 kB iovec per block, in block order
  const uint64_t* data;  // the callback's inline data (IoCompletion::data)
};

// Shared-completion callback: may inspect the buffers and rewrite the result (e.g. turn
// OK into ERROR after a checksum failure). Must not throw, must not block on I/O, and
// must not touch the issuer's thread-local state. noexcept is part of the type.
using IoCompletionFn = void (*)(const IoCompletionInfo& info, IoResult& result) noexcept;

// A callback plus small inline data: no allocation per I/O.
struct IoCompletion {
  IoCompletionFn fn = nullptr;
  uint64_t data[4] = {};
};

// Per-I/O flags set by the issuer before start_*.
enum IoFlags : uint32_t {
  kIoFlagNone = 0,
  // The caller reads ahead (effective_io_concurrency > 0): with the sync method and
  // buffered files, posix_fadvise(WILLNEED) the range at submission.
  kIoFlagAdvice = 1u << 0,
  // Execute in the issuing thread at submission, whatever the method.
  kIoFlagSynchronous = 1u << 1,
  // Use O_DIRECT for this I/O even when io_direct is off. Bulk loads write this way: their
  // pages would only churn the page cache, and buffered writeback is far slower than the
  // disk on some machines. Buffers must be 4096-aligned (pool buffers are).
  kIoFlagDirect = 1u << 2,
};

// An I/O handle. Obtained from IoSystem::acquire by one thread (its owner) and used only by
// that thread until it is submitted; the setters are valid only in HANDED_OUT. The data
// members are private to aio/: other layers use the accessors and IoSystem.
class IoHandle {
 public:
  IoHandle() = default;
  IoHandle(const IoHandle&) = delete;
  IoHandle& operator=(const IoHandle&) = delete;

  // The reference any thread may wait on; valid from HANDED_OUT on.
  IoWaitRef wait_ref() const;
  IoState state() const;
  uint64_t generation() const;
  uint32_t index() const { return index_; }

  // Setters: only the owner, only in HANDED_OUT (acquire resets all three).
  void set_completion(const IoCompletion& completion);
  void set_context(IoContext context);
  void set_flags(uint32_t flags);

  // aio-internal (public only because Boost.Intrusive needs to name it): links the handle
  // into its owner's idle list or in-flight list; touched by the owner thread only.
  boost::intrusive::list_member_hook<> owner_link;

 private:
  friend struct HandleOps;
  // Generation (high 56 bits) and state (low 8 bits) in one word, so a waiter sees both
  // at once and sleeps on it with atomic wait: no ABA when a handle is recycled.
  std::atomic<uint64_t> word_{uint64_t{1} << 8};
  uint32_t index_ = 0;
  ThreadSlot* owner_ = nullptr;

  // Written by the owner up to STAGED; read by the completing thread after SUBMITTED.
  IoOp op_ = IoOp::kInvalid;
  bool direct_ = false;
  IoContext context_ = IoContext::kNormal;
  uint32_t flags_ = 0;
  int fd_ = -1;
  IoFile* file_ = nullptr;
  BlockNumber first_block_ = kInvalidBlock;
  int nblocks_ = 0;
  IoCompletion completion_;
  iovec iov_[kMaxBlocksPerIo];

  // Owner only.
  IoResult* issuer_result_ = nullptr;
  // The statement's trace record (engine/core/io_trace.h), or nullptr: set when staged,
  // written by whichever thread moves the handle, cleared when it is idle again.
  IoTraceRecord* trace_ = nullptr;

  // Written by the completing thread before COMPLETED_SHARED; read by the owner after.
  IoResult result_;

  // sync's deferred-execution claim; bytes moved so far (io_uring's progress across
  // resubmissions, and every method's count of bytes moved before an error).
  std::atomic<uint64_t> claimed_generation_{0};
  uint32_t progress_bytes_ = 0;
  iovec work_iov_[kMaxBlocksPerIo];

  // Mirror for in_flight(), checked against word_ like a seqlock. Rewritten only by the
  // owner right after a state change (acquire, start), never while the state stays put.
  std::atomic<uint64_t> shown_target_{0};  // relnumber << 32 | first_block
  // op | nblocks << 8 | inline (kIoFlagSynchronous) << 16 | context << 24 | owner tid << 32
  std::atomic<uint64_t> shown_shape_{0};
};

// One row of IoSystem::in_flight(), like PostgreSQL's pg_aios.
struct IoInFlightRow {
  uint32_t handle_index;
  uint64_t generation;
  IoState state;
  IoOp op;
  uint32_t relnumber;
  BlockNumber first_block;
  uint16_t nblocks;
  uint64_t owner_thread;  // the owner's kernel thread id (gettid)
};

// The asynchronous I/O subsystem. Built from an IoConfig; one per process is typical, but
// it may be destroyed and rebuilt with another method once no thread has I/O in flight.
// Any thread may use it; each gets its own pool of handles on first use, returned when the
// thread exits (after its in-flight I/O completes) or when the IoSystem is destroyed.
class IoSystem {
 public:
  // Starts the method (worker threads; io_uring is probed). Throws tp::Error with advice
  // if the method cannot start (e.g. io_uring disabled: use io_method=worker).
  explicit IoSystem(const IoConfig& config);
  // Precondition: no thread other than the caller has I/O staged or in flight. Waits for
  // the caller's own I/O, stops workers, closes rings.
  ~IoSystem();
  IoSystem(const IoSystem&) = delete;
  IoSystem& operator=(const IoSystem&) = delete;

  const IoConfig& config() const { return config_; }
  IoMethodKind method() const { return config_.method; }

  // -- issuing (owner thread only) --

  // Hands out an idle handle of this thread (HANDED_OUT). `result` (may be null) is the
  // issuer's result object, filled by the owner phase; it must outlive the I/O or be
  // detached with forget_result. Blocks only by waiting for this thread's oldest I/O
  // (after submitting staged ones). Precondition: no other handle of this thread is
  // handed out and undefined.
  IoHandle* acquire(IoResult* result);
  // As acquire, but returns nullptr instead of waiting for an I/O.
  IoHandle* try_acquire(IoResult* result);
  // Returns a HANDED_OUT handle that will not be used (HANDED_OUT -> IDLE).
  void release(IoHandle* handle);

  // Defines a read of `blocks.size()` (1..128) blocks starting at `first_block` of `file`;
  // block i lands in blocks[i] (8 kB each). Stages it, and submits it unless in batch mode.
  // With io_direct every buffer must be 4096-aligned. On a caller error (bad arguments)
  // throws tp::Error and the handle is released.
  void start_readv(IoHandle* handle, IoFile& file, BlockNumber first_block,
                   std::span<std::byte* const> blocks);
  // Same, from blocks[i] into the file.
  void start_writev(IoHandle* handle, IoFile& file, BlockNumber first_block,
                    std::span<std::byte* const> blocks);
  // Contiguous-buffer forms: `nblocks` * 8 kB at `buffer`.
  void start_read(IoHandle* handle, IoFile& file, BlockNumber first_block, std::byte* buffer,
                  int nblocks);
  void start_write(IoHandle* handle, IoFile& file, BlockNumber first_block, const std::byte* buffer,
                   int nblocks);

  // Batch mode: staged I/Os are held and submitted together (at 32 staged, on
  // submit_staged, on any wait by this thread, and at exit_batch). Not nestable.
  // Rule: before blocking on anything another thread may hold, call submit_staged().
  void enter_batch();
  void exit_batch();
  bool in_batch() const;
  void submit_staged();
  int staged_count() const;

  // Detaches the issuer's result object of a not yet reclaimed I/O of this thread (e.g.
  // the object is going away); the I/O still completes and is reclaimed.
  void forget_result(IoWaitRef ref);

  // -- waiting (any thread) --

  // Returns when the referenced I/O has completed its shared phase (or was recycled). If
  // the caller is the owner, the owner phase runs too (result filled, handle recycled).
  // Submits the caller's staged I/Os first.
  void wait(IoWaitRef ref);
  // Non-blocking: true if the I/O has completed (reclaiming it if the caller owns it).
  bool check_done(IoWaitRef ref);
  // Owner: submits staged I/O and waits for all of this thread's I/O.
  void wait_all();
  // Owner: I/Os of this thread submitted and not yet reclaimed.
  int in_flight_count() const;

  // -- introspection --
  std::vector<IoInFlightRow> in_flight() const;
  // The method's own threads (I/O workers; none for sync and io_uring), by kernel id.
  std::vector<pid_t> method_threads() const;
  // Submitted I/Os waiting for a thread to start them: the I/O workers' queue (worker),
  // 0 for the other methods, whose submitted I/Os are at the device. A moment's count.
  int queued_at_workers() const;

  // -- capacity (owner thread) --
  // A thread has handles_per_thread() handles, so at most that many of its I/Os can be
  // staged or in flight at once; acquire beyond that waits for the thread's oldest I/O.
  // A caller that keeps many reads in flight (a read stream's look-ahead) clamps its
  // depth to the capacity and asks available_handles() (or uses try_acquire) before
  // starting one more, instead of blocking inside acquire.

  // IoConfig::handles_per_thread: the same for every thread, fixed for the IoSystem.
  int handles_per_thread() const { return config_.handles_per_thread; }
  // Handles acquire would hand out now without waiting: idle ones plus those whose I/O
  // finished (which it reclaims: the owner phase, filling their issuers' results). No
  // system call, no lock; walks this thread's in-flight list (<= handles_per_thread()).
  // An io_uring completion not yet reaped from the ring still counts as busy.
  int available_handles();
  // Handles of this thread that are idle now (O(1); finished I/Os not yet reclaimed are
  // not counted).
  int idle_count() const;

  // Tests: holds the lock a submission takes (the worker method's queue lock) until the
  // guard goes, so a test can submit against a busy lock; empty for other methods.
  std::unique_lock<std::mutex> lock_queue_for_testing();

 private:
  IoConfig config_;
  std::unique_ptr<IoSystemCore> core_;
};

// RAII batch: enter on construction, exit (submitting what is staged) on destruction.
class IoBatch {
 public:
  explicit IoBatch(IoSystem& io) : io_(io) { io_.enter_batch(); }
  ~IoBatch() { io_.exit_batch(); }
  IoBatch(const IoBatch&) = delete;
  IoBatch& operator=(const IoBatch&) = delete;

 private:
  IoSystem& io_;
};

}  // namespace tp::aio
