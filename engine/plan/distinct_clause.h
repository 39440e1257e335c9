// SELECT DISTINCT's clause as PostgreSQL's parser and planner see it: the clause's order
// (ORDER BY's columns first, then the rest of the select list, one entry per item) and its
// pathkeys (ORDER BY's keys, then the other columns ascending; columns WHERE fixes and
// repeated ones dropped); and DISTINCT over the one row of a plain Aggregate.
//
//   DistinctClause d = bind_distinct_clause(rel, columns, order_keys, text, written, fixed);
//   // d.keys: the wanted order; d.group: the HashAggregate's Group Key
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/distinct.h"
#include "engine/plan/plan_context.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"
#include "scans/exec_node.h"
#include "scans/init_plan_result.h"

namespace tp {

struct DistinctClause {
  // A computed select-list entry i stands as computed_key(i) (engine/plan/order_by.h).
  std::vector<std::pair<int, bool>> keys;         // pathkeys: table column, descending
  std::string key_text;                           // "b DESC, c": the Sort Key under a Unique
  std::vector<int> group;                         // a table column per select-list entry
  std::string group_text;                         // "c, b": the Group Key
  std::vector<std::shared_ptr<TypedExpr>> exprs;  // the computed entries' expressions, once
  // What the groups are estimated over (estimate_num_groups): the columns each computed
  // entry reads (it pulls an expression's Vars), and the computed entries of type
  // boolean (two groups each); the plain entries are `group`.
  std::vector<int> estimate_vars;
  int boolean_exprs = 0;
  bool computed() const { return !exprs.empty(); }
};

// `columns`: the select list's table columns (-1: computed, its expression in `exprs`,
// its column references scan slots: `slot_columns` gives each slot's table column);
// `order_keys` / `order_text`: ORDER BY's pathkeys and Sort Key text; `order_columns`:
// every ORDER BY column once (fixed ones too); `fixed`: the columns WHERE fixes to a
// constant.
DistinctClause bind_distinct_clause(const RelationEntry& rel, const std::vector<int>& columns,
                                    const std::vector<std::shared_ptr<TypedExpr>>& exprs,
                                    const std::vector<int>& slot_columns,
                                    const std::vector<std::pair<int, bool>>& order_keys,
                                    const std::string& order_text,
                                    const std::vector<int>& order_columns,
                                    const std::vector<int>& fixed);

// DistinctQuery's LIMIT, OFFSET and enable_* fields for `s`; `limit_tuples` is LIMIT +
// OFFSET (nullopt: no LIMIT).
DistinctQuery distinct_limits(const PlannerSettings& settings, const sql::Select& s,
                              std::optional<int64_t> limit_tuples);

// A select-list expression over aggregates as PostgreSQL deparses it in a Sort or Group
// Key: "count(*)", "count(DISTINCT b)", "(max(c) + 1)", "(- count(1))"; with `params`
// (the min/max InitPlans), aggregate number k is "$" + params[k], k counting the
// aggregates in the select list's order from `*next`.
std::string deparse_aggregate_expr(const sql::Expr& e, const std::vector<size_t>* params = nullptr,
                                   size_t* next = nullptr);

// SELECT DISTINCT over the one row of a plain Aggregate or of the min/max InitPlans'
// Result (`aggregate`, costing `path`): PostgreSQL's Unique over a Sort (or
// HashAggregate) of the output expressions, each returning that row as it is; `path`
// becomes the new top's. `init_plans` is set to that Result, if it is one: PostgreSQL
// shows its InitPlans at the plan's top (ExecNode::shown_init_plans).
std::unique_ptr<scans::ExecNode> distinct_over_aggregate(const PlannerSettings& settings,
                                                         const sql::Select& s,
                                                         std::optional<int64_t> limit_tuples,
                                                         std::unique_ptr<scans::ExecNode> aggregate,
                                                         PathCost& path,
                                                         scans::InitPlanResultNode*& init_plans);

}  // namespace tp
