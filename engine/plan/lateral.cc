#include "engine/plan/lateral.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/select_list.h"
#include "engine/plan/subplans.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/storage/table_stats.h"
#include "scans/lateral_scan.h"

namespace tp {

namespace {

// set_subquery_size_estimates: an output that is a column of the subquery's table has
// that column's width, another its type's.
int output_width(PlanContext& ctx, const sql::Select& sub, size_t i, const Column& col) {
  const sql::Expr& e = *sub.targets[i].expr;
  if (e.kind == sql::ExprKind::kColumnRef) {
    const RelationEntry& rel = find_table_item(ctx, *sub.from);
    for (size_t c = 0; c < rel.columns.size(); ++c)
      if (rel.columns[c].name == e.name) {
        const std::optional<TableStats> stats =
            rel.stats.empty() ? std::nullopt : std::optional(stats_from_catalog(rel.stats));
        return column_width(rel, c, stats ? &*stats : nullptr);
      }
  }
  return column_avg_width(col);
}

}  // namespace

std::shared_ptr<LateralSubquery> plan_lateral(PlanContext& ctx, const sql::FromItem& f,
                                              const RelationEntry& outer,
                                              const std::string& outer_refname) {
  const sql::Select& sub = *f.subquery;
  if (!sub.from || !sub.from->is_table())
    throw not_supported("a LATERAL subquery over a join or a subquery", f.position);
  if (!sub.with.empty()) throw not_supported("WITH inside a LATERAL subquery", f.position);
  auto out = std::make_shared<LateralSubquery>();
  out->plan = plan_correlated(ctx, sub, {{outer_refname, &outer}}, kCorrelationSlots);
  const PlannedQuery& q = out->plan.q;
  if (q.aggregate || q.output_columns.size() != q.column_names.size() ||
      q.output_slots.size() != q.column_names.size())
    throw not_supported("a LATERAL subquery with aggregates (a Subquery Scan over an Aggregate)",
                        f.position);
  if (std::any_of(sub.targets.begin(), sub.targets.end(),
                  [](const sql::Target& t) { return t.expr->kind == sql::ExprKind::kStar; }))
    throw not_supported("* in a LATERAL subquery's select list", f.position);
  out->entry.name = f.alias;
  for (size_t i = 0; i < q.column_names.size(); ++i) {
    Column c = q.output_columns[i];
    c.name = i < f.column_aliases.size() ? f.column_aliases[i] : q.column_names[i];
    out->widths.push_back(output_width(ctx, sub, i, c));
    const sql::Expr& e = *sub.targets[i].expr;
    const std::string table = sub.from->alias.empty() ? sub.from->name : sub.from->alias;
    const std::vector<Column>& own = find_table_item(ctx, *sub.from).columns;
    const bool column =
        std::any_of(own.begin(), own.end(), [&](const Column& x) { return x.name == e.name; });
    out->shown.push_back(e.kind == sql::ExprKind::kColumnRef && column &&
                                 (e.qualifier.empty() || e.qualifier == table)
                             ? sql::quote_identifier(table) + "." + sql::quote_identifier(e.name)
                             : "");
    out->entry.columns.push_back(std::move(c));
  }
  if (f.column_aliases.size() > q.column_names.size())
    throw Error("table \"" + f.alias + "\" has " + std::to_string(q.column_names.size()) +
                " columns available but " + std::to_string(f.column_aliases.size()) +
                " columns specified")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kInvalidColumnReference);
  for (const auto& [table, name] : out->plan.outer_columns)
    for (size_t c = 0; c < outer.columns.size(); ++c)
      if (outer.columns[c].name == name) out->outer_columns.push_back(int(c));
  if (out->outer_columns.empty())
    throw not_supported("a LATERAL subquery that reads no table before it (a Subquery Scan)",
                        f.position);
  out->prefix_table = sub.from->alias.empty() ? sub.from->name : sub.from->alias;
  for (const Column& c : find_table_item(ctx, *sub.from).columns)
    out->prefix_columns.push_back(c.name);
  const scans::PlanEstimate& e = q.root->estimate;
  out->cost = {e.startup_cost, e.total_cost, e.rows};
  return out;
}

std::unique_ptr<scans::ExecNode> lateral_scan(LateralSubquery& s, const scans::ExecParams* params,
                                              const std::vector<int>& columns) {
  if (!s.plan.q.root) throw Error("internal error: a LATERAL subquery's plan built twice");
  std::vector<uint32_t> slots;
  for (int c : columns) slots.push_back(s.plan.q.output_slots[size_t(c)]);
  return std::make_unique<scans::LateralScanNode>(
      std::move(s.plan.q.root), params, std::move(s.plan.params), std::move(slots),
      kCorrelationSlots, s.prefix_table, s.prefix_columns, std::move(s.plan.derived));
}

}  // namespace tp
