#include "engine/session/session.h"

#include <unistd.h>

#include <set>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/interrupts.h"
#include "engine/core/session_memory.h"
#include "engine/core/stack_depth.h"
#include "engine/core/wait_event.h"
#include "engine/session/layer_settings.h"
#include "engine/session/query.h"
#include "engine/session/system_views.h"
#include "engine/session/trace_file.h"
#include "engine/session/typed_row_source.h"
#include "engine/sql/lexer.h"
#include "engine/sql/parser.h"
#include "engine/storage/index_build.h"

namespace tp {

Session::Session(std::shared_ptr<Database> database) : db_(std::move(database)) {
  {
    // The Database's settings change under its exclusive lock (SET of a
    // database-wide setting in another session): copy them under a share one.
    StatementLocks locks(db_->locks(), 0);
    locks.take({{LockObject::database(), LockMode::kShare}});
    settings_ = std::make_unique<Settings>(db_->settings());
  }
  random_.seed_with(uint64_t(settings_->get_int("random_seed")));
  activity_ = &db_->sessions().add(this);
  activity_->streams = &stream_gauges_;
  settings_->on_apply("random_seed", [this](const std::string&) {
    random_.seed_with(uint64_t(settings_->get_int("random_seed")));
  });
  // A client of the server names a file in the trace directory, never a path.
  if (!db_->options().trace_dir.empty())
    settings_->on_apply("io_trace", [this](const std::string&) {
      const std::string name = settings_->get_text("io_trace");
      if (!name.empty()) trace_file_path(name, db_->options().trace_dir);
    });
  settings_->on_apply("application_name", [this](const std::string&) {
    db_->sessions().set_client(*activity_, settings_->get_text("application_name"),
                               activity_->client_addr);
  });
}

Session::Session(const SessionOptions& options)
    : Session(Database::open(DatabaseOptions{.data_dir = options.data_dir,
                                             .settings = options.settings,
                                             .progress = options.progress,
                                             .create_if_missing = options.create_data_dir})) {}

Session::~Session() {
  prepared_.clear();  // their kept plans hold the Database's pool and files: before it goes
  try {
    undo_block_writes();  // a client that goes mid-block leaves the data as it was
  } catch (...) {
    // restore() failing here leaves the journal: the next open replays it
  }
  db_->sessions().remove(*activity_);
}

// What a statement works from while it holds its locks: a read, a catalog
// snapshot taken now that its tables are locked (a later commit of another
// table leaves it as it is); a write, the live catalog it alone may change.
class Session::StatementScope {
 public:
  StatementScope(Session& session, const StatementLocks& locks) : session_(session) {
    session.locks_ = &locks;
    if (!locks.holds(LockObject::writer(), LockMode::kExclusive))
      session.catalog_snapshot_ = session.data_dir().catalog_snapshot();
  }
  ~StatementScope() {
    session_.locks_ = nullptr;
    session_.catalog_snapshot_.reset();
  }
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;

 private:
  Session& session_;
};

namespace {

// Publishes the statement in pg_stat_activity and points this thread's wait
// slot and memory gauge at the session's entry while it runs.
class ActivityScope {
 public:
  ActivityScope(Session& session, std::string_view text)
      : session_(session),
        saved_slot_(wait_event_slot()),
        memory_(session.activity().memory),
        streams_({.gauges = session.activity().streams, .worker = 0}) {
    session.database()->sessions().statement_started(session.activity(), text);
    wait_event_slot() = &session.activity().wait_event;
  }
  ~ActivityScope() {
    wait_event_slot() = saved_slot_;
    session_.activity().wait_event.store(0, std::memory_order_relaxed);
    session_.database()->sessions().statement_ended(session_.activity(),
                                                    session_.in_transaction_block());
  }
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

 private:
  Session& session_;
  std::atomic<uint32_t>* saved_slot_;
  SessionMemoryScope memory_;
  StreamGaugeScope streams_;
};

// SET, SHOW, RESET and transaction control do no I/O worth a trace; SET io_trace itself
// would otherwise write one.
bool traceable(const sql::Statement& st) {
  return !std::holds_alternative<sql::SetStmt>(st) && !std::holds_alternative<sql::ShowStmt>(st) &&
         !std::holds_alternative<sql::ResetStmt>(st) &&
         !std::holds_alternative<sql::TransactionStmt>(st);
}

}  // namespace

std::unique_ptr<IoTrace> Session::start_trace(const sql::Statement& st) {
  if (settings_->get_text("io_trace").empty() || !traceable(st)) return nullptr;
  const size_t max = size_t(settings_->get_int("io_trace_max_events"));
  return std::make_unique<IoTrace>(max, max);
}

void Session::finish_trace(const IoTrace& trace, std::string_view text, ResultSet* r) {
  // Every I/O of the statement finished and reclaimed: no thread writes the records any
  // more, and no handle points into them once `trace` goes.
  storage().io().wait_all();
  TraceFileInfo info;
  info.statement = std::string(text);
  info.query_tid = trace_thread_id();
  info.threads = storage().io().method_threads();
  // A snapshot: another session may commit while the file is written.
  const std::shared_ptr<const Catalog> catalog = db_->data_dir().catalog_snapshot();
  info.relation_name = [&](uint32_t relnumber) {
    for (const RelationEntry& rel : catalog->relations)
      if (rel.relnumber == relnumber) return rel.name;
    return std::string();
  };
  try {
    const std::string path =
        trace_file_path(settings_->get_text("io_trace"), db_->options().trace_dir);
    write_trace_file(path, trace_json(trace, info), data_dir().path());
  } catch (const std::exception& e) {
    // The statement's work stands (it may have committed); only its trace is lost.
    if (r != nullptr) r->warnings.push_back(e.what());
  }
}

void Session::begin_streaming(ResultSet& header) {
  header.streamed = true;
  take_parse_messages(header);
  row_sink_->begin(header);
  header.notices.clear();
}

void Session::take_parse_messages(ResultSet& r) {
  std::vector<std::string> notices, warnings;
  for (std::string& m : pending_notices_) {
    if (m.starts_with(sql::kParseWarning))
      warnings.push_back(m.substr(sql::kParseWarning.size()));
    else
      notices.push_back(std::move(m));
  }
  pending_notices_.clear();
  r.notices.insert(r.notices.begin(), notices.begin(), notices.end());
  r.warnings.insert(r.warnings.begin(), warnings.begin(), warnings.end());
}

ResultSet Session::execute(std::string_view text, RowSink* sink) {
  return execute(text, sink, nullptr);
}

ResultSet Session::execute(std::string_view text, RowSink* sink, sql::StatementParams* params) {
  return execute_statement(text, nullptr, sink, params);
}

ResultSet Session::execute_statement(std::string_view text, sql::Statement* parsed, RowSink* sink,
                                     sql::StatementParams* params) {
  sql::ScopedParams params_scope(params);
  // A cancel that arrived while this session was idle cancels nothing; one
  // that arrives from here on (even while waiting for the lock) cancels this.
  // A terminated session's statement is cancelled at once, however late the
  // pg_terminate_backend came (its cancel may have found the session idle).
  cancel_.store(activity_->terminate_requested.load());
  ActivityScope activity(*this, text);
  StatementCancelScope cancel_scope(cancel_);
  // The stack-depth limit is process-wide (as a backend's GUC is per process):
  // the last statement to start sets it.
  apply_max_stack_depth_kb(settings_->get_int("max_stack_depth"));
  set_extra_float_digits(int(settings_->get_int("extra_float_digits")));
  pending_notices_.clear();  // identifier truncation, from the parser
  struct SinkScope {
    Session& s;
    SinkScope(Session& session, RowSink* sink) : s(session) { s.row_sink_ = sink; }
    ~SinkScope() { s.row_sink_ = nullptr; }
  } sink_scope(*this, sink);
  ResultSet r;
  std::unique_ptr<IoTrace> trace;  // io_trace set: this statement's
  // The statement's text and parse tree, in the session's memory figure.
  TrackedMemory text_memory(MemoryPart::kStatement);
  text_memory.set(text.size());
  TrackedMemory parse_memory(MemoryPart::kStatement);
  try {
    std::optional<sql::Statement> own;
    if (parsed == nullptr) {
      sql::ParsedNodeBudget budget(sql::kMaxParsedNodes, &parse_memory);
      own.emplace(sql::parse_statement(text, &pending_notices_));
      budget.publish();
    }
    sql::Statement& st = parsed != nullptr ? *parsed : *own;
    cancel_requested().store(false);  // a Ctrl-C between statements cancels nothing
    check_transaction_block(st);
    if (!describing_) trace = start_trace(st);
    std::optional<IoTraceScope> tracing;
    if (trace) tracing.emplace(trace.get());
    StatementLocks locks = take_locks(st);
    StatementScope scope(*this, block_locks_ ? *block_locks_ : locks);
    r = describing_ ? describe_run(st) : run(st);
  } catch (const StatementDescribed&) {
    throw;  // describe() has what it wanted: the statement did not fail
  } catch (...) {
    // Weighing a generic plan is the plan cache's own step, not the client's statement:
    // what it cannot plan leaves the block as it was (the custom plan runs instead).
    if (in_block_ && !costing_generic_) {
      block_failed_ = true;  // PostgreSQL's aborted block
      undo_block_writes();
    }
    if (trace) {
      try {
        finish_trace(*trace, text, nullptr);  // what led to the error, if it can
      } catch (...) {
      }
    }
    throw;
  }
  if (trace) finish_trace(*trace, text, &r);
  take_parse_messages(r);
  return r;
}

ResultSet Session::run(sql::Statement& st) {
  return std::visit(
      [&](auto& s) -> ResultSet {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, sql::CreateTable>)
          return create_table(s);
        else if constexpr (std::is_same_v<T, sql::DropTable>)
          return drop_table(s);
        else if constexpr (std::is_same_v<T, sql::Truncate>)
          return truncate(s);
        else if constexpr (std::is_same_v<T, sql::Insert>)
          return insert(s);
        else if constexpr (std::is_same_v<T, sql::CopyStmt>)
          return copy(s);
        else if constexpr (std::is_same_v<T, sql::Select>)
          return select(s);
        else if constexpr (std::is_same_v<T, sql::SetStmt>)
          return set(s);
        else if constexpr (std::is_same_v<T, sql::ShowStmt>)
          return show(s);
        else if constexpr (std::is_same_v<T, sql::ResetStmt>)
          return reset(s);
        else if constexpr (std::is_same_v<T, sql::CreateIndex>)
          return create_index(s);
        else if constexpr (std::is_same_v<T, sql::DropIndex>)
          return drop_index(s);
        else if constexpr (std::is_same_v<T, sql::AlterTable>)
          return alter_table(s);
        else if constexpr (std::is_same_v<T, sql::TransactionStmt>)
          return transaction(s);
        else if constexpr (std::is_same_v<T, sql::Analyze>)
          return query_analyze(*this, s);
        else if constexpr (std::is_same_v<T, sql::PrepareStmt>)
          return prepare_statement(s);
        else if constexpr (std::is_same_v<T, sql::ExecuteStmt>)
          return execute_prepared(s);
        else if constexpr (std::is_same_v<T, sql::DeallocateStmt>)
          return deallocate_statement(s);
        else if (auto* x = std::get_if<sql::ExecuteStmt>(&s->statement))
          return execute_prepared(*x);  // EXPLAIN EXECUTE
        else
          return query_explain(*this, *s);
      },
      st);
}

ResultSet Session::atomically(const std::function<ResultSet()>& body) {
  try {
    return body();
  } catch (...) {
    restore_files();
    throw;
  }
}

void Session::restore_files() {
  // Cached pages of the statement's (or block's) files may be newer than what
  // restore() puts back: drop them before the files are rewound. Those are the files
  // of the tables it holds exclusively and the files it created (no committed
  // relation names them); other sessions' pages stay.
  TP_ASSERT(locks_ != nullptr && locks_->holds(LockObject::writer(), LockMode::kExclusive));
  std::set<uint32_t> mine;
  const Catalog& committed = data_dir().catalog();
  for (const std::string& name : locks_->exclusive_tables())
    if (const RelationEntry* t = committed.find(name)) {
      mine.insert(t->relnumber);
      for (const RelationEntry* idx : committed.indexes_of(t->oid)) mine.insert(idx->relnumber);
    }
  std::set<uint32_t> known;
  for (const RelationEntry& r : committed.relations) known.insert(r.relnumber);
  storage().forget_if([&](uint32_t relnumber) {
    return mine.count(relnumber) != 0 || known.count(relnumber) == 0;
  });
  data_dir().restore();
}

void Session::commit_catalog(Catalog next, const std::vector<uint32_t>& garbage) {
  if (block_locks_) {
    block_catalog_ = std::move(next);
    block_garbage_.insert(block_garbage_.end(), garbage.begin(), garbage.end());
    return;
  }
  commit_and_remove(std::move(next), garbage);
}

// Commits `next`; then the files it no longer names are garbage: their pages
// leave the pool and the files go. A crash before the unlink is cleaned up at
// the next open (DataDir::restore).
void Session::commit_and_remove(Catalog next, const std::vector<uint32_t>& garbage) {
  data_dir().commit(std::move(next));
  for (uint32_t f : garbage) {
    storage().forget(f);
    ::unlink(data_dir().relation_path(f).c_str());
    ::unlink(data_dir().vm_path(f).c_str());  // a table's visibility map, if it has one
  }
}

RowSourceContext Session::row_source_context() {
  RowSourceContext ctx;
  ctx.random = &random_;
  ctx.session_function = [this](const sql::Expr& e, const std::vector<Value>& args) {
    return session_function(e, args);
  };
  ctx.tick = [](uint64_t, uint64_t) { check_for_interrupts(); };
  return ctx;
}

ResultSet Session::select(const sql::Select& s) {
  if (s.set_operation) return query_select(*this, s);
  const bool table = s.from && !s.from->is_function && !is_system_view(*s.from);
  if (!table && (!s.group_by.empty() || s.having))
    throw Error(std::string(s.having && s.group_by.empty() ? "HAVING" : "GROUP BY") +
                " over a system view, a function or no FROM is not supported yet")
        .at_position(s.having && s.group_by.empty() ? s.having->position : s.group_by_position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (s.from && !s.from->is_function) {
    if (is_system_view(*s.from)) {
      sql::check_column_qualifiers(s);
      return system_view(s);
    }
    return query_select(*this, s);
  }
  if (is_typed_row_source(s)) return typed_row_source_select(s);
  ResultSet r;
  r.returns_rows = true;
  r.columns = row_source_columns(s);
  RowSourceContext ctx = row_source_context();
  bool first = true;
  warnings_.clear();
  // The column types come from the first row (a row source's values carry them).
  std::vector<std::string> out;
  std::vector<bool> null;
  produce_rows(s, ctx, [&](const std::vector<Value>& row) {
    if (first) {
      for (const Value& v : row) {
        r.right_aligned.push_back(v.is_numeric_type());
        r.column_types.push_back(v.type);
      }
      first = false;
      if (row_sink_) begin_streaming(r);
    }
    out.clear();
    null.clear();
    for (const Value& v : row) {
      out.push_back(v.to_string());
      null.push_back(v.type == ValueType::kNull);
    }
    if (row_sink_) {
      row_sink_->row(out, &null);
      ++r.streamed_rows;
    } else {
      r.rows.push_back(std::move(out));  // cleared before its next use
      r.nulls.push_back(std::move(null));
    }
  });
  if (first) {
    r.right_aligned.assign(r.columns.size(), false);
    r.column_types.assign(r.columns.size(), ValueType::kText);
    if (row_sink_) begin_streaming(r);
  }
  r.warnings = std::move(warnings_);
  warnings_.clear();
  r.tag = "SELECT " + std::to_string(r.streamed ? r.streamed_rows : r.rows.size());
  return r;
}

ResultSet Session::typed_row_source_select(const sql::Select& s) {
  RowSourceContext ctx = row_source_context();
  TypedRowSource source(s, ctx, nullptr);
  ResultSet r;
  r.returns_rows = true;
  for (const Column& c : source.columns()) {
    r.columns.push_back(c.name);
    r.right_aligned.push_back(type_is_numeric(c.type));
    // An empty string is a value, not NULL, in a column of a string type.
    r.column_types.push_back(type_is_numeric(c.type) ? ValueType::kNumeric : ValueType::kText);
  }
  r.column_type_ids = source.columns();
  if (row_sink_) begin_streaming(r);
  const size_t width = r.columns.size();
  std::vector<std::string> out(width);
  std::vector<bool> null(width);
  source.run([&](const Datum* values, const bool* nulls) {
    for (size_t c = 0; c < width; ++c) {
      out[c].clear();
      null[c] = nulls[c];
      if (!nulls[c]) append_datum_out(source.columns()[c].type, values[c], out[c]);
    }
    if (row_sink_) {
      row_sink_->row(out, &null);
      ++r.streamed_rows;
    } else {
      r.rows.push_back(out);
      r.nulls.push_back(null);
    }
  });
  r.tag = "SELECT " + std::to_string(r.streamed ? r.streamed_rows : r.rows.size());
  return r;
}

int Session::index_height(const RelationEntry& index) {
  return tp::index_height(storage(), index);
}

PlanContext Session::plan_context() {
  const uint64_t changes = Settings::changes();
  if (!planner_settings_ || planner_settings_at_ != changes) {
    planner_settings_ = planner_settings(*settings_);
    planner_settings_at_ = changes;
  }
  return PlanContext{catalog(), data_dir(), storage(), *planner_settings_, &db_->worker_slots()};
}

}  // namespace tp
