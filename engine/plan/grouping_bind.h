// GROUP BY and HAVING bound over one table (or a join's vars: GroupingColumns) as
// PostgreSQL 15's parser and planner see them. The grouping keys (columns, expressions, select-list
// ordinals and aliases) are expressions over the table's columns; everything above the grouping
// (the select list, HAVING, ORDER BY) becomes an expression over the grouped row: the keys' values,
// then the aggregates' results ("upper slots"). A column used outside an aggregate that is no key,
// or a key that is no part of an expression PostgreSQL would match, is its 42803 "must appear in
// the GROUP BY clause".
//
//   GroupedSelect g = bind_grouped_select(rel, select);
//   g.keys[i].expr      // over table columns (a kColumn's slot is its column number)
//   g.outputs[j]        // over upper slots: key i is slot i, aggregate k slot keys + k
//
// The keys come in PostgreSQL's groupClause order: when ORDER BY starts with grouping
// keys (with the same direction), they move first (preprocess_groupclause), so one
// sort serves both; a key ORDER BY names takes ORDER BY's direction and NULLS order.
// HAVING's conjuncts without aggregates (or volatile calls) move to WHERE, as
// subquery_planner moves them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/aggregate_bind.h"
#include "engine/sql/ast.h"
#include "engine/sql/expr_bind.h"
#include "engine/storage/catalog.h"

namespace tp {

struct GroupKey {
  std::shared_ptr<TypedExpr> expr;  // over table columns
  int column = -1;                  // the table column when the key is one, else -1
  std::string text;                 // as EXPLAIN prints it: "b", "(b + 1)"
  bool descending = false;
  bool nulls_first = false;
};

// An ORDER BY key over the grouped row.
struct UpperSortKey {
  std::shared_ptr<TypedExpr> expr;  // over upper slots
  int group_key = -1;               // the grouping key it is, or -1
  bool descending = false;
  bool nulls_first = false;
  std::string text;  // "b", "(count(*)) DESC"
};

struct GroupedSelect {
  std::vector<GroupKey> keys;
  std::vector<BoundAgg> aggs;                       // each distinct aggregate call once
  std::vector<std::shared_ptr<TypedExpr>> outputs;  // the select list, over upper slots
  std::vector<std::string> names;
  std::shared_ptr<TypedExpr> having;              // HAVING's conjuncts that stay, over upper slots
  std::vector<const sql::Expr*> having_to_where;  // HAVING's conjuncts that move
  std::vector<UpperSortKey> order;                // ORDER BY, as written
  // The table columns each entry of the final target list reads outside its grouping
  // keys (pull_var_clause over the select list, the resjunk entries and HAVING), in
  // that order, for the scan's target.
  std::vector<int> input_vars;
  // PostgreSQL's final target list (the select list, ORDER BY's resjunk entries, the
  // keys not listed), for its width: each entry's table column when it is a plain one
  // (-1: else), and its type.
  struct TargetEntry {
    int column = -1;
    TypeId type = TypeId::kInt4;
    int32_t typmod = kNoTypmod;
  };
  std::vector<TargetEntry> target;
  // Its cost_qual_eval per grouped row (aggregates cost nothing there; a key that is
  // an expression is counted again, as PostgreSQL counts it).
  double target_cost_units = 0;
  size_t upper_width() const { return keys.size() + aggs.size(); }
};

// Where the grouped query's column references resolve: one table's columns, or the vars
// of a join (engine/plan/join_query.h). A key's `column`, an aggregate's `column` and
// `input_vars` then hold the ids `lookup` gives.
struct GroupingColumns {
  ColumnLookup lookup;  // slot: the column's id; printed: as EXPLAIN names it
  // Whether some table has a column of this bare name (GROUP BY prefers it to an alias).
  std::function<bool(const std::string&)> has_name;
  // A column as the grouping error names it ("o.cust").
  std::function<std::string(uint32_t)> error_name;
  // The column references `*` (or `t.*`) stands for, each with its output name.
  std::function<std::vector<std::pair<sql::ExprPtr, std::string>>(const sql::Expr& star)> star;
};

GroupedSelect bind_grouped_select(const RelationEntry& rel, const sql::Select& s);
GroupedSelect bind_grouped_select(const GroupingColumns& columns, const sql::Select& s);

}  // namespace tp
