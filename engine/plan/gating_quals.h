// The restrictions of one table that read no column (PostgreSQL's pseudo-constant
// quals): taken out of the scan's restrictions into a gating Result's One-Time Filter,
// and charged to the scan's startup as cost_qual_eval charges them.
#pragma once

#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/scan_choice.h"

namespace tp {

// Moves sq.clauses' pseudo-constant quals into sq.gating; a clause comparing a column
// with an InitPlan's value becomes its parameterized form (init_param_clause).
void take_gating_quals(ScanQuery& sq);

// Adds the gating quals' one evaluation to the chosen scan's startup and total.
void charge_gating_quals(const CostSettings& cs, const std::vector<TypedExpr>& gating,
                         ChosenScan& scan);

}  // namespace tp
