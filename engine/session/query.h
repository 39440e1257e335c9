// Queries over tables: SELECT ... FROM table, EXPLAIN, ANALYZE. The session
// hands these statements here; planning and execution live behind them
// (engine/planner, scans/).
#pragma once

#include "engine/session/session.h"
#include "engine/sql/ast.h"

namespace tp {

// SELECT ... FROM a table (not generate_series, not a system view).
ResultSet query_select(Session& session, const sql::Select& select);
// EXPLAIN [(options)] SELECT ...
ResultSet query_explain(Session& session, const sql::Explain& explain);
// ANALYZE / VACUUM ANALYZE [table, ...]
ResultSet query_analyze(Session& session, const sql::Analyze& analyze);

}  // namespace tp
