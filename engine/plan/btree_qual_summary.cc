// btcostestimate's walk over the index clauses (PostgreSQL 15 selfuncs.c).
#include "engine/plan/btree_qual_summary.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp {

bool is_btree_indexable(const Clause& clause, int column) {
  // A numeric comparison is on the expression (col)::numeric, which no index holds.
  if (clause.column != column || clause.numeric) return false;
  switch (clause.kind) {
    case Clause::Kind::kCompare:
      return clause.op != CmpOp::kNe && clause.value.has_value();
    case Clause::Kind::kIn:
      return !clause.negated;
    case Clause::Kind::kIsNull:
      return true;
    default:
      return false;
  }
}

BtreeQuals summarize_btree_quals(const RelationStatsView& rel,
                                 const std::vector<int>& index_columns, bool unique,
                                 std::span<const Clause> index_clauses) {
  TP_ASSERT(!index_columns.empty());
  auto key_position = [&](const Clause& c) {
    for (size_t k = 0; k < index_columns.size(); ++k) {
      if (is_btree_indexable(c, index_columns[k])) return static_cast<int>(k);
    }
    TP_ASSERT(false);
    return -1;
  };
  // Index clauses come in key order, as PostgreSQL's IndexClause list does.
  std::vector<std::pair<int, const Clause*>> ordered;
  for (const Clause& c : index_clauses) ordered.push_back({key_position(c), &c});
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  BtreeQuals q;
  std::vector<Clause> all;
  std::vector<Clause> boundary;
  for (const auto& [pos, c] : ordered) {
    all.push_back(*c);
    if (c->kind == Clause::Kind::kIn && c->list.size() > 1) {
      q.all_sa_scans *= static_cast<double>(c->list.size());
    }
  }
  q.operator_count = static_cast<int>(all.size());

  // Boundary clauses: while every key so far has an '=' (or IN, or IS NULL),
  // the next key's clauses still narrow the scanned range.
  int indexcol = 0;
  bool eq_here = false;
  bool found_saop = false;
  bool found_is_null = false;
  for (const auto& [pos, c] : ordered) {
    if (pos != indexcol) {
      if (!eq_here) break;
      eq_here = false;
      ++indexcol;
      if (pos != indexcol) break;
    }
    if (c->kind == Clause::Kind::kIn) {
      found_saop = true;
      if (c->list.size() > 1) q.sa_scans *= static_cast<double>(c->list.size());
      eq_here = true;
    } else if (c->kind == Clause::Kind::kIsNull) {
      if (!c->negated) {
        found_is_null = true;
        eq_here = true;
      }
    } else if (c->op == CmpOp::kEq) {
      eq_here = true;
    }
    boundary.push_back(*c);
  }
  q.unique_match = unique && indexcol == static_cast<int>(index_columns.size()) - 1 && eq_here &&
                   !found_saop && !found_is_null;
  q.index_selectivity = all.empty() ? 1.0 : clauselist_selectivity(rel, all);
  q.boundary_selectivity = boundary.empty() ? 1.0 : clauselist_selectivity(rel, boundary);

  const ColumnStatsView& lead = rel.columns[index_columns[0]];
  if (lead.stats != nullptr && lead.stats->valid && lead.stats->has_correlation) {
    q.leading_correlation = lead.stats->correlation;
  }
  return q;
}

}  // namespace tp
