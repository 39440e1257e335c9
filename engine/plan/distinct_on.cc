#include "engine/plan/distinct_on.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"

namespace tp {
namespace {

[[noreturn]] void not_supported(const std::string& what, int position) {
  throw Error("SELECT DISTINCT ON " + what + " is not supported yet")
      .at_position(position)
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

// A DISTINCT ON item's table column: a select-list position or name, or a column.
int bind_on_item(const RelationEntry& rel, const OrderTargets& t, const sql::Expr& e) {
  auto output = [&](size_t i) {
    if (t.columns[i] < 0) not_supported("over an expression", e.position);
    return t.columns[i];
  };
  if (e.kind == sql::ExprKind::kIntConst) {
    if (e.ival < 1 || e.ival > int64_t(t.columns.size()))
      throw Error("DISTINCT ON position " + std::to_string(e.ival) + " is not in select list")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kInvalidColumnReference);
    return output(size_t(e.ival - 1));
  }
  if (e.kind != sql::ExprKind::kColumnRef) not_supported("over an expression", e.position);
  for (size_t i = 0; i < t.names.size() && i < t.columns.size(); ++i)
    if (t.names[i] == e.name) return output(i);
  return bind_column(rel, e);
}

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

DistinctOn bind_distinct_on(const RelationEntry& rel, const sql::Select& s, const OrderTargets& t,
                            const std::vector<int>& fixed, BoundOrder& order) {
  if (t.aggregates) not_supported("with aggregates", s.distinct_on[0]->position);
  if (order.computed()) not_supported("with an ORDER BY expression", s.distinct_on[0]->position);
  std::vector<int> on;
  for (const auto& e : s.distinct_on) {
    const int c = bind_on_item(rel, t, *e);
    if (!contains(on, c)) on.push_back(c);
  }
  // ORDER BY's items among them first, in its order; none may follow one that is not.
  std::vector<int> clause;
  bool skipped = false;
  const int position = s.distinct_on[0]->position;
  auto mismatch = [&] {
    throw Error("SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
        .at_position(position)
        .with_sqlstate(sqlstate::kInvalidColumnReference);
  };
  for (int c : order.written) {
    if (!contains(on, c)) {
      skipped = true;
      continue;
    }
    if (skipped) mismatch();
    clause.push_back(c);
  }
  for (int c : on) {
    if (contains(clause, c)) continue;
    if (skipped) mismatch();
    clause.push_back(c);
    // Sorted by it too, ascending, after ORDER BY's keys.
    if (contains(fixed, c) || std::any_of(order.keys.begin(), order.keys.end(),
                                          [&](const auto& k) { return k.first == c; }))
      continue;
    order.keys.push_back({c, false});
    order.nulls_first.push_back(false);
    order.text +=
        (order.text.empty() ? "" : ", ") + sql::quote_identifier(rel.columns[size_t(c)].name);
  }
  DistinctOn d;
  d.clause = clause;
  for (int c : clause)
    if (!contains(fixed, c)) d.columns.push_back(c);
  return d;
}

}  // namespace tp
