// The branches of a UNION (set_operations.h), each planned on its own: the tables
// renamed as EXPLAIN names them across the whole statement (`jb jb_1`), each output
// column's type as the union's type resolution reads it (an untyped NULL or string
// literal is "unknown"), whether flatten_simple_union_all could pull it up into the
// append relation, and how its columns print in the keys of the nodes above the union.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan/planner.h"
#include "scans/append.h"

namespace tp {

struct SetOpColumn {
  std::string name;
  TypeId type = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  bool unknown = false;  // an untyped literal (NULL, 'abc'): typed by the other branches
  bool null_literal = false;
  int position = 0;  // where the select-list entry starts (type errors point there)
  // As EXPLAIN prints the column above the union when this branch is the first one
  // (bare names are qualified with `prefix.table` there).
  std::string key_text;
};

struct SetOpLeaf {
  const sql::Select* select = nullptr;
  std::shared_ptr<sql::Select> renamed;  // the copy planned when its table was renamed
  int number = 0;                        // PostgreSQL's "*SELECT* n"
  PlannedQuery plan;
  std::vector<SetOpColumn> columns;
  // is_simple_subquery and is_safe_append_member: one table, no WHERE, no grouping,
  // DISTINCT, ORDER BY, LIMIT: an append relation's member without a Subquery Scan.
  bool simple = false;
  bool join = false;           // its FROM joins tables (names print qualified)
  scans::BranchPrefix prefix;  // a single table's name and columns
  int first_position = 0;      // its first select-list entry
};

// A copy of a single-table branch (as planned, renamed) ordered by its column `column`
// in `order`'s direction: planned with enable_sort off, its plan is the cheapest path
// already in that order, if the table has one.
std::shared_ptr<sql::Select> ordered_leaf(const SetOpLeaf& leaf, size_t column,
                                          const sql::OrderItem& order);

// Plans the branches of `top`'s set operation tree, left to right.
std::vector<SetOpLeaf> plan_set_operation_leaves(PlanContext& ctx, const sql::Select& top);

}  // namespace tp
