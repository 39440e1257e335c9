// HAVING's selectivity, as clauselist_selectivity estimates quals over a grouped row: no
// statistics describe an aggregate's values, so each comparison takes PostgreSQL's
// default (an inequality a third, an equality 0.005), and a lower and an upper bound on
// one expression that reads a column (a key, an aggregate of a column; not count(*),
// which belongs to no relation) are a range (0.005).
//
//   double s = having_selectivity(having, [&](const TypedExpr& e) { return reads_column(e); });
#pragma once

#include <functional>

#include "engine/core/typed_expr.h"

namespace tp {

double having_selectivity(const TypedExpr& having,
                          const std::function<bool(const TypedExpr&)>& reads_column);

}  // namespace tp
