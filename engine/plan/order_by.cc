#include "engine/plan/order_by.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/plan/select_list.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"

namespace tp {
namespace {

// One ORDER BY item: a table column (>= 0) or a computed expression.
struct OrderKey {
  int column = -1;
  std::shared_ptr<TypedExpr> expr;
};

OrderKey bind_order_key(const RelationEntry& rel, const OrderTargets& t, const sql::Expr& e) {
  const auto output = [&](size_t i) {
    return t.columns[i] >= 0 ? OrderKey{t.columns[i], nullptr} : OrderKey{-1, t.exprs[i]};
  };
  if (e.kind == sql::ExprKind::kIntConst) {
    const int64_t k = e.ival;
    if (k < 1 || k > int64_t(t.columns.size()))
      throw Error("ORDER BY position " + std::to_string(k) + " is not in select list")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kInvalidColumnReference);
    return output(size_t(k - 1));
  }
  if (e.kind == sql::ExprKind::kColumnRef) {
    for (size_t i = 0; i < t.names.size() && i < t.columns.size(); ++i)
      if (t.names[i] == e.name) return output(i);
    return {bind_column(rel, e), nullptr};
  }
  // An expression: the select list's own when it prints the same (PostgreSQL matches
  // the target entry by equal()), else a column only the sort reads.
  std::shared_ptr<TypedExpr> x = bind_select_expr(rel, e);
  const std::string printed = deparse(*x);
  for (const auto& mine : t.exprs)
    if (mine && mine->type == x->type && deparse(*mine) == printed) return {-1, mine};
  return {-1, x};
}

}  // namespace

BoundOrder bind_order_by(const RelationEntry& rel, const sql::Select& s, const OrderTargets& t,
                         const std::vector<int>& fixed,
                         const std::vector<std::string>& fixed_exprs) {
  BoundOrder order;
  std::vector<int> seen = fixed;
  std::vector<std::string> seen_exprs;
  for (const std::string& e : fixed_exprs) seen_exprs.push_back("(" + e + ")");
  for (const sql::OrderItem& o : s.order_by) {
    if (t.aggregates)
      throw Error("ORDER BY is not supported with aggregates (the result is one row)")
          .at_position(o.expr->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    OrderKey key = bind_order_key(rel, t, *o.expr);
    std::string name;
    int col = key.column;
    if (key.expr) {
      name = "(" + deparse(*key.expr) + ")";
      // The select-list entry it is, else a resjunk column after them.
      size_t index = size_t(std::find(t.exprs.begin(), t.exprs.end(), key.expr) - t.exprs.begin());
      if (index == t.exprs.size()) {
        if (s.distinct && s.distinct_on.empty())
          throw Error("for SELECT DISTINCT, ORDER BY expressions must appear in select list")
              .at_position(o.expr->position)
              .with_sqlstate(sqlstate::kInvalidColumnReference);
        const size_t junk =
            size_t(std::find_if(order.resjunk.begin(), order.resjunk.end(),
                                [&](const auto& j) { return "(" + deparse(*j) + ")" == name; }) -
                   order.resjunk.begin());
        // The row carries it whether or not it is sorted by, as PostgreSQL's target list.
        if (junk == order.resjunk.size()) order.resjunk.push_back(key.expr);
        index = t.exprs.size() + junk;
      }
      col = computed_key(index);
      if (std::find(order.written.begin(), order.written.end(), col) == order.written.end())
        order.written.push_back(col);
      // Sorting by a constant, or by what WHERE fixes or an earlier key sorted, changes
      // nothing: PostgreSQL drops the pathkey.
      if (key.expr->is_const()) continue;
      if (std::find(seen_exprs.begin(), seen_exprs.end(), name) != seen_exprs.end()) continue;
      seen_exprs.push_back(name);
      order.computed_keys = true;
    } else {
      if (s.distinct && s.distinct_on.empty() &&
          std::find(t.columns.begin(), t.columns.end(), col) == t.columns.end())
        throw Error("for SELECT DISTINCT, ORDER BY expressions must appear in select list")
            .at_position(o.expr->position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
      if (std::find(order.written.begin(), order.written.end(), col) == order.written.end())
        order.written.push_back(col);
      if (std::find(seen.begin(), seen.end(), col) != seen.end()) continue;
      seen.push_back(col);
      name = sql::quote_identifier(rel.columns[size_t(col)].name);
      if (qualify_sort_keys()) {
        const std::string ref = s.from && !s.from->alias.empty() ? s.from->alias : rel.name;
        const std::string shown = subplan_display_name(ref);
        name = sql::quote_identifier(shown.empty() ? ref : shown) + "." + name;
      }
    }
    order.keys.push_back({col, o.descending});
    order.nulls_first.push_back(o.nulls_first.value_or(o.descending));
    const bool odd_nulls = o.nulls_first && *o.nulls_first != o.descending;
    if ((odd_nulls || key.expr) && order.index_orderable_keys == SIZE_MAX)
      order.index_orderable_keys = order.keys.size() - 1;
    order.text += (order.text.empty() ? "" : ", ") + name + (o.descending ? " DESC" : "") +
                  (odd_nulls ? (*o.nulls_first ? " NULLS FIRST" : " NULLS LAST") : "");
  }
  return order;
}

}  // namespace tp
