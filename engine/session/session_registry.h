// The sessions of one Database, as other sessions see them: what
// pg_stat_activity lists, what pg_cancel_backend / pg_terminate_backend and the
// server's CancelRequest reach. Each Session registers itself for its lifetime
// and publishes its state as its statements start and end; readers take a
// consistent copy (snapshot) under the registry's mutex, which no hot path
// takes: a session touches it twice per statement, never per row or per I/O.
//
// Waits are published without the mutex: a session's thread points the
// thread-local wait slot (engine/core/wait_event.h) at its entry's atomic word,
// and the code that blocks (an I/O, a table lock) stores its wait event there.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/session_memory.h"
#include "engine/core/stream_gauges.h"

namespace tp {

class Session;

// One row of pg_stat_activity.
struct SessionActivity {
  int pid = 0;  // the session's backend id: its thread's id when it was created
  std::string application_name;
  std::string client_addr;  // empty for a session in the same process (shell, tests)
  std::chrono::system_clock::time_point backend_start;
  std::chrono::system_clock::time_point query_start;  // of the running or last statement
  std::string state;                                  // "active", "idle", "idle in transaction"
  std::string query;                                  // the running or last statement's text
  std::string wait_event_type;                        // "IO", "Lock" or empty
  std::string wait_event;                             // "DataFileRead", "relation", ...
  // What the session holds that grows with its client's demands (SessionMemory).
  int64_t memory_bytes[int(MemoryPart::kCount)] = {};
  int64_t memory_total = 0;
  int64_t memory_peak = 0;
  // Its open read streams' look-ahead (engine/core/stream_gauges.h), as last published.
  struct Stream {
    std::string label;  // "seq scan", "index heap", ...
    int worker = 0;     // 0: the session's thread; k: its parallel worker k
    int distance = 0;
    int max_pinned = 0;
    int pinned = 0;
    int ios = 0;
  };
  std::vector<Stream> streams;
};

// What the registry keeps of one live session.
struct SessionEntry {
  int pid = 0;
  Session* session = nullptr;  // valid while registered: sessions remove themselves first
  std::chrono::system_clock::time_point backend_start;
  // Written by the owning thread under the registry mutex:
  std::string application_name;
  std::string client_addr;
  std::chrono::system_clock::time_point query_start;
  std::string state = "idle";
  std::string query;
  // Set by the session's thread without a lock (engine/core/wait_event.h).
  std::atomic<uint32_t> wait_event{0};
  // pg_terminate_backend: the server closes the connection after the statement.
  std::atomic<bool> terminate_requested{false};
  // Updated by whoever holds the session's memory, without a lock.
  SessionMemory memory;
  // The session's stream gauges (it owns them), set once after add().
  StreamGauges* streams = nullptr;
};

class SessionRegistry {
 public:
  // Registers `session` (called by its constructor) and returns its entry,
  // which lives until remove(). The pid is the calling thread's id, or a
  // number above every thread id when that one is taken (two sessions made
  // by one thread).
  SessionEntry& add(Session* session);
  void remove(const SessionEntry& entry);

  // Updates under the mutex (the session's own thread).
  void set_client(SessionEntry& entry, std::string application_name, std::string client_addr);
  // The query as pg_stat_activity keeps it: its first 1,023 bytes.
  void statement_started(SessionEntry& entry, std::string_view query);
  void statement_ended(SessionEntry& entry, bool in_transaction_block);

  std::vector<SessionActivity> snapshot() const;
  // pg_cancel_backend(pid): cancels that session's running statement. False
  // when no session has that pid.
  bool cancel(int pid);
  // pg_terminate_backend(pid): cancels and marks it to be disconnected.
  bool terminate(int pid);

 private:
  mutable std::mutex mutex_;
  std::map<int, std::unique_ptr<SessionEntry>> entries_;
  int next_synthetic_pid_ = 1 << 22;  // above Linux's pid_max default (4194304)
};

}  // namespace tp
