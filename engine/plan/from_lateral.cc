#include "engine/plan/from_lateral.h"

#include <algorithm>
#include <functional>

#include "engine/core/error.h"
#include "engine/plan/join_exprs.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/parser.h"

namespace tp::from_subqueries {

namespace {

void each_expr(const sql::Select& q, const std::function<void(const sql::Expr&)>& f) {
  std::function<void(const sql::Expr&)> walk = [&](const sql::Expr& e) {
    f(e);
    for (const sql::ExprPtr& a : e.args) walk(*a);
  };
  for (const sql::Target& t : q.targets) walk(*t.expr);
  if (q.where) walk(*q.where);
  for (const sql::ExprPtr& g : q.group_by) walk(*g);
  if (q.having) walk(*q.having);
  for (const sql::OrderItem& o : q.order_by) walk(*o.expr);
  for (const sql::ExprPtr& d : q.distinct_on) walk(*d);
}

// The item before the subquery that it reads: named by a qualifier, or the only one.
size_t outer_item(const sql::FromItem& f, const std::vector<Item>& items,
                  const std::vector<NsCol>& visible, const std::vector<size_t>& not_lateral) {
  const sql::Select& q = *f.subquery;
  const std::string own = q.from && q.from->is_table()
                              ? (q.from->alias.empty() ? q.from->name : q.from->alias)
                              : std::string();
  std::vector<size_t> seen, read;
  for (const NsCol& c : visible)
    if (std::find(seen.begin(), seen.end(), c.item) == seen.end()) seen.push_back(c.item);
  each_expr(q, [&](const sql::Expr& e) {
    if (e.kind != sql::ExprKind::kColumnRef || e.qualifier.empty() || e.qualifier == own) return;
    for (size_t i : seen) {
      if (items[i].name != e.qualifier) continue;
      if (std::find(not_lateral.begin(), not_lateral.end(), i) != not_lateral.end())
        throw Error("invalid reference to FROM-clause entry for table " + quoted(e.qualifier),
                    "The combining JOIN type must be INNER or LEFT for a LATERAL reference.", "")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
      if (std::find(read.begin(), read.end(), i) == read.end()) read.push_back(i);
    }
  });
  if (read.empty() && seen.size() == 1) read = seen;
  if (read.size() != 1)
    throw not_supported(read.empty() ? "a LATERAL subquery planned on its own that names no "
                                       "table before it"
                                     : "a LATERAL subquery reading two relations before it",
                        f.position);
  return read[0];
}

}  // namespace

void lateral_where(const sql::Expr* where, const Scope& all, const Scope* lateral,
                   sql::ExprPtr& quals, std::vector<Postponed>& postponed, size_t level) {
  std::vector<const sql::Expr*> conjuncts;
  split_and(where, conjuncts);
  for (const sql::Expr* w : conjuncts) {
    if (lateral) lateral->touched->clear();
    sql::ExprPtr e = rewrite(*w, all);
    if (lateral && !lateral->touched->empty()) {
      const size_t first = *std::min_element(lateral->touched->begin(), lateral->touched->end());
      postponed.push_back({std::move(e), first, level});
    } else {
      quals = and_of(std::move(quals), std::move(e));
    }
  }
  if (lateral) lateral->touched->clear();
}

sql::ExprPtr take_postponed(std::vector<Postponed>& postponed, size_t level, size_t begin) {
  sql::ExprPtr out;
  for (auto it = postponed.begin(); it != postponed.end();)
    if (it->level == level && it->first_item >= begin) {
      out = and_of(std::move(out), std::move(it->qual));
      it = postponed.erase(it);
    } else {
      ++it;
    }
  return out;
}

bool planned_alone(const sql::Select& q) {
  return !q.group_by.empty() || q.having || q.distinct || !q.order_by.empty() || q.limit ||
         q.offset || std::any_of(q.targets.begin(), q.targets.end(), [](const sql::Target& t) {
           return calls_aggregate(*t.expr) || calls_volatile(*t.expr);
         });
}

sql::FromItem lateral_alone(const sql::FromItem& f, Item& item, const std::vector<Item>& items,
                            const std::vector<NsCol>& visible,
                            const std::vector<size_t>& not_lateral,
                            const std::vector<std::string>& leaves,
                            std::vector<sql::ExprPtr>& pool) {
  const sql::Select& q = *f.subquery;
  if (!q.with.empty() || !q.from || !q.from->is_table() || q.from->is_function)
    throw not_supported("a LATERAL subquery over a join, a subquery or a function", f.position);
  const std::string own = q.from->alias.empty() ? q.from->name : q.from->alias;
  if (std::find(leaves.begin(), leaves.end(), own) != leaves.end())
    throw not_supported("a LATERAL subquery's table named as one outside it", f.position);
  const Item& outer = items[outer_item(f, items, visible, not_lateral)];
  const sql::Expr* first = outer.exprs.empty() ? nullptr : outer.exprs[0];
  if (outer.subquery || first == nullptr || first->kind != sql::ExprKind::kColumnRef ||
      first->qualifier.empty() || first->qualifier[0] != kLeafMark)
    throw not_supported("a LATERAL subquery reading a subquery before it", f.position);
  item.name = f.alias;
  for (const sql::Target& t : q.targets) {
    if (t.expr->kind == sql::ExprKind::kStar)
      throw not_supported("* in a LATERAL subquery's select list", f.position);
    item.columns.push_back(t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias);
  }
  alias_columns(item, f.column_aliases);
  for (const std::string& c : item.columns) {
    auto ref = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, f.position);
    ref->qualifier = f.alias;
    ref->name = c;
    item.exprs.push_back(ref.get());
    pool.push_back(std::move(ref));
  }
  sql::FromItem out;
  out.position = f.position;
  out.subquery = f.subquery;
  out.lateral = true;
  out.alias = f.alias;
  out.column_aliases = f.column_aliases;
  out.lateral_outer = first->qualifier;
  return out;
}

}  // namespace tp::from_subqueries
