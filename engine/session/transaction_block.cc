// BEGIN / COMMIT / ROLLBACK. A block's writes are one all-or-nothing unit, as one
// statement's are: from its first write the block holds the writer lock and every
// table its statements touch (exclusively) until it ends; each statement's catalog
// becomes the block's (its later statements see it, other sessions do not), the
// statement journal runs on, and COMMIT commits the block's catalog once, while
// ROLLBACK, an error in any statement, or the session's end puts every file back.
// After an error every statement but COMMIT / ROLLBACK is refused until the block
// ends; SET inside it is undone by ROLLBACK; VACUUM is refused in a block, as
// PostgreSQL refuses it.
#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {

void Session::check_transaction_block(const sql::Statement& st) {
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
}

ResultSet Session::transaction(const sql::TransactionStmt& t) {
  using Kind = sql::TransactionStmt::Kind;
  ResultSet r;
  switch (t.kind) {
    case Kind::kBegin:
      r.tag = "BEGIN";
      if (in_block_) {
        r.warnings.push_back("there is already a transaction in progress");
      } else {
        in_block_ = true;
        block_read_only_ = t.read_only;
      }
      break;
    case Kind::kCommit:
      // COMMIT of a failed block rolls it back, and says so in its tag.
      r.tag = block_failed_ ? "ROLLBACK" : "COMMIT";
      if (!in_block_) r.warnings.push_back("there is no transaction in progress");
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
      if (!in_block_) r.warnings.push_back("there is no transaction in progress");
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
