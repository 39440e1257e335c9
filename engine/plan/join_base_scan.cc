#include "engine/plan/join_base_scan.h"

#include <algorithm>

#include "engine/plan/equivalence.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"

namespace tp {

ScanQuery base_scan_query(const JoinBaseRel& r, int rel, const JoinQuery& q,
                          const std::vector<PathKey>& query_pathkeys) {
  ScanQuery sq;
  sq.rel = r.rel;
  std::vector<Clause> clauses;
  for (const sql::Expr* e : r.restrictions)
    for (Clause& c : restriction_clauses(find_duplicate_ors(normalize(bind_where(*r.rel, *e)))))
      clauses.push_back(std::move(c));
  EquivalenceResult classes = apply_equivalence_classes(std::move(clauses));
  sq.clauses = std::move(classes.clauses);
  // `column = $n` over an InitPlan's value: an index key too (Index Cond: (a = $0)).
  for (Clause& c : sq.clauses)
    if (std::optional<Clause> p = init_param_clause(c)) c = std::move(*p);
  sq.one_time_false = classes.contradiction;
  sq.class_start = classes.class_start;
  sq.proven_empty = std::any_of(sq.clauses.begin(), sq.clauses.end(), [](const Clause& c) {
    return c.kind == Clause::Kind::kBool && c.value.value_or(0) == 0;
  });
  sq.constant_columns = constant_columns(sq.clauses);
  for (uint32_t v : q.output_vars(Relids(1) << rel)) sq.scan_columns.push_back(q.vars[v].column);
  // right_merge_direction: a merge key is useful in the direction the ORDER BY (or the
  // grouping) wants its class anywhere in its keys, ascending when it names none.
  const auto merge_on = [&](uint32_t v) {
    const uint32_t key = q.key_of(v);
    const auto wanted = std::find_if(query_pathkeys.begin(), query_pathkeys.end(),
                                     [&](const PathKey& k) { return k.key == key; });
    const bool descending = wanted != query_pathkeys.end() && wanted->descending;
    (descending ? sq.merge_descending : sq.merge_columns).push_back(q.vars[v].column);
  };
  for (const JoinClass& c : q.classes)
    for (uint32_t v : c.members)
      if (q.vars[v].rel == rel) merge_on(v);
  for (const auto& [v, other] : q.outer_join_merge_pairs())
    if (q.vars[v].rel == rel) merge_on(v);
  // An index leading with the first ORDER BY (or grouping) key is useful for ordering
  // (pathkeys_useful_for_ordering): a Nested Loop over it may feed a LIMIT in order.
  if (!query_pathkeys.empty() && query_pathkeys[0].key < q.classes.size() + q.vars.size()) {
    const uint32_t key = query_pathkeys[0].key;
    const std::vector<uint32_t> one{key - uint32_t(q.classes.size())};
    for (uint32_t v : key < q.classes.size() ? q.classes[key].members : one)
      if (q.vars[v].rel == rel)
        (query_pathkeys[0].descending ? sq.merge_descending : sq.merge_columns)
            .push_back(q.vars[v].column);
  }
  // The ORDER BY's leading keys this table gives (a column of its class), each with
  // the NULLs where an index scan puts them (last ascending, first descending).
  if (!q.grouped)
    for (const JoinOrderItem& o : q.order) {
      if (o.expr->kind != TypedExpr::Kind::kColumn || o.nulls_first != o.descending) break;
      const uint32_t key = q.key_of(o.expr->slot);
      std::optional<int> column;
      for (uint32_t v = 0; v < q.vars.size() && !column; ++v)
        if (q.vars[v].rel == rel && q.key_of(v) == key) column = q.vars[v].column;
      if (!column) break;
      sq.join_order.push_back({*column, o.descending});
    }
  if (!r.alias.empty()) {
    sq.table_alias = r.alias;
    sq.alias = sql::quote_identifier(r.alias);
  }
  return sq;
}

void gate_on_false(ScanQuery& sq) {
  const auto is_false = [](const Clause& c) {
    return c.kind == Clause::Kind::kBool && c.value.value_or(0) == 0;
  };
  const auto f = std::find_if(sq.clauses.begin(), sq.clauses.end(), is_false);
  sq.one_time_null = !f->value.has_value();
  std::erase_if(sq.clauses, is_false);
  sq.proven_empty = false;
  sq.one_time_false = true;
}

}  // namespace tp
