// The planner: binds a SELECT over one table to its columns, estimates it with
// PostgreSQL 15's selectivity and cost formulas (engine/plan/selectivity.h,
// engine/plan/cost_model.h), and builds the executor tree (scans/): the scan chosen by
// engine/plan/scan_choice.h, with an Aggregate, Sort and Limit above it as the query asks.
//
//   PlannedQuery q = plan_select(ctx, select);
//   q.root->open();
//   while (const scans::RowBatch* b = q.root->next()) ...   // q.output_slots name slots
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan/aggregate_expr.h"
#include "engine/plan/aggregate_text.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/selectivity.h"
#include "engine/sql/ast.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/sort_limit_agg.h"

namespace tp {

struct PlannedQuery {
  std::unique_ptr<scans::ExecNode> root;
  std::vector<std::string> column_names;
  // Plain select list: the slot of each output column in root's rows.
  std::vector<uint32_t> output_slots;
  std::vector<OutputType> output_types;
  // Plain select list: each output column's type and typmod (any stored type).
  std::vector<Column> output_columns;
  // Aggregate select list: root is `aggregate`, one output column per entry.
  const scans::AggregateResults* aggregate = nullptr;
  std::vector<OutputAggregate> aggregates;
  // Non-empty when some output column is arithmetic over the aggregates: one
  // expression per output column (engine/plan/aggregate_expr.h).
  std::vector<AggregateExpr> output_exprs;
  // A query over one table whose range table holds more entries (a subquery pulled up
  // into it): EXPLAIN qualifies the names above the scan with this table's name, as
  // PostgreSQL does (engine/session/explain_prefix.h). Empty: names stay bare.
  std::string upper_prefix_table;
  std::vector<std::string> upper_prefix_columns;
  // A generic plan (engine/sql/params.h): where its index keys read $n, set from the
  // execution's values before each run (set_extern_keys); the parameters they live in,
  // when no subquery host owns them.
  std::vector<scans::ExternKey> extern_keys;
  std::shared_ptr<scans::ExecParams> extern_key_params;
};

// Plans `select` (FROM a table). Throws tp::Error for anything the user wrote
// that tidepool cannot run, naming it (unknown column, an expression that is
// not column-op-constant in WHERE, ...).
PlannedQuery plan_select(PlanContext& ctx, const sql::Select& select);

}  // namespace tp
