#include "engine/plan/select_list.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"
#include "scans/project.h"

namespace tp {
namespace {

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

}  // namespace

const RelationEntry& find_table_item(PlanContext& ctx, const sql::FromItem& f) {
  // Tables live in schema public; pg_catalog holds only the system views.
  const RelationEntry* found = f.schema == "pg_catalog" ? nullptr : ctx.catalog.find(f.name);
  if (!found) {
    // A system view (engine/session/system_views.h) in a join or a subquery lands here.
    const bool view_like = f.schema != "public" && f.name.rfind("pg_", 0) == 0;
    throw Error(
        "relation " + quoted((f.schema.empty() ? "" : f.schema + ".") + f.name) + " does not exist",
        "",
        view_like ? "System views (pg_class, pg_stat_activity ...) are read only alone in "
                    "a SELECT: joins and subqueries over them are not supported yet."
                  : "")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kUndefinedTable);
  }
  if (!found->is_table())
    throw Error("cannot read index " + quoted(found->name) + " as a table")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kWrongObjectType);
  return *found;
}

const RelationEntry& find_table(PlanContext& ctx, const sql::Select& s) {
  const RelationEntry& found = find_table_item(ctx, *s.from);
  sql::check_column_qualifiers(s);
  return found;
}

std::shared_ptr<TypedExpr> bind_select_expr(const RelationEntry& rel, const sql::Expr& e) {
  const ColumnLookup lookup = [&rel](const sql::Expr& ref) {
    const int c = bind_column(rel, ref);
    const Column& col = rel.columns[size_t(c)];
    return BoundColumnRef{uint32_t(c), col.type, col.typmod, sql::quote_identifier(col.name)};
  };
  return std::make_shared<TypedExpr>(finish_output(bind_expr(e, lookup)));
}

std::vector<int> expr_columns(const TypedExpr& e) {
  std::vector<uint32_t> slots;
  expr_slots(e, slots);
  return {slots.begin(), slots.end()};
}

void move_to_slots(TypedExpr& e, const std::function<uint32_t(int)>& slot_of) {
  check_stack_depth();
  if (e.kind == TypedExpr::Kind::kColumn) e.slot = slot_of(int(e.slot));
  for (TypedExpr& a : e.args) move_to_slots(a, slot_of);
}

void place_computed_columns(std::vector<std::shared_ptr<TypedExpr>>& exprs,
                            const std::function<uint32_t(int)>& slot_of,
                            const std::vector<int>& scan_columns,
                            std::vector<uint32_t>& output_slots, ScanQuery& sq) {
  sq.width_columns = scan_columns.size();
  for (auto& e : exprs)
    if (e) move_to_slots(*e, slot_of);
  auto next = uint32_t(scan_columns.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (!exprs[i]) continue;
    output_slots[i] = next++;
    sq.computed_width += type_avg_width(exprs[i]->type, exprs[i]->typmod);
  }
}

double select_list_cost(const CostSettings& cs,
                        const std::vector<std::shared_ptr<TypedExpr>>& exprs) {
  double units = 0, startup = 0, per_call = 0;
  for (const auto& e : exprs)
    if (e) {
      units += expr_cost_units(*e);
      subplan_costs(*e, startup, per_call);  // a SubPlan's run per row
    }
  return units * cs.cpu_operator_cost + per_call;
}

std::unique_ptr<scans::ExecNode> project_select_list(std::unique_ptr<scans::ExecNode> node,
                                                     std::vector<std::shared_ptr<TypedExpr>> exprs,
                                                     const CostSettings& cs, PathCost& path,
                                                     int width, bool costed) {
  if (!costed) path.total += select_list_cost(cs, exprs) * path.rows;
  node->estimate.total_cost = path.total;
  node->estimate.width = width;
  std::vector<std::shared_ptr<const TypedExpr>> computed;
  for (auto& e : exprs)
    if (e) computed.push_back(std::move(e));
  auto p = std::make_unique<scans::ProjectNode>(std::move(node), std::move(computed));
  p->estimate = {path.startup, path.total, path.rows, width};
  return p;
}

}  // namespace tp
