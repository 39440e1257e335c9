// Locks that let the statements of many sessions run side by side safely:
// PostgreSQL's heavyweight locks in spirit, with three kinds of object and
// two modes.
//
//   object                 share (many holders)            exclusive (one holder)
//   the database           every statement                 SET of a database-wide setting
//                                                          (it rebuilds the pool or the
//                                                          I/O system under everyone)
//   the writer             -                               every statement that writes
//                                                          (one journal, one commit at a time)
//   a table, by name       SELECT, EXPLAIN, ANALYZE        INSERT, TRUNCATE, DROP, CREATE
//                                                          INDEX, ALTER, CREATE TABLE
//
// A statement takes all its locks before it starts, in one global order
// (database, writer, tables by name), and gives them all back when it ends. It
// never waits while it holds a lock of the same request: when one is not free it
// gives back what that request took, waits for that one alone, and tries again.
// So the one holder that does wait while holding, a transaction block that writes
// (its locks last until COMMIT, and a later statement of it may need more), can
// never be in a circle of waiters. A share request
// waits behind a queued exclusive one on the same object, so a stream of
// readers cannot starve a writer. A wait polls the statement's cancel flag and
// ends with PostgreSQL's "canceling statement due to lock timeout" (55P03)
// after lock_timeout.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tp {

// Weakest to strongest. kWatch is the system views' share mode: it waits only
// for a held exclusive lock, never queues behind a waiting one.
enum class LockMode { kWatch, kShare, kExclusive };

// What a lock is taken on; ordered as statements must take them.
struct LockObject {
  enum Kind { kDatabase = 0, kWriter = 1, kTable = 2 } kind = kDatabase;
  std::string table;  // kTable only
  auto operator<=>(const LockObject&) const = default;
  static LockObject database() { return {kDatabase, {}}; }
  static LockObject writer() { return {kWriter, {}}; }
  static LockObject of_table(std::string name) { return {kTable, std::move(name)}; }
};

struct LockRequest {
  LockObject object;
  LockMode mode = LockMode::kShare;
};

class LockManager {
 public:
  // Waits until `object` can be held in `mode`. timeout_ms 0 waits as long as
  // it takes; a cancel of the statement (check_for_interrupts) ends the wait.
  // The wait shows in pg_stat_activity as Lock / relation.
  void acquire(const LockObject& object, LockMode mode, int64_t timeout_ms);
  // Takes it if it is free now (a share request behind a waiting exclusive one is
  // not); never waits.
  bool try_acquire(const LockObject& object, LockMode mode);
  void release(const LockObject& object, LockMode mode);

  // Holders and waiters of every object, for tests and pg_locks-like views:
  // (description, "share"/"exclusive", granted).
  struct Row {
    std::string object;
    LockMode mode;
    int holders;
    int waiting;
  };
  std::vector<Row> snapshot() const;

 private:
  struct State {
    int shared = 0;
    bool exclusive = false;
    int exclusive_waiters = 0;
    int share_waiters = 0;
  };
  bool grantable(const State& s, LockMode mode) const;

  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::map<LockObject, State> objects_;
};

// The locks of one statement, released by the destructor. take() may be
// called more than once (the tables a DROP INDEX needs are known only once the
// writer lock holds the catalog still), as long as each call's objects sort
// after those already held; a timeout or cancel gives back everything.
class StatementLocks {
 public:
  StatementLocks(LockManager& manager, int64_t timeout_ms)
      : manager_(&manager), timeout_ms_(timeout_ms) {}
  void take(std::vector<LockRequest> requests);
  ~StatementLocks() { release_all(); }
  StatementLocks(StatementLocks&& other) noexcept;
  StatementLocks& operator=(StatementLocks&& other) noexcept;
  StatementLocks(const StatementLocks&) = delete;
  StatementLocks& operator=(const StatementLocks&) = delete;

  bool holds(const LockObject& object, LockMode mode) const;
  // The tables this statement holds exclusively: what it may change.
  std::vector<std::string> exclusive_tables() const;
  void release_all();

 private:
  LockManager* manager_ = nullptr;
  int64_t timeout_ms_ = 0;
  std::vector<LockRequest> held_;
};

}  // namespace tp
