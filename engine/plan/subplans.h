// The subqueries PostgreSQL 15 leaves in expressions (subselect.c's make_subplan), planned
// on their own and run by scans/subplan_host.h:
//
//   k = (SELECT max(x) FROM u)       an InitPlan: `k = $0`, run once, when first read
//   EXISTS (SELECT ... FROM u ...)   uncorrelated: an InitPlan, `One-Time Filter: $0`
//   v NOT IN (SELECT z FROM u)       uncorrelated: `(NOT (hashed SubPlan 1))`, the rows
//                                    in a hash table when they fit in hash_mem
//
// Each subquery's plan is numbered as PostgreSQL numbers them (select list, then WHERE),
// its cost charged as cost_subplan and SS_charge_for_initplans do: an InitPlan's on the
// plan's top node (and the scan a gating Result copies), a hashed SubPlan's on the node
// whose Filter runs it. What stays a join (a correlated EXISTS, an uncorrelated IN as a
// WHERE conjunct) is left to the join planner (join_sublinks.h); correlated subqueries
// in expressions and a subquery within a subquery are refused by name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/plan/planner.h"
#include "scans/index_scan.h"

namespace tp {

// Whether the statement being planned has InitPlans or SubPlans: EXPLAIN's range table
// then holds more than one relation, and PostgreSQL qualifies sort keys (`Sort Key: t.id`).
bool qualify_sort_keys();
// The name EXPLAIN gives table `name` (referred to as `refname`: its alias, else its
// name) in the subquery being planned: `u_1` when an earlier relation of the statement
// took `u` (PostgreSQL's set_rtable_names); empty when it keeps its own.
std::string subplan_display_name(const std::string& refname);

// The statement's InitPlan values as a parameterized index scan reads them (`Index Cond:
// (k = $0)`): the InitPlans of `keys` are then run when the plan starts, before the scan
// reads its keys. Throws when no InitPlan is being planned.
const scans::ExecParams* init_params_for_keys(
    const std::vector<scans::IndexScanParams::RuntimeKey>& keys);
// `column = $n` (a typed clause over an InitPlan's value, or over a correlated
// subquery's outer values, of a type the index key holds) as the parameterized clause an
// index searches with; the typed form stays its filter.
std::optional<Clause> init_param_clause(const Clause& c);

// The parameters index keys read while a query is planned: the statement's InitPlan
// values ($n: slot n), or a correlated subquery's outer values (slots from `slot_base`).
struct SubqueryParams {
  std::unique_ptr<scans::ExecParams> params;
  std::vector<bool> eager;  // an InitPlan an index key reads: run when the plan starts
  uint32_t slot_base = 0;   // the kParam slot of params' first entry
  // A correlated subquery's: an index key compares with an expression of the outer values
  // (`n = (t.k)::numeric`, a date cast to a timestamptz key), a parameter of its own after
  // the outer values, set from them before each run. Each is written over the outer
  // values as a row (slot i: outer value i).
  bool correlated = false;
  size_t outer_values = 0;
  std::vector<TypedExpr> derived;
};
SubqueryParams*& current_subquery_params();

// The $n of a generic plan that index keys read (`Index Cond: (a = $1)`), gathered while
// the plan is made: each a parameter added to the set its scan reads.
class ExternKeys {
 public:
  // The parameter of `sp` that holds $n, added on first use.
  size_t index_of(SubqueryParams& sp, int n, TypeId type);
  const std::vector<scans::ExternKey>& keys() const { return keys_; }

 private:
  std::vector<scans::ExternKey> keys_;
};
// Set while a generic plan is made (plan_with_extern_keys), null otherwise.
ExternKeys*& current_extern_keys();
// A generic plan's statement (engine/sql/params.h) planned by `plan`: its $n in index
// keys become parameters of a set the plan keeps (or of its subquery host's), listed in
// the PlannedQuery for each execution to set.
PlannedQuery plan_with_extern_keys(
    PlanContext& ctx, const sql::Select& s,
    const std::function<PlannedQuery(PlanContext&, const sql::Select&)>& plan);
// kParam slots of correlated subqueries' parameters start here (InitPlans' are $n).
inline constexpr uint32_t kCorrelationSlots = 1u << 20;

// The $n planagg took for min() / max() paths that lost to the plain Aggregate
// (PostgreSQL makes their parameters before it weighs the paths): a subquery's later
// InitPlans are numbered after them.
int& minmax_params_taken();

// Whether `s` holds a subquery outside FROM.
bool has_subqueries(const sql::Select& s);

// `s` planned by `plan` with its subqueries planned here and bound as $n and SubPlans.
PlannedQuery plan_with_subplans(
    PlanContext& ctx, const sql::Select& s,
    const std::function<PlannedQuery(PlanContext&, const sql::Select&)>& plan);

}  // namespace tp
