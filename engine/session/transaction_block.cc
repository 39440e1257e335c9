// BEGIN / COMMIT / ROLLBACK. A block's writes are one all-or-nothing unit, as one
// statement's are: from its first write the block holds the writer lock and every
// table its statements touch (exclusively) until it ends; each statement's catalog
// becomes the block's (its later statements see it, other sessions do not), the
// statement journal runs on, and COMMIT commits the block's catalog once, while
// ROLLBACK, an error in any statement, or the session's end puts every file back.
// After an error every statement but COMMIT / ROLLBACK is refused until the block
// ends; SET inside it is undone by ROLLBACK; VACUUM is refused in a block, as
// PostgreSQL refuses it.
//
// The server opens implicit blocks as PostgreSQL does: around a Query string of
// several statements, and around the extended protocol's Executes up to a Sync. One
// works as a block (an error undoes all its statements' writes) but is not the
// client's: ReadyForQuery says idle, BEGIN inside it makes it the client's,
// COMMIT / ROLLBACK inside it end it with PostgreSQL's warning, and its end commits.
#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {

namespace {

// What refuses to run inside a transaction block, as PostgreSQL's
// PreventInTransactionBlock does (database-wide SETs: tidepool's own rule, below).
const char* refuses_blocks(const sql::Statement& st) {
  if (const auto* a = std::get_if<sql::Analyze>(&st); a && a->vacuum) return "VACUUM";
  if (const auto* d = std::get_if<sql::DeallocateStmt>(&st); d && d->discard) return "DISCARD ALL";
  return nullptr;
}

}  // namespace

void Session::begin_implicit_block(bool pipeline) {
  if (in_block_) return;
  in_block_ = true;
  implicit_block_ = true;
  implicit_pipeline_ = pipeline;
  implicit_statements_ = 0;
}

void Session::end_implicit_block() {
  if (!implicit_block_) return;  // none, or BEGIN made it a block of the client's
  const bool failed = block_failed_;
  try {
    if (!failed) commit_block_writes();  // a failed statement undid the writes already
  } catch (...) {
    end_block(true);
    throw;
  }
  end_block(failed);
}

void Session::check_transaction_block(const sql::Statement& st) {
  if (implicit_block_ && describing_) return;  // a Parse in a pipeline: its Execute decides
  if (implicit_block_ && !block_failed_ && !std::holds_alternative<sql::TransactionStmt>(st)) {
    // What refuses blocks may still come first (nothing of the block ran yet): it runs
    // on its own, as PostgreSQL runs a VACUUM that comes first after a Sync. A
    // database-wide SET too, in a Query string of several statements.
    const char* refused = refuses_blocks(st);
    const bool first = implicit_statements_ == 0;
    if (first && ((implicit_pipeline_ && refused) || sets_database_setting(st))) {
      end_block(false);
      return;
    }
    if (implicit_pipeline_ && refused)
      throw Error(std::string(refused) + " cannot be executed within a pipeline")
          .with_sqlstate(sqlstate::kActiveSqlTransaction);
    ++implicit_statements_;
  }
  if (!in_block_ || std::holds_alternative<sql::TransactionStmt>(st)) return;
  if (block_failed_)
    throw Error("current transaction is aborted, commands ignored until end of transaction block")
        .with_sqlstate(sqlstate::kInFailedSqlTransaction);
  if (block_read_only_)
    if (const char* tag = write_tag(st))
      throw Error(std::string("cannot execute ") + tag + " in a read-only transaction")
          .with_sqlstate(sqlstate::kReadOnlySqlTransaction);
  if (const auto* a = std::get_if<sql::Analyze>(&st); a && a->vacuum)
    throw Error("VACUUM cannot run inside a transaction block")
        .with_sqlstate(sqlstate::kActiveSqlTransaction);
  if (sets_database_setting(st)) {
    const auto* set = std::get_if<sql::SetStmt>(&st);
    const std::string what =
        set ? "SET " + set->name : "RESET " + std::get<sql::ResetStmt>(st).name;
    throw Error(what + " cannot run inside a transaction block", "",
                "It changes the buffer pool or the I/O system for every session at once, which "
                "ROLLBACK could not undo.")
        .with_sqlstate(sqlstate::kActiveSqlTransaction);
  }
  std::string name;
  if (const auto* set = std::get_if<sql::SetStmt>(&st)) name = set->name;
  if (const auto* reset = std::get_if<sql::ResetStmt>(&st)) name = reset->name;
  if (name == "all") {
    for (const SettingDef& d : Settings::definitions())
      if (d.scope == SettingScope::kSession) remember_setting_for_rollback(d.name);
  } else if (!name.empty()) {
    for (const SettingDef& d : Settings::definitions())
      if (d.name == name) remember_setting_for_rollback(d.name);
  }
}

void Session::remember_setting_for_rollback(const std::string& name) {
  for (const auto& [n, value] : block_settings_)
    if (n == name) return;  // the value before the block's first SET is the one to keep
  block_settings_.emplace_back(name, settings_->show(name));
}

void Session::commit_block_writes() {
  if (!block_locks_) return;
  const StatementLocks* saved = locks_;
  locks_ = &*block_locks_;
  try {
    if (block_catalog_) {
      Catalog next = std::move(*block_catalog_);
      block_catalog_.reset();
      commit_and_remove(std::move(next), block_garbage_);
    }
  } catch (...) {
    // A cancel at the commit's last moment: nothing of the block is kept.
    restore_files();
    locks_ = saved;
    block_garbage_.clear();
    block_locks_.reset();
    throw;
  }
  locks_ = saved;
  block_garbage_.clear();
  block_locks_.reset();
}

void Session::undo_block_writes() {
  if (!block_locks_) return;
  const StatementLocks* saved = locks_;
  locks_ = &*block_locks_;
  block_catalog_.reset();
  block_garbage_.clear();
  try {
    restore_files();
  } catch (...) {
    locks_ = saved;
    block_locks_.reset();
    throw;
  }
  locks_ = saved;
  block_locks_.reset();
}

void Session::end_block(bool undo_settings) {
  if (undo_settings) {
    // Newest first does not matter: each name is remembered once.
    for (const auto& [name, value] : block_settings_) settings_->set(name, value);
  }
  block_settings_.clear();
  in_block_ = false;
  block_read_only_ = false;
  block_failed_ = false;
  implicit_block_ = false;
  implicit_pipeline_ = false;
  implicit_statements_ = 0;
}

ResultSet Session::transaction(const sql::TransactionStmt& t) {
  using Kind = sql::TransactionStmt::Kind;
  ResultSet r;
  switch (t.kind) {
    case Kind::kBegin:
      r.tag = "BEGIN";
      if (implicit_block_) {
        // The implicit block becomes the client's, its statements so far included.
        implicit_block_ = false;
        block_read_only_ = t.read_only;
      } else if (in_block_) {
        r.warnings.push_back("there is already a transaction in progress");
      } else {
        in_block_ = true;
        block_read_only_ = t.read_only;
      }
      break;
    case Kind::kCommit:
      // COMMIT of a failed block rolls it back, and says so in its tag.
      r.tag = block_failed_ ? "ROLLBACK" : "COMMIT";
      if (!in_transaction_block()) r.warnings.push_back("there is no transaction in progress");
      try {
        if (block_failed_)
          undo_block_writes();
        else
          commit_block_writes();
      } catch (...) {
        end_block(true);
        throw;
      }
      end_block(block_failed_);
      break;
    case Kind::kRollback:
      r.tag = "ROLLBACK";
      if (!in_transaction_block()) r.warnings.push_back("there is no transaction in progress");
      try {
        undo_block_writes();
      } catch (...) {
        end_block(true);
        throw;
      }
      end_block(true);
      break;
  }
  return r;
}

}  // namespace tp
