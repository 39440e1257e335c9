#include "engine/core/io_trace.h"

#include <unistd.h>

#include <map>
#include <mutex>

namespace tp {

const char* trace_counter_name(TraceCounter c) {
  switch (c) {
    case TraceCounter::kStreamDistance:
      return "look-ahead distance";
    case TraceCounter::kStreamPinned:
      return "pinned buffers";
    case TraceCounter::kBufferHits:
      return "buffer hits";
    case TraceCounter::kBufferReads:
      return "blocks read";
  }
  return "?";
}

IoTrace::IoTrace(size_t max_ios, size_t max_events)
    : started_ns_(trace_clock_ns()),
      max_ios_(max_ios),
      max_events_(max_events),
      // Default-initialised (no value-initialisation): no page is written until used.
      ios_(new IoTraceRecord[max_ios]),
      events_(new TraceEvent[max_events]) {}

TraceEvent* IoTrace::new_event() {
  const size_t i = events_used_.fetch_add(1, std::memory_order_relaxed);
  if (i < max_events_) return &(events_[i] = TraceEvent{});
  events_dropped_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void IoTrace::wait(WaitEvent e, int64_t begin, int64_t end) {
  if (TraceEvent* ev = new_event()) {
    ev->begin = begin, ev->end = end;
    ev->tid = trace_thread_id();
    ev->is_wait = true;
    ev->wait = e;
  }
}

void IoTrace::counter(TraceCounter c, int64_t value, const char* label) {
  if (TraceEvent* ev = new_event()) {
    ev->begin = ev->end = trace_clock_ns();
    ev->tid = trace_thread_id();
    ev->counter = c;
    ev->value = value;
    ev->label = label;
  }
}

void trace_wait(IoTrace* trace, WaitEvent e, int64_t begin_ns) {
  trace->wait(e, begin_ns, trace_clock_ns());
}

namespace {

// Threads register once, when they start; the trace file reads the names at its end.
struct ThreadNames {
  std::mutex mutex;
  std::map<pid_t, std::string> names;
};

ThreadNames& thread_names() {
  static ThreadNames* names = new ThreadNames;  // outlives every thread's exit
  return *names;
}

}  // namespace

void set_trace_thread_name(std::string name) {
  ThreadNames& t = thread_names();
  std::lock_guard lock(t.mutex);
  t.names[trace_thread_id()] = std::move(name);
}

std::string trace_thread_name(pid_t tid) {
  ThreadNames& t = thread_names();
  std::lock_guard lock(t.mutex);
  auto it = t.names.find(tid);
  return it == t.names.end() ? std::string() : it->second;
}

pid_t trace_thread_id() {
  thread_local pid_t tid = ::gettid();
  return tid;
}

}  // namespace tp
