// count, sum, avg, min and max over the rows of a row source (FROM
// generate_series, SELECT without FROM), with PostgreSQL's result types and
// texts (engine/plan/aggregate_text.h, shared with the executor's Aggregate):
// one row, also over no rows (count 0, the others NULL).
#pragma once

#include <string>
#include <vector>

#include "engine/plan/aggregate_text.h"
#include "engine/sql/ast.h"
#include "engine/sql/value.h"

namespace tp {

// True when the select list holds an aggregate call. Throws PostgreSQL's 42803
// for a column beside one (there is no GROUP BY over a row source), named
// "qualifier.column" as PostgreSQL names it, and 0A000 for what is not built (an
// aggregate inside an expression, DISTINCT). ORDER BY keys are checked the same way
// (a position in the select list, or an aggregate: the one row needs no order).
bool row_source_aggregates(const std::vector<const sql::Expr*>& targets,
                           const std::vector<sql::OrderItem>& order_by,
                           const std::string& qualifier);

class RowSourceAggregator {
 public:
  explicit RowSourceAggregator(std::vector<const sql::Expr*> targets);
  // One input row: each aggregate's argument evaluated in `ec`.
  void add(EvalContext& ec);
  // The one output row (non-aggregate targets, which name no column, evaluated in `ec`).
  std::vector<Value> result(EvalContext& ec) const;

 private:
  std::vector<const sql::Expr*> targets_;
  std::vector<OutputAggregate> kinds_;  // per target; unused for the non-aggregates
  std::vector<scans::AggState> states_;
  std::vector<bool> typed_;  // the input's type is known (a first non-NULL value)
};

}  // namespace tp
