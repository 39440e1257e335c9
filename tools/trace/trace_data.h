// A tidepool I/O trace file (SET io_trace, engine/session/trace_file.h) read back:
// its I/Os with their timestamps, the slices each thread ran (system calls,
// completions, waits), the counter tracks and the thread names. `tidepool trace
// summary` and `tidepool trace plot` work from this, never from the engine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tp::trace {

// One I/O: an async "io" slice (staged .. reaped) with its nested "in flight" slice.
// Times are microseconds since the trace started; NaN-free: a step that did not happen
// (an I/O that never reached submission) has submitted_us == done_us == -1.
struct TraceIo {
  std::string name;  // "read t 17..32"
  std::string relation, method, result;
  bool write = false, direct = false;
  int64_t first_block = 0, blocks = 0, bytes = 0;
  int64_t issuer_tid = 0;
  double staged_us = -1, reaped_us = -1;
  double submitted_us = -1, done_us = -1;
  bool in_flight_known() const { return submitted_us >= 0 && done_us >= submitted_us; }
};

// A complete ("X") slice on one thread.
enum class SliceKind { kSyscall, kComplete, kWait };
struct TraceSlice {
  SliceKind kind = SliceKind::kWait;
  int64_t tid = 0;
  double begin_us = 0, dur_us = 0;
  std::string name;  // "wait: DataFileRead", "preadv t 17..32", ...
};

struct TraceData {
  std::string path;
  std::string statement;
  int64_t ios_kept = 0, ios_dropped = 0, events_kept = 0, events_dropped = 0;
  std::vector<TraceIo> ios;
  std::vector<TraceSlice> slices;
  // Counter track name ("I/Os in flight", "look-ahead distance, index heap") -> samples
  // (time in microseconds, value) in file order.
  std::map<std::string, std::vector<std::pair<double, double>>> counters;
  std::map<int64_t, std::string> thread_names;  // tid -> "query", "io worker 0", ...
  std::map<int64_t, int> thread_order;          // tid -> sort index (query 0, workers 2)

  // The last timestamp any event reaches (the statement's traced span).
  double end_us() const;
  // Every submission (+1) and result (-1) of the I/Os, in time order: the in-flight count
  // is their running sum.
  std::vector<std::pair<double, int>> in_flight_steps() const;
  // Threads in display order: sort index, then name.
  std::vector<int64_t> threads() const;
  std::string thread_name(int64_t tid) const;
};

// Reads and checks the file. Throws tp::Error naming the file and what is wrong: it
// cannot be read, is not JSON, is not a tidepool I/O trace, or an event lacks a field.
TraceData load_trace(const std::string& path);

}  // namespace tp::trace
