// Which locks a statement takes (engine/session/table_locks.h) and the rules of
// a transaction block. Every statement takes the database lock in share mode,
// except SET / RESET of a database-wide setting (exclusive: it rebuilds the
// pool or the I/O system) and the system views (a weaker "watch" mode that
// does not queue behind a waiting SET, so one session can always look at
// another). A statement that writes takes the writer lock, then its tables
// exclusively; a read takes its table in share mode.
#include <functional>

#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {
namespace {

bool calls_function(const sql::Expr& e, std::string_view name) {
  if (e.kind == sql::ExprKind::kFuncCall && e.name == name) return true;
  for (const sql::ExprPtr& a : e.args)
    if (a && calls_function(*a, name)) return true;
  return false;
}

bool select_calls(const sql::Select& s, std::string_view name) {
  for (const sql::Target& t : s.targets)
    if (t.expr && calls_function(*t.expr, name)) return true;
  return false;
}

// Every table a FROM clause reads (a join's both sides), in share mode.
// (a name WITH defines takes a lock on a table that may not exist: harmless).
template <typename Add>
void add_select_tables(const sql::Select& s, Add& add);

template <typename Add>
void add_from_tables(const sql::FromItem& f, Add& add) {
  if (f.is_join()) {
    for (const sql::FromItem& side : f.sides) add_from_tables(side, add);
  } else if (f.subquery) {
    add_select_tables(*f.subquery, add);
  } else if (!f.is_function) {
    add(f.name, LockMode::kShare);
  }
}

// Every table a SELECT's FROM clause and WITH queries read.
template <typename Add>
void add_select_tables(const sql::Select& s, Add& add) {
  for (const sql::CommonTableExpr& c : s.with) add_select_tables(*c.query, add);
  if (s.from) add_from_tables(*s.from, add);
  if (s.set_operation) {
    add_select_tables(*s.set_operation->left, add);
    add_select_tables(*s.set_operation->right, add);
  }
}

}  // namespace

const char* Session::write_tag(const sql::Statement& st) {
  return std::visit(
      [](const auto& s) -> const char* {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, sql::CreateTable>) return "CREATE TABLE";
        if constexpr (std::is_same_v<T, sql::DropTable>) return "DROP TABLE";
        if constexpr (std::is_same_v<T, sql::Truncate>) return "TRUNCATE";
        if constexpr (std::is_same_v<T, sql::Insert>) return "INSERT";
        if constexpr (std::is_same_v<T, sql::CopyStmt>) return s.from ? "COPY FROM" : nullptr;
        if constexpr (std::is_same_v<T, sql::CreateIndex>) return "CREATE INDEX";
        if constexpr (std::is_same_v<T, sql::DropIndex>) return "DROP INDEX";
        if constexpr (std::is_same_v<T, sql::AlterTable>) return "ALTER TABLE";
        if constexpr (std::is_same_v<T, sql::Analyze>) return s.vacuum ? "VACUUM" : "ANALYZE";
        if constexpr (std::is_same_v<T, std::unique_ptr<sql::Explain>>)
          return s->options.analyze ? write_tag(s->statement) : nullptr;
        return nullptr;
      },
      st);
}

bool Session::sets_database_setting(const sql::Statement& st) const {
  std::string name;
  if (const auto* s = std::get_if<sql::SetStmt>(&st)) name = s->name;
  if (const auto* r = std::get_if<sql::ResetStmt>(&st)) name = r->name;
  if (name.empty()) return false;
  if (name == "all") return std::holds_alternative<sql::ResetStmt>(st);
  for (const SettingDef& d : Settings::definitions())
    if (d.name == name) return d.scope == SettingScope::kDatabase;
  return false;  // unknown: SET fails with its own error, under a share lock
}

StatementLocks Session::take_locks(const sql::Statement& st) {
  StatementLocks locks(db_->locks(), settings_->get_int("lock_timeout"));
  // These take none of their own: EXECUTE's statement takes its locks when it runs.
  const auto* explain = std::get_if<std::unique_ptr<sql::Explain>>(&st);
  if (std::holds_alternative<sql::TransactionStmt>(st) ||
      std::holds_alternative<sql::PrepareStmt>(st) ||
      std::holds_alternative<sql::ExecuteStmt>(st) ||
      std::holds_alternative<sql::DeallocateStmt>(st) ||
      (explain && std::holds_alternative<sql::ExecuteStmt>((*explain)->statement)))
    return locks;
  if (!needs_statement_lock(st)) {
    locks.take({{LockObject::database(), LockMode::kWatch}});
    return locks;
  }
  const sql::Statement* inner = &st;
  if (const auto* e = std::get_if<std::unique_ptr<sql::Explain>>(&st)) inner = &(*e)->statement;
  const bool writes = write_tag(st) != nullptr;
  const auto* select = std::get_if<sql::Select>(inner);
  // tp_verify reads an index page by page, pg_prewarm a relation's blocks: no statement
  // may change (or drop) it meanwhile.
  const bool verifies =
      select && (select_calls(*select, "tp_verify") || select_calls(*select, "pg_prewarm"));
  // A transaction block that writes keeps every lock its statements take until it ends
  // (their changes are committed or undone together then); it locks its tables
  // exclusively, reads too, so that no later statement of it asks for a stronger mode.
  const bool block_writes = in_block_ && (writes || block_locks_);
  if (block_writes && !block_locks_)
    block_locks_.emplace(db_->locks(), settings_->get_int("lock_timeout"));
  StatementLocks& into = block_writes ? *block_locks_ : locks;
  std::vector<LockRequest> first{{LockObject::database(), sets_database_setting(st)
                                                              ? LockMode::kExclusive
                                                              : LockMode::kShare}};
  if (writes || verifies || block_writes)
    first.push_back({LockObject::writer(), LockMode::kExclusive});
  into.take(std::move(first));

  // The tables. A writer holds the writer lock now, so the catalog it looks
  // names up in cannot change before its table locks are taken.
  std::vector<LockRequest> tables;
  auto add = [&](const std::string& name, LockMode mode) {
    tables.push_back({LockObject::of_table(name), block_writes ? LockMode::kExclusive : mode});
  };
  const auto x = LockMode::kExclusive;
  std::visit(
      [&](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, sql::CreateTable>) add(s.name, x);
        if constexpr (std::is_same_v<T, sql::DropTable> || std::is_same_v<T, sql::Truncate>)
          for (const std::string& n : s.names) add(n, x);
        if constexpr (std::is_same_v<T, sql::Insert>) add(s.table, x);
        if constexpr (std::is_same_v<T, sql::CopyStmt>) {
          if (s.query)
            add_select_tables(*s.query, add);
          else
            add(s.table, s.from ? x : LockMode::kShare);
        }
        if constexpr (std::is_same_v<T, sql::CreateIndex>) add(s.table, x);
        if constexpr (std::is_same_v<T, sql::AlterTable>) add(s.name, x);
        if constexpr (std::is_same_v<T, sql::DropIndex>) {
          const Catalog& live = catalog();
          for (const std::string& n : s.names)
            if (const RelationEntry* idx = live.find(n); idx && !idx->is_table())
              if (const RelationEntry* t = live.find_oid(idx->table_oid)) add(t->name, x);
        }
        if constexpr (std::is_same_v<T, sql::Analyze>) {
          if (!s.tables.empty()) {
            for (const std::string& n : s.tables) add(n, LockMode::kShare);
          } else {
            for (const RelationEntry& r : catalog().relations)
              if (r.is_table()) add(r.name, LockMode::kShare);
          }
        }
        if constexpr (std::is_same_v<T, sql::Select>) add_select_tables(s, add);
      },
      *inner);
  into.take(std::move(tables));
  return locks;
}

}  // namespace tp
