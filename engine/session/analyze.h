// ANALYZE and VACUUM ANALYZE: per-column statistics (engine/plan/statistics.h, computed
// as PostgreSQL 15 does) over a table's pages read through the buffer pool,
// stored in the catalog where the planner and \d+ find them.
#pragma once

#include <string>

#include "engine/plan/statistics.h"
#include "engine/session/session.h"
#include "engine/sql/ast.h"

namespace tp {

// Analyzes the named tables (every table when the list is empty) and commits
// the statistics to the catalog in one step. VACUUM ANALYZE also records the
// exact live row count as reltuples (a vacuum reads every page), as
// PostgreSQL's VACUUM does. Throws tp::Error for an unknown relation or an
// index, before anything is read.
ResultSet run_analyze(Session& session, const sql::Analyze& analyze);

// Lines describing a table's statistics for \d+ (empty if never analyzed).
std::vector<std::string> describe_stats(const RelationEntry& rel);

}  // namespace tp
