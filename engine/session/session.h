// A session: one client of a Database (engine/session/database.h), with its
// own settings, random() state and cancel flag, and the statements it runs.
// The shell (tools/) and the tests drive tidepool through this class only.
//
// Each statement takes the Database's locks it needs before it starts and
// holds them to its end (engine/session/table_locks.h): reads of a table run
// side by side, a write has its tables (and the journal) to itself, and every
// statement sees what was committed when it got its locks. A Session itself is
// used by one thread at a time; only cancel() may be called from another
// thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/io_trace.h"
#include "engine/plan/plan_context.h"
#include "engine/session/database.h"
#include "engine/session/plan_cache.h"
#include "engine/session/row_source.h"
#include "engine/session/settings.h"
#include "engine/sql/ast.h"
#include "engine/sql/params.h"
#include "engine/sql/value.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"

namespace tp {

class RowStore;  // session_insert.cc

// What a statement returns: rows (for queries) and/or a command tag.
struct ResultSet {
  std::vector<std::string> columns;
  std::vector<bool> right_aligned;  // numbers are right-aligned by psql
  // Each column's type, for the wire protocol's RowDescription (PostgreSQL's
  // type OIDs); empty means every column is text. kNull: a column of NULLs.
  std::vector<ValueType> column_types;
  // When set, each column's stored type and typmod (RowDescription's OID, length and
  // modifier), in place of column_types.
  std::vector<Column> column_type_ids;
  // As psql prints them. A NULL is an empty string in a column that is not
  // kText (numbers and booleans never print empty; the server sends NULL).
  std::vector<std::vector<std::string>> rows;
  // Where an empty string may be a value (kText columns): empty, or one flag
  // per cell of `rows`, true for a NULL.
  std::vector<std::vector<bool>> nulls;
  bool returns_rows = false;
  // The rows went to a RowSink (rows is empty): `streamed_rows` of them.
  bool streamed = false;
  uint64_t streamed_rows = 0;
  std::string tag;                    // "CREATE TABLE", "INSERT 0 1000", "SET", ...
  std::vector<std::string> notices;   // printed as NOTICE:  ...
  std::vector<std::string> warnings;  // printed as WARNING:  ...
};

// Where a statement's rows go as they are made, instead of ResultSet::rows: the
// server sends each to its client at once, so a result takes memory for the rows
// not yet sent, not for all of them. Called on the statement's thread, under its
// locks; an exception thrown here ends the statement like any error.
class RowSink {
 public:
  virtual ~RowSink() = default;
  // Once, before the first row: `header` has columns, right_aligned,
  // column_types, and the notices raised so far (sent before the rows).
  virtual void begin(const ResultSet& header) = 0;
  // One row; `nulls` is null or holds one flag per cell (true: NULL).
  virtual void row(const std::vector<std::string>& cells, const std::vector<bool>* nulls) = 0;
};

// What Parse learns of a statement without running it (engine/session/describe.cc).
struct StatementDescription {
  bool returns_rows = false;
  ResultSet header;                 // when it returns rows: columns and their types
  std::vector<TypeId> param_types;  // $1 .. $n, given or inferred
};

// The functions that tell about the server and the session (version(), current_user,
// current_database(), current_setting(name), ...), answered by the session in a SELECT
// without FROM.
inline bool is_session_info_function(const std::string& name) {
  return name == "version" || name == "current_schema" || name == "current_database" ||
         name == "current_catalog" || name == "current_user" || name == "session_user" ||
         name == "current_setting";
}

// A statement prepared by name (the extended protocol's Parse, SQL PREPARE).
struct PreparedStatement {
  std::string text;  // one statement; empty for an empty query
  StatementDescription description;
  bool query = false;  // a SELECT: its executions choose custom or generic plans
  // What its executions planned, and its generic plan once it has one
  // (engine/session/plan_cache.h). A session runs one statement at a time, and only its
  // own prepared statements.
  mutable PlanCacheStats plan_cache;
  mutable std::shared_ptr<GenericPlan> generic_plan;
};

// Thrown by describe()'s RowSink when a query's header has come: the query stops there
// and did not fail.
struct StatementDescribed {};

// The client's side of COPY: where COPY FROM STDIN's data comes from and COPY TO
// STDOUT's goes (the server's CopyIn / CopyOut messages). Called on the statement's
// thread, under its locks.
class CopyIo {
 public:
  virtual ~CopyIo() = default;
  // COPY FROM STDIN: once, before the first read (CopyInResponse).
  virtual void begin_in(sql::CopyStmt::Format format, size_t columns) = 0;
  // The next piece of data; false at its end (CopyDone). Throws when the client gives
  // up (CopyFail) or goes.
  virtual bool read(std::string& chunk) = 0;
  // COPY TO STDOUT: once, before the first write (CopyOutResponse); then the data, a
  // row (or the binary format's header and trailer) at a time; end_out() after the last.
  virtual void begin_out(sql::CopyStmt::Format format, size_t columns) = 0;
  virtual void write(std::string_view data) = 0;
  virtual void end_out() = 0;
};

// A session with a Database of its own (the shell, `tidepool check`, most tests).
struct SessionOptions {
  std::string data_dir;
  std::vector<std::string> settings;  // "name=value" from --set
  bool progress = false;              // progress line on stderr during loads
  bool create_data_dir = true;        // false: a missing or empty data_dir is an error
};

class Session {
 public:
  // A session of `database`, its settings starting from the Database's.
  explicit Session(std::shared_ptr<Database> database);
  // Opens a Database of its own on options.data_dir (Database::open).
  explicit Session(const SessionOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Parses and runs one statement under the Database's locks. A failed
  // statement throws tp::Error and leaves data and catalog as they were before
  // it.
  // With `sink`, a query's rows go there as they are made (RowSink); the rows of
  // SHOW, EXPLAIN and the system views still come in the ResultSet.
  ResultSet execute(std::string_view sql, RowSink* sink = nullptr);
  // The same with the values of the statement's $n (the extended protocol's Bind, SQL
  // EXECUTE): planned with them, as PostgreSQL's custom plans are.
  ResultSet execute(std::string_view sql, RowSink* sink, sql::StatementParams* params);
  // A prepared statement with its values, `prefix` before its text (EXPLAIN's, for
  // EXPLAIN EXECUTE): a query gets a custom or the generic plan as PostgreSQL's plan
  // cache chooses (engine/session/plan_cache.h).
  ResultSet execute_prepared(const PreparedStatement& ps, std::string_view prefix, RowSink* sink,
                             sql::StatementParams& params);
  // Parse's analysis of one statement, `declared` its parameters' types as the client
  // gave them (none: infer it): the statement is parsed and a query planned, nothing
  // runs. Throws what Parse reports: syntax errors, unknown names, type errors, 42P18
  // for a parameter whose type nothing decides.
  StatementDescription describe(std::string_view sql,
                                const std::vector<std::optional<TypeId>>& declared);

  // Prepared statements, by name ("" the unnamed one, which each prepare replaces);
  // they last until deallocated or the session ends. prepare() describes the
  // statement (its errors are Parse's) and refuses a name in use (42P05).
  std::shared_ptr<const PreparedStatement> prepare(
      const std::string& name, std::string text,
      const std::vector<std::optional<TypeId>>& declared);
  // Null when there is no such statement.
  std::shared_ptr<const PreparedStatement> prepared(const std::string& name) const;
  void deallocate(const std::string& name) { prepared_.erase(name); }
  void deallocate_all() { prepared_.clear(); }

  // The user and database a client connected as (the startup packet's), which
  // current_user and current_database() answer; "tidepool" for `tidepool sql`.
  void set_client_names(std::string user, std::string database) {
    user_name_ = std::move(user);
    database_name_ = std::move(database);
  }

  // Where COPY FROM STDIN reads and COPY TO STDOUT writes; without one, COPY to or
  // from the client is refused (0A000).
  void set_copy_io(CopyIo* io) { copy_io_ = io; }

  // For the executors (query.cc): the running statement's sink, or null.
  RowSink* row_sink() const { return row_sink_; }
  // Marks `header` streamed and hands it, with the statement's notices so far, to
  // the sink's begin().
  void begin_streaming(ResultSet& header);

  // Cancels this session's statement that is running or waiting for a lock (it fails with
  // "canceling statement due to user request" at its next check); a cancel while the session is
  // idle does nothing. Callable from any thread; other sessions' statements go on.
  void cancel() { cancel_.store(true); }

  // True between BEGIN and COMMIT / ROLLBACK (ReadyForQuery's status 'T').
  bool in_transaction_block() const { return in_block_ && !implicit_block_; }
  // ReadyForQuery's status: 'I' idle, 'T' in a block, 'E' in a failed block
  // (every statement but COMMIT / ROLLBACK is refused until it ends).
  char transaction_status() const {
    return !in_transaction_block() ? 'I' : block_failed_ ? 'E' : 'T';
  }

  // PostgreSQL's implicit transaction block (transaction_block.cc): the statements of a
  // Query string holding more than one, or the extended protocol's Executes up to a
  // Sync (`pipeline`), are one all-or-nothing unit. Called before each statement (it
  // does nothing inside a block); end_implicit_block at the Query's end or the Sync
  // commits what the block wrote, or leaves undone what a failed statement undid.
  void begin_implicit_block(bool pipeline);
  void end_implicit_block();

  // This session's row of pg_stat_activity (its pid, the server's client
  // details, pg_terminate_backend's flag).
  SessionEntry& activity() { return *activity_; }

  // A server's clients: SET and RESET of a database-wide setting (shared_buffers,
  // io_method...) fail with PostgreSQL's 55P02 "cannot be changed now" and `hint`,
  // since one client would change them for every other. RESET ALL leaves them alone.
  void refuse_database_settings(std::string hint) {
    database_settings_refused_ = true;
    database_settings_hint_ = std::move(hint);
  }

  // Not locked: for the thread that uses this session, between statements.
  // Changing a database-wide setting here changes it for every session; SET
  // does that under the statement lock.
  Settings& settings() { return *settings_; }
  const std::shared_ptr<Database>& database() const { return db_; }
  DataDir& data_dir() { return db_->data_dir(); }
  Storage& storage() { return db_->storage(); }
  // The catalog this session's statement works from: the snapshot a read took
  // when it got its locks; for a write (it holds the writer lock) and between
  // statements, the committed one.
  const Catalog& catalog() const {
    if (block_catalog_) return *block_catalog_;
    return catalog_snapshot_ ? *catalog_snapshot_ : db_->data_dir().catalog();
  }
  // Makes `next` the committed catalog and removes the files it no longer names
  // (`garbage`); inside a transaction block that writes, `next` is the block's
  // catalog until COMMIT does that for all of its statements at once.
  void commit_catalog(Catalog next, const std::vector<uint32_t>& garbage = {});

  // Height of a B-tree index as PostgreSQL counts it: the root's level (0 when
  // the root is a leaf; 2 for 10 M int4 keys).
  int index_height(const RelationEntry& index);
  // What the planner needs, with this session's settings.
  PlanContext plan_context();
  // For query.cc: the plan a query got, which a prepared statement's plan cache counts
  // (a custom plan's cost, or the generic plan's while it is weighed). True when the
  // plan was all that was asked for: the query stops there.
  bool note_plan(const PlannedQuery& q, const sql::Select& s);
  // For query.cc: the generic plan of the prepared query this execution runs, whose tree
  // it may run again and keep (engine/session/plan_cache.h); null otherwise.
  GenericPlan* kept_generic_plan() const { return kept_generic_plan_; }

 private:
  ResultSet run(sql::Statement& st);
  // describe(): run() for a statement that is only described (a query is planned; a
  // write or a command does nothing).
  ResultSet describe_run(sql::Statement& st);
  void describe_insert(const sql::Insert& ins);  // session_insert.cc
  bool describing_ = false;
  // The prepared statement whose execution is planning (note_plan counts its plan once),
  // and whether only the generic plan's cost is wanted.
  PlanCacheStats* plan_cache_ = nullptr;
  bool costing_generic_ = false;
  GenericPlan* kept_generic_plan_ = nullptr;
  // execute(), `parsed` the statement `text` parses to when it was parsed before (a
  // generic plan's), else null.
  ResultSet execute_statement(std::string_view text, sql::Statement* parsed, RowSink* sink,
                              sql::StatementParams* params);
  // The generic plan's cost for `ps`, planned once with these parameters as Params.
  double generic_plan_cost(const PreparedStatement& ps, const sql::StatementParams& params);
  CopyIo* copy_io_ = nullptr;
  std::map<std::string, std::shared_ptr<const PreparedStatement>> prepared_;
  // io_trace: a trace for `st` when the setting names a file (and `st` does I/O), else
  // nullptr; finish_trace waits for the statement's I/O and writes the file (a failure
  // to write is a warning on `r`, when there is one).
  std::unique_ptr<IoTrace> start_trace(const sql::Statement& st);
  void finish_trace(const IoTrace& trace, std::string_view text, ResultSet* r);
  // False for the statements that read only what is safe to read while other
  // statements run (the system views): they take the database lock in watch
  // mode only (engine/session/table_locks.h).
  static bool needs_statement_lock(const sql::Statement& st);
  // statement_locks.cc: the locks `st` takes, and what makes it a write.
  StatementLocks take_locks(const sql::Statement& st);
  // The command tag of a statement that writes ("INSERT", ...); nullptr for reads.
  static const char* write_tag(const sql::Statement& st);
  bool sets_database_setting(const sql::Statement& st) const;
  void check_setting_may_change(const std::string& name) const;  // session_settings.cc
  class StatementScope;                                          // session.cc
  // transaction_block.cc
  ResultSet transaction(const sql::TransactionStmt& t);
  void check_transaction_block(const sql::Statement& st);
  void remember_setting_for_rollback(const std::string& name);
  void end_block(bool undo_settings);
  // A block's writes (transaction_block.cc): committed at COMMIT, undone at ROLLBACK
  // or when one of its statements fails, the block's locks given back either way.
  void commit_block_writes();
  void undo_block_writes();
  // Drops the cached pages of the files a failed write may have changed, then puts
  // every file back as the committed catalog has it (DataDir::restore).
  void restore_files();
  ResultSet create_table(const sql::CreateTable& ct);
  ResultSet drop_table(const sql::DropTable& dt);
  ResultSet alter_table(const sql::AlterTable& at);
  ResultSet add_primary_key(const sql::AlterTable& at, const RelationEntry& table);
  ResultSet truncate(const sql::Truncate& t);
  ResultSet insert(const sql::Insert& ins);
  // session_insert.cc: the rows `produce` stores, loaded into `table` as one
  // all-or-nothing statement (heap, indexes, the visibility map's bits, the commit);
  // returns how many. `produce` calls its tick with the rows so far (cancel checks,
  // progress); `total_rows` is asked only when progress is shown.
  using LoadTick = std::function<void(uint64_t rows)>;
  uint64_t load_rows(const RelationEntry& table, const std::string& what,
                     const std::function<uint64_t()>& total_rows,
                     const std::function<void(RowStore&, const LoadTick&)>& produce);
  ResultSet copy(const sql::CopyStmt& c);  // copy.cc
  // describe.cc: SQL PREPARE, EXECUTE (also under EXPLAIN), DEALLOCATE, DISCARD ALL.
  ResultSet prepare_statement(const sql::PrepareStmt& p);
  ResultSet execute_prepared(const sql::ExecuteStmt& x);
  ResultSet deallocate_statement(const sql::DeallocateStmt& d);
  ResultSet copy_from(const sql::CopyStmt& c, const RelationEntry& table,
                      const std::vector<int>& target);
  ResultSet copy_to(const sql::CopyStmt& c);
  ResultSet select(const sql::Select& s);
  ResultSet typed_row_source_select(const sql::Select& s);
  ResultSet system_view(const sql::Select& s);
  ResultSet create_index(const sql::CreateIndex& ci);
  ResultSet drop_index(const sql::DropIndex& di);
  // Creates and builds an index of `table` into `next` (not committed).
  RelationEntry& add_index(Catalog& next, RelationEntry table, std::string name,
                           const std::vector<int>& columns, bool unique, bool primary,
                           std::optional<bool> deduplicate_items = std::nullopt);
  ResultSet set(const sql::SetStmt& s);
  ResultSet show(const sql::ShowStmt& s);
  ResultSet reset(const sql::ResetStmt& s);

  // Runs `body` as one all-or-nothing statement (see DataDir).
  ResultSet atomically(const std::function<ResultSet()>& body);

  void commit_and_remove(Catalog next, const std::vector<uint32_t>& garbage);
  // Clears the visibility map bits of `table`'s committed pages from `first_block` on.
  void clear_visibility(const RelationEntry& table, BlockNumber first_block);
  Value session_function(const sql::Expr& e, const std::vector<Value>& args);
  Value session_info(const sql::Expr& e, const std::vector<Value>& args);
  std::string user_name_ = "tidepool";
  std::string database_name_ = "tidepool";
  // The row-producing context of generate_series / VALUES with this session's
  // random() and functions.
  RowSourceContext row_source_context();

  std::shared_ptr<Database> db_;  // declared first: outlives settings_, which refers to it
  // Its read streams' look-ahead for the live page (the registry entry points here):
  // declared early, so a stream a member keeps past its statement goes before them.
  StreamGauges stream_gauges_;
  std::unique_ptr<Settings> settings_;
  Random random_;
  std::atomic<bool> cancel_{false};
  bool in_block_ = false;
  // Warnings of the running statement's functions (pg_cancel_backend's unknown pid).
  std::vector<std::string> warnings_;
  bool block_failed_ = false;
  bool block_read_only_ = false;  // BEGIN READ ONLY
  // The block is implicit (begin_implicit_block), of the extended protocol's
  // messages, and has run this many statements.
  bool implicit_block_ = false;
  bool implicit_pipeline_ = false;
  int implicit_statements_ = 0;
  // Session settings as they were before the block's first SET of each: put
  // back by ROLLBACK, as PostgreSQL undoes SET with its transaction.
  std::vector<std::pair<std::string, std::string>> block_settings_;
  std::shared_ptr<const Catalog> catalog_snapshot_;  // during a read statement
  // A transaction block that writes: the locks it holds until it ends, its catalog
  // (what its statements committed), the files that catalog no longer names.
  std::optional<StatementLocks> block_locks_;
  std::optional<Catalog> block_catalog_;
  std::vector<uint32_t> block_garbage_;
  const StatementLocks* locks_ = nullptr;  // during a statement
  SessionEntry* activity_ = nullptr;  // registered in the constructor, removed in the destructor
  RowSink* row_sink_ = nullptr;       // during execute()
  // Moves the parser's messages into `r`: its notices, and its warnings (kParseWarning).
  void take_parse_messages(ResultSet& r);
  std::vector<std::string> pending_notices_;  // the statement's parse notices, until sent
  bool database_settings_refused_ = false;
  std::string database_settings_hint_;
  // The planner's settings, derived from settings_ once per change of any setting
  // (Settings::changes), not per statement: a short query's plan costs less than
  // reading forty settings by name.
  std::optional<PlannerSettings> planner_settings_;
  uint64_t planner_settings_at_ = 0;
};

}  // namespace tp
