// PostgreSQL's plan cache (plancache.c) for a prepared statement with parameters: its
// first five executions are planned with their values (custom plans); from the sixth on
// the generic plan, planned once with each $n a Param read when the plan runs, is used
// when it costs less than the custom plans did on average, their planning included
// (1000 cpu_operator_cost per range table entry, and one more). plan_cache_mode forces
// either kind.
//
//   PREPARE q(int) AS SELECT * FROM t WHERE a = $1;
//   EXPLAIN EXECUTE q(7);      -- 1st-5th: Index Cond: (a = 7)
//   EXPLAIN EXECUTE q(7);      -- 6th on:  Index Cond: (a = $1)   when it is not dearer
//
// Only a query (a SELECT) is planned generically; a statement of another kind is
// planned with its values each time, which gives the same plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/typed_expr.h"
#include "engine/plan/planner.h"
#include "engine/sql/ast.h"
#include "engine/sql/params.h"

namespace tp {

// What one prepared statement's executions have planned so far.
struct PlanCacheStats {
  int custom_plans = 0;
  double custom_cost_total = 0;  // each custom plan's cost, planning included
  double generic_cost = -1;      // the generic plan's, once one was made
  void custom_plan_cost(double cost) {
    ++custom_plans;
    custom_cost_total += cost;
  }
};

// A prepared query's generic plan kept between its executions: the statement parsed
// once (its $n Params, so the text says it all), and the plan's tree while it may run
// again: while the catalog version, the settings and the Storage's files it was made
// under stand, free of nodes that cannot start over (parallel workers, subqueries), and
// holding no buffer pin and no read stream after its last run (a scan a Limit stopped
// keeps its page, a scan that streamed keeps its stream: those trees are dropped).
struct GenericPlan {
  sql::Statement statement;
  std::optional<PlannedQuery> plan;
  uint64_t catalog_version = 0;
  uint64_t settings_changes = 0;
  uint64_t storage_generation = 0;  // Storage::generation
  uint64_t reruns = 0;              // executions that ran the kept tree again
};

// Whether `q`'s tree may run again from open(), with new values of its $n.
bool plan_can_run_again(const PlannedQuery& q);

enum class PlanCacheMode { kAuto, kForceCustom, kForceGeneric };
PlanCacheMode plan_cache_mode(const std::string& setting);

// choose_custom_plan: whether this execution gets a custom plan. With the generic plan's
// cost still unknown (after five custom plans), false: the generic plan is made and
// weighed first.
bool choose_custom_plan(const PlanCacheStats& stats, PlanCacheMode mode);

// cached_plan_cost: the plan's total cost; with `include_planner`, PostgreSQL's guess
// at what planning it cost, 1000 * cpu_operator_cost * (range table entries + 1).
double cached_plan_cost(const PlannedQuery& q, const sql::Select& s, double cpu_operator_cost,
                        bool include_planner);

// An execution's values of a generic plan's $n (PostgreSQL's PARAM_EXTERN values), read
// by its expressions (current_extern_params) and set into its index keys.
class ExternParamValues final : public ParamSource {
 public:
  // Each slot's text read by its type's input function (Bind checked it already).
  explicit ExternParamValues(const std::vector<sql::ParamSlot>& slots, int64_t now);
  Datum param(uint32_t n, bool& isnull) override;
  Datum subplan(uint32_t id, const Datum* args, const bool* arg_nulls, bool& isnull) override;

 private:
  std::vector<OwnedDatum> values_;  // never resized after construction: Datums point in
  std::vector<bool> nulls_;
};

// Sets the parameters `q`'s index keys read $n from to the thread's values of $n
// (current_extern_params); a plan without such keys needs none.
void set_extern_keys(const PlannedQuery& q);

// Makes `values` the thread's $n while a generic plan runs.
class ExternParamScope {
 public:
  explicit ExternParamScope(ParamSource* values) : saved_(current_extern_params()) {
    current_extern_params() = values;
  }
  ~ExternParamScope() { current_extern_params() = saved_; }
  ExternParamScope(const ExternParamScope&) = delete;
  ExternParamScope& operator=(const ExternParamScope&) = delete;

 private:
  ParamSource* saved_;
};

}  // namespace tp
