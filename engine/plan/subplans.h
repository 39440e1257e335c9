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
#include <string>

#include "engine/plan/planner.h"

namespace tp {

// Whether the statement being planned has InitPlans or SubPlans: EXPLAIN's range table
// then holds more than one relation, and PostgreSQL qualifies sort keys (`Sort Key: t.id`).
bool qualify_sort_keys();
// The name EXPLAIN gives table `name` (referred to as `refname`: its alias, else its
// name) in the subquery being planned: `u_1` when an earlier relation of the statement
// took `u` (PostgreSQL's set_rtable_names); empty when it keeps its own.
std::string subplan_display_name(const std::string& refname);

// Whether `s` holds a subquery outside FROM.
bool has_subqueries(const sql::Select& s);

// `s` planned by `plan` with its subqueries planned here and bound as $n and SubPlans.
PlannedQuery plan_with_subplans(
    PlanContext& ctx, const sql::Select& s,
    const std::function<PlannedQuery(PlanContext&, const sql::Select&)>& plan);

}  // namespace tp
