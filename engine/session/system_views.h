// The system views: what one session sees of the state every session of a
// Database shares, read while other sessions' statements run.
//
//   pg_stat_activity  one row per live session (SessionRegistry::snapshot)
//   pg_aios           I/Os in flight now, of every thread (IoSystem::in_flight)
//   pg_stat_io        cumulative I/O counters of the whole process (aio::io_stats_snapshot)
//   pg_buffercache    one row per buffer of the pool (BufferPool::snapshot)
//   tidepool_session_memory
//                     one row per live session: the memory it holds that grows
//                     with its client's demands (SessionRegistry::snapshot)
//
// Reading a view touches only state that is safe to read from any thread at any
// time (the registry under its mutex, atomics, each buffer header under its own
// header lock, the catalog snapshot), so a view takes only the database lock in
// watch mode (Session::needs_statement_lock; table_locks.h), no table lock, and
// one session can watch another's statement.
// A SELECT over a view takes a column list (any expressions), WHERE, ORDER BY
// and LIMIT, evaluated over each row's Values as SELECT without FROM evaluates
// its targets.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "engine/session/session.h"
#include "engine/sql/ast.h"
#include "engine/sql/value.h"

namespace tp {

// A view's rows as typed values, before the SELECT's columns, WHERE and ORDER BY.
struct ViewRows {
  std::vector<std::string> columns;
  std::vector<ValueType> types;
  std::vector<std::vector<Value>> rows;
};

bool is_system_view(std::string_view name);
// A FROM item naming a system view: an unqualified or pg_catalog-qualified view name
// (public.pg_aios names a table, as in PostgreSQL).
inline bool is_system_view(const sql::FromItem& from) {
  return !from.is_function && from.schema != "public" && is_system_view(from.name);
}

// Reads view `name` (is_system_view) now. Thread-safe.
ViewRows read_system_view(std::string_view name, Database& db);

// The SELECT `s` over `view`: its targets (`*` for every column), WHERE, ORDER BY
// (expressions, output column numbers or output names; NULLs last ascending, first
// descending, as PostgreSQL) and LIMIT. `functions` evaluates the function calls.
// Throws tp::Error for an unknown column or an aggregate (not supported over a view).
ResultSet select_from_view(const sql::Select& s, const ViewRows& view, EvalContext& functions);

// PostgreSQL's timestamptz text in UTC: 2026-12-01 11:22:33.123456+00 (trailing
// zeros of the fraction dropped, as PostgreSQL prints them).
std::string timestamptz_text(std::chrono::system_clock::time_point t);

}  // namespace tp
