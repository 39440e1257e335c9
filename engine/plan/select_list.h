// A select list's computed columns over one table (`a + 1`, `t || 'x'`, `CASE ...`):
// bound with their types over the table's columns, then moved onto the scan's slots, and
// projected above the scan (scans/project.h) at PostgreSQL's cost: the target list's
// operators once per scanned row on the scan's own cost (create_projection_path over a
// projection-capable path), and each expression's type width in the row width.
//
//   std::shared_ptr<TypedExpr> e = bind_select_expr(rel, *target.expr);
//   move_to_slots(*e, [&](int column) { return slots.slot_of(column); });
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/scan_choice.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"
#include "scans/exec_node.h"

namespace tp {

// The table FROM names (42P01 if none; an index is 42809).
const RelationEntry& find_table(PlanContext& ctx, const sql::Select& s);
// The table one FROM item names, with the same errors.
const RelationEntry& find_table_item(PlanContext& ctx, const sql::FromItem& f);

// `e` over `rel`'s columns (a column's slot is its table column number until moved).
std::shared_ptr<TypedExpr> bind_select_expr(const RelationEntry& rel, const sql::Expr& e);

// The table columns `e` reads.
std::vector<int> expr_columns(const TypedExpr& e);

// Rewrites each column reference's slot: table column c becomes slot_of(c).
void move_to_slots(TypedExpr& e, const std::function<uint32_t(int)>& slot_of);

// Moves the computed columns (null entries: table columns) onto the scan's slots:
// `slot_of` gives a table column's slot, adding it to `scan_columns` when the scan did not
// read it yet; each computed value's output slot follows the scan's slots. `sq` learns
// which scan columns its width counts (those the select list and sort keys name) and the
// computed columns' widths.
void place_computed_columns(std::vector<std::shared_ptr<TypedExpr>>& exprs,
                            const std::function<uint32_t(int)>& slot_of,
                            const std::vector<int>& scan_columns,
                            std::vector<uint32_t>& output_slots, ScanQuery& sq);

// The per-row cost of the computed columns (cost_qual_eval of the target list).
double select_list_cost(const CostSettings& cs,
                        const std::vector<std::shared_ptr<TypedExpr>>& exprs);

// Adds the computed columns above `node` (whose rows hold `width` slots): their values
// follow the node's slots. The node's estimate and `path` take the target list's cost
// for `path.rows` rows and `width` bytes for the row (`costed`: `path` holds that cost
// already, as a DISTINCT's input paths do).
std::unique_ptr<scans::ExecNode> project_select_list(std::unique_ptr<scans::ExecNode> node,
                                                     std::vector<std::shared_ptr<TypedExpr>> exprs,
                                                     const CostSettings& cs, PathCost& path,
                                                     int width, bool costed = false);

}  // namespace tp
