// btcostestimate's walk over the index clauses (PostgreSQL 15 selfuncs.c).
#include "engine/plan/btree_qual_summary.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/plan/pseudo_constant.h"
#include "engine/plan/typed_index_qual.h"

namespace tp {

std::optional<IndexQualShape> index_qual_shape(const Clause& clause, int column) {
  if (clause.kind == Clause::Kind::kExpr) {
    const std::optional<TypedIndexQual> q = typed_index_qual(clause);
    if (!q || q->column != column) return std::nullopt;
    if (q->null_test) return IndexQualShape{false, 1, !q->negated, !q->negated};
    return IndexQualShape{q->in_list, q->in_list ? q->elements : 1,
                          q->in_list || q->op == CmpOp::kEq, false};
  }
  // A numeric comparison is on the expression (col)::numeric, which no index holds.
  if (clause.column != column || clause.numeric) return std::nullopt;
  switch (clause.kind) {
    case Clause::Kind::kCompare:
      if (!clause.param_array.empty())
        return IndexQualShape{true, clause.array_elements, true, false};
      if (clause.op == CmpOp::kNe || !clause.value.has_value()) return std::nullopt;
      return IndexQualShape{false, 1, clause.op == CmpOp::kEq, false};
    case Clause::Kind::kIn:
      if (clause.negated) return std::nullopt;
      return IndexQualShape{true, clause.list.size(), true, false};
    case Clause::Kind::kIsNull:
      return IndexQualShape{false, 1, !clause.negated, !clause.negated};
    default:
      return std::nullopt;
  }
}

bool is_index_in_list(const Clause& clause) {
  if (clause.kind == Clause::Kind::kIn || !clause.param_array.empty()) return true;
  const std::optional<TypedIndexQual> q = typed_index_qual(clause);
  return q && q->in_list;
}

BtreeQuals summarize_btree_quals(const RelationStatsView& rel,
                                 const std::vector<int>& index_columns, bool unique,
                                 std::span<const Clause> index_clauses) {
  TP_ASSERT(!index_columns.empty());
  struct Indexed {
    int pos;
    IndexQualShape shape;
    const Clause* clause;
  };
  auto indexed = [&](const Clause& c) {
    for (size_t k = 0; k < index_columns.size(); ++k)
      if (const auto shape = index_qual_shape(c, index_columns[k]))
        return Indexed{static_cast<int>(k), *shape, &c};
    TP_ASSERT(false);
    return Indexed{-1, {}, &c};
  };
  // Index clauses come in key order, as PostgreSQL's IndexClause list does.
  std::vector<Indexed> ordered;
  for (const Clause& c : index_clauses) ordered.push_back(indexed(c));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Indexed& a, const Indexed& b) { return a.pos < b.pos; });

  BtreeQuals q;
  std::vector<Clause> all;
  std::vector<Clause> boundary;
  for (const Indexed& x : ordered) {
    all.push_back(*x.clause);
    if (x.shape.in_list && x.shape.list_size > 1)
      q.all_sa_scans *= static_cast<double>(x.shape.list_size);
  }
  q.operator_count = static_cast<int>(all.size());
  // index_other_operands_eval_cost: the value sides that are computed, not constant (a
  // comparison's pseudo-constant side, an IN list's computed elements).
  for (const Clause& c : all) {
    // A subquery's `column = value` over its parameters keeps its typed form: the value
    // side (a cast of an outer value) is computed once per scan.
    const bool param_expr = c.kind == Clause::Kind::kCompare && c.param && c.expr;
    if (c.kind != Clause::Kind::kExpr && !param_expr) continue;
    const TypedExpr& e = *c.expr;
    if (e.kind != TypedExpr::Kind::kCall && e.kind != TypedExpr::Kind::kAnyArray) continue;
    for (size_t i = e.kind == TypedExpr::Kind::kAnyArray ? 1 : 0; i < e.args.size(); ++i)
      if (!e.args[i].is_const() && is_pseudo_constant(e.args[i]))
        q.operand_cost_units += expr_cost_units(e.args[i]);
  }

  // Boundary clauses: while every key so far has an '=' (or IN, or IS NULL),
  // the next key's clauses still narrow the scanned range.
  int indexcol = 0;
  bool eq_here = false;
  bool found_saop = false;
  bool found_is_null = false;
  for (const Indexed& x : ordered) {
    if (x.pos != indexcol) {
      if (!eq_here) break;
      eq_here = false;
      ++indexcol;
      if (x.pos != indexcol) break;
    }
    if (x.shape.in_list) {
      found_saop = true;
      if (x.shape.list_size > 1) q.sa_scans *= static_cast<double>(x.shape.list_size);
    }
    found_is_null = found_is_null || x.shape.is_null;
    eq_here = eq_here || x.shape.equality;
    boundary.push_back(*x.clause);
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
