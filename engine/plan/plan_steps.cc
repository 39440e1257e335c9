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
  std::vector<Clause> parts;
  if (s.where) parts.push_back(bind_where(rel, *s.where));
  for (const sql::Expr* e : extra) parts.push_back(bind_where(rel, *e));
  if (parts.size() == 1) {
    clauses = restriction_clauses(find_duplicate_ors(normalize(std::move(parts[0]))));
  } else if (!parts.empty()) {
    Clause all;
    all.kind = Clause::Kind::kAnd;
    all.args = std::move(parts);
    clauses = restriction_clauses(find_duplicate_ors(normalize(std::move(all))));
  }
  EquivalenceResult classes = apply_equivalence_classes(std::move(clauses));
  clauses = std::move(classes.clauses);
  contradiction = classes.contradiction;
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
