#include "engine/plan/subplan_correlated.h"

#include <algorithm>

#include "engine/plan/join_exprs.h"
#include "engine/plan/subplans.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"

namespace tp {

namespace {

struct ScopedOuterRefs {
  explicit ScopedOuterRefs(const OuterRefs* refs) : saved(current_outer_refs()) {
    current_outer_refs() = refs;
  }
  ~ScopedOuterRefs() { current_outer_refs() = saved; }
  const OuterRefs* saved;
};

struct ScopedParams {
  explicit ScopedParams(SubqueryParams* p) : saved(current_subquery_params()) {
    current_subquery_params() = p;
  }
  ~ScopedParams() { current_subquery_params() = saved; }
  SubqueryParams* saved;
};

}  // namespace

CorrelatedPlan plan_correlated(PlanContext& ctx, const sql::Select& sub,
                               const std::vector<OuterTable>& outer, uint32_t slot_base) {
  if (!sub.from || !sub.from->is_table())
    throw not_supported("a correlated subquery over a join", sub.from->position);
  const std::string sub_ref = sub.from->alias.empty() ? sub.from->name : sub.from->alias;
  CorrelatedPlan out;
  std::vector<const Column*> cols;
  OuterRefs refs;
  refs.outer_only = [&](const std::string& q) {
    return q != sub_ref && std::any_of(outer.begin(), outer.end(),
                                       [&](const OuterTable& t) { return t.refname == q; });
  };
  refs.resolve = [&](const sql::Expr& ref) -> std::optional<TypedExpr> {
    // The outer table the reference names, or the one table of the outer query with
    // a column of that name (more than one: PostgreSQL's 42702).
    const OuterTable* table = nullptr;
    const Column* col = nullptr;
    for (const OuterTable& t : outer) {
      if (!ref.qualifier.empty() && ref.qualifier != t.refname) continue;
      const auto c = std::find_if(t.rel->columns.begin(), t.rel->columns.end(),
                                  [&](const Column& x) { return x.name == ref.name; });
      if (c == t.rel->columns.end()) continue;
      if (table != nullptr)
        throw Error("column reference \"" + ref.name + "\" is ambiguous")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kAmbiguousColumn);
      table = &t;
      col = &*c;
    }
    if (table == nullptr) return std::nullopt;
    const std::pair<std::string, std::string> key{table->refname, col->name};
    auto at = std::find(out.outer_columns.begin(), out.outer_columns.end(), key);
    if (at == out.outer_columns.end()) {
      out.outer_columns.push_back(key);
      cols.push_back(col);
      at = out.outer_columns.end() - 1;
    }
    TypedExpr p;
    p.kind = TypedExpr::Kind::kParam;
    p.slot = slot_base + uint32_t(at - out.outer_columns.begin());
    p.type = col->type;
    p.typmod = col->typmod;
    p.name = table->shown_bare
                 ? sql::quote_identifier(col->name)
                 : sql::quote_identifier(table->refname) + "." + sql::quote_identifier(col->name);
    return p;
  };
  ScopedOuterRefs scope(&refs);
  {
    // A first plan finds the parameters (no index reads them yet: none exist).
    ScopedParams none(nullptr);
    plan_select(ctx, sub);
  }
  std::vector<TypeId> types;
  for (const Column* c : cols) types.push_back(c->type);
  SubqueryParams params;
  params.params = std::make_unique<scans::ExecParams>(types);
  params.eager.assign(types.size(), false);
  params.slot_base = slot_base;
  params.correlated = true;
  params.outer_values = types.size();
  ScopedParams with(&params);
  out.q = plan_select(ctx, sub);
  out.params = std::move(params.params);
  out.derived = std::move(params.derived);
  return out;
}

}  // namespace tp
