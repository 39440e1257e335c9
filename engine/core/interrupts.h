// PostgreSQL's CHECK_FOR_INTERRUPTS(): a cancel only sets a flag; long loops poll
// it at points where stopping is safe (a batch of rows, a leaf page of a bitmap
// index scan, a few thousand inserted rows) and turn it into the statement's error,
// which the statement journal rolls back like any other.
//
// Two flags are polled: the process-wide one that Ctrl-C sets (the shell's and the
// experiment command's SIGINT handlers), and the flag of the session whose statement
// runs on this thread (Session::cancel() sets it, from any thread), so that a cancel
// of one session leaves the others' statements running.
#pragma once

#include <atomic>

#include "engine/core/error.h"

namespace tp {

// Set from a signal handler (a lock-free atomic store is async-signal-safe).
inline std::atomic<bool>& cancel_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

// The cancel flag of the statement running on this thread (a session's), or
// nullptr outside one. The session points it at its flag for one statement
// (StatementCancelScope) and polls it through check_for_interrupts().
inline std::atomic<bool>*& statement_cancel_flag() {
  thread_local std::atomic<bool>* flag = nullptr;
  return flag;
}

// Points this thread's statement_cancel_flag() at `flag` for its lifetime.
class StatementCancelScope {
 public:
  explicit StatementCancelScope(std::atomic<bool>& flag) : saved_(statement_cancel_flag()) {
    statement_cancel_flag() = &flag;
  }
  ~StatementCancelScope() { statement_cancel_flag() = saved_; }
  StatementCancelScope(const StatementCancelScope&) = delete;
  StatementCancelScope& operator=(const StatementCancelScope&) = delete;

 private:
  std::atomic<bool>* saved_;
};

// The error a cancel raises. A type of its own, so that code which reports an error
// and goes on (tidepool check, one relation after another) stops for this one.
class QueryCanceled : public Error {
 public:
  QueryCanceled() : Error("canceling statement due to user request") {
    with_sqlstate(sqlstate::kQueryCanceled);
  }
};

// Throws QueryCanceled (once per request) when a cancel is pending, for this
// thread's statement or for the process. Two relaxed loads when none is.
inline void check_for_interrupts() {
  std::atomic<bool>* own = statement_cancel_flag();
  if (own && own->load(std::memory_order_relaxed) && own->exchange(false)) throw QueryCanceled();
  if (cancel_requested().load(std::memory_order_relaxed) && cancel_requested().exchange(false))
    throw QueryCanceled();
}

}  // namespace tp
