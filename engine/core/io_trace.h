// The I/O trace of one statement (SET io_trace = 'file.json'): what each I/O did in time,
// where threads waited, and how far read streams looked ahead. The layers that do the
// work record into it (aio: each I/O's life; WaitEventScope: every wait; bufmgr: the
// read stream's counters); the session writes it out as a Chrome trace-event file
// (engine/session/trace_file.h) once the statement is over.
//
// Cost when no statement is traced: a thread-local pointer load and a branch where an
// I/O is staged and where a wait begins; nothing on the buffer hit path. When one is:
// a clock read per event, and events go into arrays allocated when the trace starts
// (pages touched only as they fill); past their capacity events are counted, not kept.
//
// Thread safety: the session's thread (and its parallel workers) stage I/Os and record
// waits and counters; the thread that executes or completes an I/O (an I/O worker, a
// thread reaping an io_uring ring) writes that I/O's later timestamps into its record,
// each field by one thread, before the handle's next state is published. The records
// are read only after the statement, when every one of its I/Os has finished.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/wait_event.h"

namespace tp {

// One I/O's life (no default member values: the trace's arrays are left untouched
// until used, and new_io zeroes the record it hands out). A timestamp of 0: that step
// did not happen (an I/O run in the issuer
// has no separate execution; one the kernel ran, io_uring's, none at all).
struct IoTraceRecord {
  uint32_t relnumber;
  uint32_t first_block;
  uint16_t nblocks;
  bool write;
  bool direct;
  uint8_t method;  // aio::IoMethodKind
  uint8_t status;  // aio::IoStatus, set at completion
  uint32_t bytes_done;
  pid_t issuer_tid;     // the thread that staged it
  pid_t executor_tid;   // the thread that ran preadv/pwritev (0: the kernel did)
  pid_t completer_tid;  // the thread that ran its completion (callback)
  int64_t staged, submitted;
  int64_t exec_begin, exec_end;  // the system call(s), on executor_tid
  int64_t io_done;               // result known (COMPLETED_IO), on completer_tid
  int64_t callback_done;         // shared callback run, waiters woken
  int64_t reaped;                // the issuer took the result (COMPLETED_LOCAL)
};

// Sampled values, one track per (counter, thread).
enum class TraceCounter : uint8_t {
  kStreamDistance,  // a read stream's look-ahead distance (buffers)
  kStreamPinned,    // buffers it holds pinned
  kBufferHits,      // the thread's cumulative shared hits
  kBufferReads,     // ... and blocks read
};
const char* trace_counter_name(TraceCounter c);

// A wait (begin..end) or a counter sample (at begin; value); zeroed when handed out.
struct TraceEvent {
  int64_t begin, end;
  int64_t value;
  pid_t tid;
  bool is_wait;
  WaitEvent wait;
  TraceCounter counter;
  const char* label;  // a stream's (string literal), shown in the track's name
};

class IoTrace {
 public:
  IoTrace(size_t max_ios, size_t max_events);

  // A record for an I/O being staged, or nullptr when the trace is full (counted).
  IoTraceRecord* new_io() {
    const size_t i = ios_used_.fetch_add(1, std::memory_order_relaxed);
    if (i < max_ios_) return &(ios_[i] = IoTraceRecord{});
    ios_dropped_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  void wait(WaitEvent e, int64_t begin, int64_t end);
  void counter(TraceCounter c, int64_t value, const char* label = nullptr);

  int64_t started_ns() const { return started_ns_; }
  size_t io_count() const { return std::min(ios_used_.load(), max_ios_); }
  const IoTraceRecord& io(size_t i) const { return ios_[i]; }
  uint64_t ios_dropped() const { return ios_dropped_.load(); }
  size_t event_count() const { return std::min(events_used_.load(), max_events_); }
  const TraceEvent& event(size_t i) const { return events_[i]; }
  uint64_t events_dropped() const { return events_dropped_.load(); }

 private:
  TraceEvent* new_event();

  const int64_t started_ns_;
  const size_t max_ios_, max_events_;
  // Default-initialised arrays: the kernel maps their pages as they are first written.
  std::unique_ptr<IoTraceRecord[]> ios_;
  std::unique_ptr<TraceEvent[]> events_;
  std::atomic<size_t> ios_used_{0}, events_used_{0};
  std::atomic<uint64_t> ios_dropped_{0}, events_dropped_{0};
};

// Points this thread at `trace` for its lifetime (parallel workers take their leader's).
class IoTraceScope {
 public:
  explicit IoTraceScope(IoTrace* trace) : saved_(current_io_trace()) { current_io_trace() = trace; }
  ~IoTraceScope() { current_io_trace() = saved_; }
  IoTraceScope(const IoTraceScope&) = delete;
  IoTraceScope& operator=(const IoTraceScope&) = delete;

 private:
  IoTrace* saved_;
};

// Names for the trace's thread tracks ("io worker 2", "parallel worker 1"), registered by
// the threads themselves when they start; a thread not named is shown by its id.
void set_trace_thread_name(std::string name);
std::string trace_thread_name(pid_t tid);

// The calling thread's kernel id.
pid_t trace_thread_id();

}  // namespace tp
