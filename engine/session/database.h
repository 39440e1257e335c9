// A Database: what every session of one data directory shares. It is opened
// once per data directory and process, and handed to as many Sessions as there
// are clients (Session(std::shared_ptr<Database>)).
//
//   Database  data directory (its lock, catalog, statement journal), Storage
//             (I/O system, buffer pool, open relation files), the database-wide
//             settings (shared_buffers, io_method, io_workers, io_direct) and the
//             locks every statement takes
//   Session   its own settings, random() state, cancel flag and notices
//
// Statements of many sessions run side by side under the Database's locks
// (engine/session/table_locks.h): readers of a table share it, a writer holds
// its tables and the one writer lock (one journal, one commit at a time), and
// SET of a database-wide setting holds the whole database. What readers reach
// while a writer commits is safe for that: they plan and run from a catalog
// snapshot (DataDir::catalog_snapshot), Storage's map of open files has a
// mutex, and the pool is shared by design.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/session/session_registry.h"
#include "engine/session/settings.h"
#include "engine/session/table_locks.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"
#include "scans/gather.h"

namespace tp {

struct DatabaseOptions {
  std::string data_dir;
  std::vector<std::string> settings;  // "name=value" from --set, over tidepool.conf
  bool progress = false;              // progress line on stderr during loads
  bool create_if_missing = true;      // false: a missing or empty data_dir is an error
  // Not empty (tidepool serve --trace-dir): io_trace takes a plain file name, written in
  // this directory (engine/session/trace_file.h). Empty (tidepool sql): any path.
  std::string trace_dir{};
};

class Database {
 public:
  // Opens (or initialises) the data directory, reads tidepool.conf and the
  // --set values, and starts the I/O system and the buffer pool. Throws
  // tp::Error when the directory is already open in this process (share that
  // Database instead), is locked by another process, or is not a tidepool data
  // directory.
  static std::shared_ptr<Database> open(const DatabaseOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const DatabaseOptions& options() const { return options_; }
  // Every setting's starting value (conf file / --set) and the one value of
  // each database-wide setting. Sessions read it under the database lock in
  // share mode and change it holding that lock exclusively.
  Settings& settings() { return settings_; }
  DataDir& data_dir() { return *dir_; }
  Storage& storage() { return *storage_; }

  // The parallel worker threads in use by every Gather of every session
  // (max_parallel_workers is checked against it).
  scans::ParallelWorkerSlots& worker_slots() { return worker_slots_; }

  // Every live session (pg_stat_activity, pg_cancel_backend).
  SessionRegistry& sessions() { return sessions_; }

  // The locks every statement takes (engine/session/table_locks.h).
  LockManager& locks() { return locks_; }

 private:
  explicit Database(const DatabaseOptions& options);

  struct DirectoryClaim;  // this Database's entry in the process's list of open directories

  DatabaseOptions options_;
  std::unique_ptr<DirectoryClaim> claim_;  // first in, last out: held while the rest lives
  Settings settings_;
  std::unique_ptr<DataDir> dir_;
  std::unique_ptr<Storage> storage_;
  LockManager locks_;
  scans::ParallelWorkerSlots worker_slots_;
  SessionRegistry sessions_;
};

}  // namespace tp
