// PostgreSQL's CHECK_FOR_INTERRUPTS(): Ctrl-C (the shell's and the experiment
// command's SIGINT handlers) only sets a process-wide flag; long loops poll it at
// points where stopping is safe (a batch of rows, a leaf page of a bitmap index
// scan, a few thousand inserted rows) and turn it into the statement's error, which
// the statement journal rolls back like any other.
#pragma once

#include <atomic>

#include "engine/core/error.h"

namespace tp {

// Set from a signal handler (a lock-free atomic store is async-signal-safe).
inline std::atomic<bool>& cancel_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

// The error a cancel raises. A type of its own, so that code which reports an error
// and goes on (tidepool check, one relation after another) stops for this one.
class QueryCanceled : public Error {
 public:
  QueryCanceled() : Error("canceling statement due to user request") {}
};

// Throws QueryCanceled (once per request) when a cancel is pending. One relaxed
// load when none is.
inline void check_for_interrupts() {
  if (cancel_requested().load(std::memory_order_relaxed) && cancel_requested().exchange(false))
    throw QueryCanceled();
}

}  // namespace tp
