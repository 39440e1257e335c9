// A LATERAL subquery PostgreSQL plans on its own (not is_simple_subquery: ORDER BY,
// LIMIT, DISTINCT, GROUP BY), as set_subquery_pathlist plans it:
//
//   SELECT a.id, s.y FROM ja a, LATERAL (SELECT b.y FROM jb b WHERE b.id = a.x
//                                        ORDER BY b.y LIMIT 2) s
//
//   Nested Loop
//     ->  Seq Scan on ja a
//     ->  Memoize                        Cache Key: a.x (binary: a LATERAL reference)
//           ->  Limit                    the subquery's plan; the Subquery Scan above
//                 ->  Sort               it is trivial, and setrefs drops it
//                       ->  Index Scan using jb_id on jb b
//                             Index Cond: (id = a.x)
//
// The subquery is planned once with the outer table's columns as parameters (the
// correlated SubPlan's planning, engine/plan/subplan_correlated.h); the join search
// takes it as a base relation whose one path is parameterized by that table
// (lateral_relids), so only a Nested Loop with the table on its outer side joins it.
// The path costs cost_subqueryscan's: the plan's, and a cpu_tuple_cost per row. Its
// rows are the plan's, its columns' widths the subquery's table's where an output is
// one of its columns (set_subquery_size_estimates).
//
// One outer table, one table inside, a plain select list: a subquery over a join,
// one reading two relations before it, or one with aggregates is refused by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan/cost_model.h"
#include "engine/plan/subplan_correlated.h"
#include "engine/storage/catalog.h"
#include "scans/exec_node.h"

namespace tp {

struct LateralSubquery {
  CorrelatedPlan plan;
  RelationEntry entry;             // its output columns, as the join binder reads a table's
  std::vector<int> widths;         // each output column's width
  std::vector<std::string> shown;  // as EXPLAIN prints each ("o.id"; "": its own name)
  std::vector<int> outer_columns;  // the outer table's columns, in parameter order
  PathCost cost;                   // the subquery's plan
  // Its table's name and columns, which EXPLAIN qualifies above its scan (the query's
  // range table holds more than one entry).
  std::string prefix_table;
  std::vector<std::string> prefix_columns;
};

// `f` (a LATERAL subquery in FROM) planned with `outer`'s columns as parameters.
std::shared_ptr<LateralSubquery> plan_lateral(PlanContext& ctx, const sql::FromItem& f,
                                              const RelationEntry& outer,
                                              const std::string& outer_refname);

// The subquery's plan as a Nested Loop's inner side over `params` (its outer columns,
// in parameter order), returning its output `columns` in that order. Once only: the
// plan's nodes move into it.
std::unique_ptr<scans::ExecNode> lateral_scan(LateralSubquery& s, const scans::ExecParams* params,
                                              const std::vector<int>& columns);

}  // namespace tp
