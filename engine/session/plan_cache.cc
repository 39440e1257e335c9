#include "engine/session/plan_cache.h"

#include "engine/core/error.h"
#include "scans/exec_params.h"

namespace tp {
namespace {

// PostgreSQL's range table entries of a FROM item: a table, function or subquery is one
// (a subquery's own entries are pulled up with it), an explicit JOIN one more; a comma
// list none.
int range_table_entries(const sql::FromItem& f);

int range_table_entries(const sql::Select& s) {
  int n = 0;
  if (s.set_operation) {
    // Each arm is a subquery entry of the set operation's own query.
    for (const sql::Select* arm : {s.set_operation->left.get(), s.set_operation->right.get()})
      if (arm != nullptr) n += 1 + range_table_entries(*arm);
    return n;
  }
  if (s.from) n += range_table_entries(*s.from);
  for (const sql::CommonTableExpr& c : s.with)
    if (c.query) n += range_table_entries(*c.query);
  return n;
}

int range_table_entries(const sql::FromItem& f) {
  if (f.is_join()) {
    int n = f.join == sql::JoinKind::kComma ? 0 : 1;
    for (const sql::FromItem& side : f.sides) n += range_table_entries(side);
    return n;
  }
  if (f.subquery) return 1 + range_table_entries(*f.subquery);
  return 1;
}

}  // namespace

bool plan_can_run_again(const PlannedQuery& q) {
  std::vector<const scans::ExecNode*> todo{q.root.get()};
  while (!todo.empty()) {
    const scans::ExecNode* n = todo.back();
    todo.pop_back();
    // A subquery host or LATERAL scan (each a ParamSource) keeps per-run state; a
    // Gather's workers are gone after its run.
    if (dynamic_cast<const ParamSource*>(n) != nullptr || !n->shown_init_plans.empty() ||
        !n->shown_sub_plans.empty() || n->explain_name().find("Gather") != std::string::npos)
      return false;
    for (const scans::ExecNode* c : n->children()) todo.push_back(c);
  }
  return true;
}

PlanCacheMode plan_cache_mode(const std::string& setting) {
  if (setting == "force_custom_plan") return PlanCacheMode::kForceCustom;
  if (setting == "force_generic_plan") return PlanCacheMode::kForceGeneric;
  return PlanCacheMode::kAuto;
}

bool choose_custom_plan(const PlanCacheStats& stats, PlanCacheMode mode) {
  if (mode == PlanCacheMode::kForceGeneric) return false;
  if (mode == PlanCacheMode::kForceCustom) return true;
  if (stats.custom_plans < 5) return true;
  if (stats.generic_cost < 0) return false;  // not made yet: make it and weigh it
  const double average_custom = stats.custom_cost_total / stats.custom_plans;
  return !(stats.generic_cost < average_custom);
}

double cached_plan_cost(const PlannedQuery& q, const sql::Select& s, double cpu_operator_cost,
                        bool include_planner) {
  const scans::ExecNode* top = q.root.get();
  while (top->explain_transparent()) top = top->children()[0];
  double cost = top->estimate.total_cost;
  if (include_planner) cost += 1000.0 * cpu_operator_cost * (range_table_entries(s) + 1);
  return cost;
}

ExternParamValues::ExternParamValues(const std::vector<sql::ParamSlot>& slots, int64_t now) {
  values_.reserve(slots.size());
  for (const sql::ParamSlot& slot : slots) {
    nulls_.push_back(slot.isnull || !slot.type);
    values_.push_back(nulls_.back() ? OwnedDatum{}
                                    : datum_in(*slot.type, kNoTypmod, slot.text, now));
  }
}

Datum ExternParamValues::param(uint32_t n, bool& isnull) {
  if (n < 1 || n > values_.size())
    throw Error("there is no parameter $" + std::to_string(n))
        .with_sqlstate(sqlstate::kUndefinedParameter);
  isnull = nulls_[n - 1];
  return isnull ? 0 : values_[n - 1].datum();
}

Datum ExternParamValues::subplan(uint32_t, const Datum*, const bool*, bool&) {
  throw Error("a statement's parameters hold no subquery").with_sqlstate(sqlstate::kInternalError);
}

void set_extern_keys(const PlannedQuery& q) {
  if (q.extern_keys.empty()) return;
  ParamSource* values = current_extern_params();
  if (values == nullptr)
    throw Error("a generic plan ran without its parameters' values")
        .with_sqlstate(sqlstate::kInternalError);
  for (const scans::ExternKey& k : q.extern_keys) {
    bool isnull = false;
    const Datum d = values->param(uint32_t(k.n), isnull);
    k.params->set(k.index, d, isnull);
  }
}

}  // namespace tp
