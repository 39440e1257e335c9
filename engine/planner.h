// The planner: binds a SELECT over one table to its columns, estimates it
// with PostgreSQL 15's selectivity and cost formulas (engine/selectivity.h,
// engine/cost_model.h) and builds the executor tree (scans/).
//
//   PlannedQuery q = plan_select(session, select);
//   q.root->open();
//   while (const scans::RowBatch* b = q.root->next()) ...   // q.output names slots
//
// Paths considered: a sequential scan (the only heap access path until the
// B-tree's index paths are built), with Sort, Limit and a plain Aggregate
// above it. enable_seqscan = off adds PostgreSQL's disable cost (1e10) but
// the scan is still chosen when nothing else can answer, as in PostgreSQL.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/cost_model.h"
#include "engine/selectivity.h"
#include "engine/session.h"
#include "engine/sql/ast.h"
#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"

namespace tp {

// The SQL type of an output column, which decides how it prints.
enum class OutputType { kInt4, kInt8, kNumeric };

// One aggregate of the select list.
struct OutputAggregate {
  scans::AggKind kind = scans::AggKind::kCountStar;
  ColumnType input = ColumnType::Int4;  // the argument's column type
  OutputType type = OutputType::kInt8;
};

struct PlannedQuery {
  std::unique_ptr<scans::ExecNode> root;
  std::vector<std::string> column_names;
  // Plain select list: the slot of each output column in root's rows.
  std::vector<uint32_t> output_slots;
  std::vector<OutputType> output_types;
  // Aggregate select list: root is `aggregate`, one output column per entry.
  scans::AggregateNode* aggregate = nullptr;
  std::vector<OutputAggregate> aggregates;
};

// The cost settings as the session's settings say (validated).
CostSettings session_cost_settings(const Settings& settings);

// Plans `select` (FROM a table). Throws tp::Error for anything the user wrote
// that tidepool cannot run, naming it (unknown column, an expression that is
// not column-op-constant in WHERE, ...).
PlannedQuery plan_select(Session& session, const sql::Select& select);

// The text of one aggregate result as psql prints it (avg: PostgreSQL's
// numeric division scale). Empty for NULL (no input rows).
std::string format_aggregate(const OutputAggregate& agg, const scans::AggState& state);

// PostgreSQL's numeric division num / den (den > 0) with its result scale
// (select_div_scale), rounded half away from zero. For avg().
std::string numeric_div_text(__int128 num, int64_t den);

}  // namespace tp
