// An I/O trace (engine/core/io_trace.h) as a Chrome trace-event file, the JSON that
// Perfetto's UI (ui.perfetto.dev) and chrome://tracing open:
//
//   - one process, "tidepool"; a track per thread: the query thread, each parallel
//     worker, each I/O worker (named by the threads themselves; every I/O worker has
//     its track, also one that ran nothing during the statement);
//   - per I/O, an async slice from staged to reaped (the issuer took the result) named
//     "read t 17..32", with a nested "in flight" slice from submission to the result;
//     its arguments give the relation, blocks, bytes, method, direct or buffered, and
//     the result. On the thread that ran the system call (the issuer under sync, an I/O
//     worker under worker; none under io_uring, where the kernel runs it) a slice for
//     the call, and on the thread that completed it (the worker, or whichever thread
//     reaped the ring) a "complete" slice for the checksum and the waiters' wakeup;
//   - waits (WaitEventScope: on an I/O, a free buffer, a table lock) as slices on the
//     waiting thread, named after pg_stat_activity's wait_event;
//   - counters: I/Os in flight (from the I/Os themselves), and per thread the read
//     stream's look-ahead distance and pinned buffers, buffer hits and blocks read
//     (since the thread's first sample), sampled whenever the distance or the pins
//     change.
//
// Timestamps are microseconds since the trace started, all from CLOCK_MONOTONIC. The
// file's "otherData" says how many I/Os and events were kept and dropped.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/io_trace.h"

namespace tp {

struct TraceFileInfo {
  std::string statement;
  pid_t query_tid = 0;  // the session's thread: its track is named "query"
  // Threads that get a track even when they recorded nothing (the I/O workers).
  std::vector<pid_t> threads;
  // A relation's name from its file number ("" when it has none: its number is shown).
  std::function<std::string(uint32_t relnumber)> relation_name;
};

// The JSON text. It begins with kTraceFileMarker, so that a later statement can tell its
// own file from someone else's.
std::string trace_json(const IoTrace& trace, const TraceFileInfo& info);
inline constexpr const char* kTraceFileMarker = "{\"otherData\": {\"tidepool_io_trace\": 1";

// Where the io_trace setting `name` writes. Empty `trace_dir` (tidepool sql): `name` is
// a path as the local user gives it. Otherwise (tidepool serve --trace-dir) `name` must
// be a plain file name, placed in `trace_dir`; anything else (a "/", ".", "..") is
// PostgreSQL's invalid-value error, 22023: a client never names a path of the server's.
std::string trace_file_path(const std::string& name, const std::string& trace_dir);

// Writes `json` to `path` atomically (a temporary file beside it, created with O_EXCL,
// O_NOFOLLOW and mode 0600, renamed over it). Throws tp::Error naming the path when it
// cannot, when something other than a regular file is there (a symbolic link, a FIFO: it
// is never opened for more than a look, never waited on), or when a file is there already
// that does not begin with kTraceFileMarker: a trace never replaces a file it did not write.
// `data_dir`: a trace is never written inside the data directory either (it is sacred:
// only tidepool's own files live there).
void write_trace_file(const std::string& path, const std::string& json,
                      const std::string& data_dir);

// EXPLAIN's line: "I/O Trace: 4420 I/Os, 9100 events, 0 dropped -> trace.json".
std::string trace_summary_line(const IoTrace& trace, const std::string& path);

}  // namespace tp
