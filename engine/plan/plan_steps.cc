#include "engine/plan/plan_steps.h"

#include <algorithm>
#include <limits>

#include "engine/plan/equivalence.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/where_clause.h"
#include "scans/sort_limit_agg.h"

namespace tp {

std::vector<Clause> restrictions(const RelationEntry& rel, const sql::Select& s,
                                 const std::vector<const sql::Expr*>& extra, bool& contradiction,
                                 size_t& class_start) {
  std::vector<Clause> clauses;
  if (s.where)
    clauses = restriction_clauses(find_duplicate_ors(normalize(bind_where(rel, *s.where))));
  // Moved conjuncts join the list as it is: a WHERE folded to FALSE (or NULL) stays
  // beside them as a gating qual (the relation is empty only when that is its one
  // restriction).
  bool gated = false;
  for (const sql::Expr* e : extra) {
    if (!gated && clauses.size() == 1 && clauses[0].kind == Clause::Kind::kBool &&
        clauses[0].value.value_or(0) == 0) {
      gated = true;
      clauses.clear();
    }
    for (Clause& c : restriction_clauses(find_duplicate_ors(normalize(bind_where(rel, *e)))))
      clauses.push_back(std::move(c));
  }
  EquivalenceResult classes = apply_equivalence_classes(std::move(clauses));
  clauses = std::move(classes.clauses);
  contradiction = classes.contradiction || gated;
  class_start = classes.class_start;
  return clauses;
}

std::optional<int64_t> limit_tuples(const sql::Select& s) {
  if (!s.limit) return std::nullopt;
  const int64_t count = std::max<int64_t>(*s.limit, 1);  // LIMIT 0 is planned as 1 row
  const int64_t offset = s.offset.value_or(0);
  return offset > std::numeric_limits<int64_t>::max() - count ? std::numeric_limits<int64_t>::max()
                                                              : count + offset;
}

void add_limit(std::optional<int64_t> count, int64_t offset, PlanTop& top) {
  PathCost limited = cost_limit(top.path, double(offset), count ? double(*count) : -1);
  int width = top.node->estimate.width;
  auto limit = std::make_unique<scans::LimitNode>(std::move(top.node), count.value_or(-1), offset);
  limit->estimate = {limited.startup, limited.total, limited.rows, width};
  top = {std::move(limit), limited};
}

}  // namespace tp
