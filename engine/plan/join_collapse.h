// deconstruct_jointree's joinlist (initsplan.c): which relations one join search plans
// together. A FROM list's items and an explicit JOIN's two sides are flattened into one
// list while the list stays within from_collapse_limit / join_collapse_limit items;
// beyond that a side stays a sub-list, planned as a unit that the search above joins as
// one item (`SET join_collapse_limit = 1` joins explicit JOINs in the order written). A
// FULL JOIN's two sides are always a sub-list of their own.
//
//   JoinSubproblems s = join_subproblems(tree, settings, position);
//   // s.units: the relids of every sub-list (a joinrel must hold all of one or none,
//   // or lie inside it)
//
// A list of geqo_threshold items or more is GEQO's in PostgreSQL; tidepool has no genetic
// optimizer and refuses it while `geqo` is on.
#pragma once

#include <vector>

#include "engine/plan/outer_joins.h"
#include "engine/plan/plan_context.h"

namespace tp {

struct JoinSubproblems {
  std::vector<Relids> units;
};

JoinSubproblems join_subproblems(const JoinTreeNode& tree, const PlannerSettings& settings,
                                 int position);

// Whether a join relation of `relids` keeps to the sub-lists: it holds all of each unit
// of `units` or none of it, or lies inside it.
bool respects_units(const std::vector<Relids>& units, Relids relids);

}  // namespace tp
