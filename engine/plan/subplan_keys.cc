// Index keys over a subquery's parameters: an InitPlan's value (`Index Cond: (k = $0)`)
// or a correlated subquery's outer values (`Index Cond: (n = (t.k)::numeric)`), the
// declarations in subplans.h.
#include <algorithm>

#include "engine/core/error.h"
#include "engine/plan/param_paths.h"
#include "engine/plan/subplans.h"
#include "engine/sql/expr_ops.h"

namespace tp {

const scans::ExecParams* init_params_for_keys(
    const std::vector<scans::IndexScanParams::RuntimeKey>& keys) {
  SubqueryParams* p = current_subquery_params();
  if (p == nullptr || !p->params)
    throw Error("an index key reads a parameter no InitPlan sets")
        .with_sqlstate(sqlstate::kInternalError);
  for (const scans::IndexScanParams::RuntimeKey& k : keys) {
    p->eager.at(k.param) = true;
    for (size_t a : k.array) p->eager.at(a) = true;
  }
  return p->params.get();
}

namespace {

// Whether `e` reads nothing but the outer values of `sp` (no column of its own table, no
// InitPlan, no other subquery's parameter) and gives one value per outer row.
bool reads_only_outer_values(const TypedExpr& e, const SubqueryParams& sp) {
  if (e.kind == TypedExpr::Kind::kColumn || e.kind == TypedExpr::Kind::kSubPlan ||
      is_extern_param(e))
    return false;
  if (e.kind == TypedExpr::Kind::kParam)
    return e.slot >= sp.slot_base && e.slot - sp.slot_base < sp.outer_values;
  return std::all_of(e.args.begin(), e.args.end(),
                     [&](const TypedExpr& a) { return reads_only_outer_values(a, sp); });
}

// `e` over the outer values as a row: parameter slot_base + i reads slot i.
TypedExpr outer_values_as_row(TypedExpr e, uint32_t slot_base) {
  if (e.kind == TypedExpr::Kind::kParam) {
    e.kind = TypedExpr::Kind::kColumn;
    e.slot -= slot_base;
  }
  for (TypedExpr& a : e.args) a = outer_values_as_row(std::move(a), slot_base);
  return e;
}

// The parameter an index key of type `key` compares with `value`: an InitPlan's or an
// outer value as it is, or (correlated subqueries) the value cast to the key's type,
// a parameter derived from the outer values.
std::optional<uint32_t> key_param(SubqueryParams& sp, const TypedExpr& value, TypeId key,
                                  bool equality) {
  if (is_extern_param(value)) {
    // A generic plan's $n, a parameter of the plan's own set, given its value before each
    // run (ExternKeys). A correlated subquery's set is rewritten per outer row: there $n
    // stays a filter.
    if (sp.correlated || !same_key_type(key, value.type) || current_extern_keys() == nullptr)
      return std::nullopt;
    return uint32_t(current_extern_keys()->index_of(sp, value.param, value.type));
  }
  const bool own = value.kind == TypedExpr::Kind::kParam && value.slot >= sp.slot_base &&
                   value.slot - sp.slot_base < sp.params->size();
  if (own && same_key_type(key, value.type)) return value.slot - sp.slot_base;
  // A timestamp equal to a date key is the date of its midnight (a bound has no exact
  // date: it stays a filter).
  const bool exact_date = equality && date_from_timestamp(value.type, key);
  if (!sp.correlated || !reads_only_outer_values(value, sp) || expr_is_volatile(value) ||
      !(same_key_type(key, value.type) || widens_to(value.type, key) || exact_date))
    return std::nullopt;
  TypedExpr derived = outer_values_as_row(same_key_type(key, value.type) ? value
                                          : exact_date                   ? exact_date_of(value)
                                                       : expr::coerce_implicitly(value, key, -1),
                                          sp.slot_base);
  // A plan may be costed more than once: one parameter per expression.
  const std::string text = deparse(derived);
  for (size_t j = 0; j < sp.derived.size(); ++j)
    if (sp.derived[j].type == derived.type && deparse(sp.derived[j]) == text)
      return uint32_t(sp.outer_values + j);
  sp.derived.push_back(std::move(derived));
  sp.eager.push_back(false);
  return uint32_t(sp.params->add(key));
}

}  // namespace

PlannedQuery plan_with_extern_keys(
    PlanContext& ctx, const sql::Select& s,
    const std::function<PlannedQuery(PlanContext&, const sql::Select&)>& plan) {
  ExternKeys keys;
  SubqueryParams own;
  own.params = std::make_unique<scans::ExecParams>(std::vector<TypeId>{});
  struct Scope {
    ExternKeys* saved_keys = current_extern_keys();
    SubqueryParams* saved_params = current_subquery_params();
    Scope(ExternKeys* k, SubqueryParams* p) {
      current_extern_keys() = k;
      current_subquery_params() = p;
    }
    ~Scope() {
      current_extern_keys() = saved_keys;
      current_subquery_params() = saved_params;
    }
  } scope(&keys, &own);
  PlannedQuery q = plan(ctx, s);
  q.extern_keys = keys.keys();
  q.extern_key_params = std::move(own.params);
  return q;
}

namespace {

// `key = ANY (ARRAY[$1, 7])` of a generic plan, its elements statement parameters of the
// key's type and constants held by value, at least one parameter: a runtime key whose
// list is their values (PostgreSQL's array key).
std::optional<Clause> param_array_clause(const Clause& c, SubqueryParams& sp) {
  const TypedExpr& e = *c.expr;
  if (e.negated || e.name != "=" || e.args.size() < 2 || e.args[0].kind != TypedExpr::Kind::kColumn)
    return std::nullopt;
  const TypedExpr& col = e.args[0];
  std::vector<uint32_t> params;
  std::vector<std::optional<Datum>> constants;
  std::string shown;
  for (size_t i = 1; i < e.args.size(); ++i) {
    const TypedExpr& a = e.args[i];
    shown += (i > 1 ? ", " : "") + deparse(a);
    if (a.is_const() && a.type == col.type && type_info(a.type).byval) {
      constants.push_back(a.isnull ? std::nullopt : std::optional<Datum>(a.value.datum()));
      continue;
    }
    if (!is_extern_param(a)) return std::nullopt;
    const std::optional<uint32_t> param = key_param(sp, a, col.type, true);
    if (!param) return std::nullopt;
    params.push_back(*param);
  }
  if (params.empty()) return std::nullopt;
  Clause p = Clause::param_cmp(int(col.slot), CmpOp::kEq, params[0], "ARRAY[" + shown + "]");
  p.param_array = std::move(params);
  for (const std::optional<Datum>& k : constants)
    if (k) p.array_constants.push_back(*k);
  p.array_elements = e.args.size() - 1;
  p.expr = c.expr;
  return p;
}

}  // namespace

std::optional<Clause> init_param_clause(const Clause& c) {
  SubqueryParams* sp = current_subquery_params();
  if (c.kind != Clause::Kind::kExpr || sp == nullptr || !sp->params) return std::nullopt;
  const TypedExpr& e = *c.expr;
  if (e.kind == TypedExpr::Kind::kAnyArray) return param_array_clause(c, *sp);
  const std::optional<CmpOp> op = cmp_op_of_name(e.name);
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || !op ||
      *op == CmpOp::kNe || e.args.size() != 2)
    return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    // A varchar key compares as text (`(v)::text = t.s`): the index's order.
    const TypedExpr& written = e.args[side];
    const bool relabeled = written.form == TypedExpr::Form::kRelabel && written.args.size() == 1 &&
                           written.args[0].kind == TypedExpr::Kind::kColumn &&
                           written.args[0].type == TypeId::kVarchar;
    const TypedExpr& col = relabeled ? written.args[0] : written;
    const TypedExpr& value = e.args[1 - side];
    if (col.kind != TypedExpr::Kind::kColumn) continue;
    const std::optional<uint32_t> param = key_param(*sp, value, col.type, *op == CmpOp::kEq);
    if (!param) continue;
    // An inequality bounds the key as written (`n < $1`, `$1 > n` commuted).
    Clause p =
        Clause::param_cmp(int(col.slot), side == 0 ? *op : commute(*op), *param, deparse(value));
    p.constant_left = side == 1;
    p.expr = c.expr;
    return p;
  }
  return std::nullopt;
}

}  // namespace tp
