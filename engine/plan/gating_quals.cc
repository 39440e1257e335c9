#include "engine/plan/gating_quals.h"

#include <optional>
#include <string>

#include "engine/plan/subplans.h"

namespace tp {

// Restrictions that read no column: an InitPlan's value (`EXISTS (...)` as $0), a
// statement parameter, or an equality an equivalence class made between two of its
// pseudo-constants (`CURRENT_DATE = '2020-01-05'::date`). PostgreSQL's pseudo-constant
// quals, a gating Result's One-Time Filter above the scan, estimated as selectivity 1.
void take_gating_quals(ScanQuery& sq) {
  std::vector<Clause> kept;
  for (Clause& c : sq.clauses) {
    std::vector<uint32_t> slots;
    if (c.kind == Clause::Kind::kExpr) expr_slots(*c.expr, slots);
    if (c.kind != Clause::Kind::kExpr || !slots.empty() || expr_is_volatile(*c.expr)) {
      std::optional<Clause> param = init_param_clause(c);
      kept.push_back(param ? std::move(*param) : std::move(c));
      continue;
    }
    sq.gating.push_back(*c.expr);
  }
  sq.clauses = std::move(kept);
}

// cost_qual_eval charges a pseudo-constant qual once, to the startup of a scan that
// costs the table's restrictions (a Seq or Bitmap Heap Scan's; an index scan's cost
// leaves pseudo-constants out): a statement parameter's or a constant expression's
// comparison (an InitPlan's value is charged with its InitPlan).
void charge_gating_quals(const CostSettings& cs, const std::vector<TypedExpr>& gating,
                         ChosenScan& scan) {
  const std::string name = scan.node->explain_name();
  if (name.find("Index Scan") != std::string::npos ||
      name.find("Index Only Scan") != std::string::npos)
    return;
  double once = 0;
  for (const TypedExpr& g : gating)
    if (!reads_plan_value(g)) once += expr_cost_units(g) * cs.cpu_operator_cost;
  scan.path.startup += once;
  scan.path.total += once;
  scan.node->estimate.startup_cost += once;
  scan.node->estimate.total_cost += once;
}

}  // namespace tp
