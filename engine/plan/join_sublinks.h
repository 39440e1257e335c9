// pull_up_sublinks (prepjointree.c) for a WHERE conjunct that is a subquery:
//
//   WHERE EXISTS (SELECT ... FROM u WHERE u.k = t.k)    t SEMI JOIN u ON u.k = t.k
//   WHERE NOT EXISTS (SELECT ... WHERE u.k = t.k)       t ANTI JOIN u ON u.k = t.k
//   WHERE t.k IN (SELECT u.k FROM u WHERE u.z > 0)      t SEMI JOIN u ON t.k = u.k AND u.z > 0
//
// as PostgreSQL 15 converts them (convert_EXISTS_sublink_to_join,
// convert_ANY_sublink_to_join): the subquery's tables join the query on the right of a
// semi or anti join whose quals are its WHERE (and IN's equality). What PostgreSQL
// leaves a SubPlan or InitPlan (an uncorrelated EXISTS, a correlated IN, NOT IN, a
// subquery with GROUP BY, aggregates, DISTINCT or LIMIT) is refused by name.
#pragma once

#include <functional>
#include <memory>

#include "engine/plan/outer_joins.h"

namespace tp {

struct SublinkHooks {
  // The join tree of a FROM item, its tables added to the query.
  std::function<JoinTreeNode(const sql::FromItem&)> collect;
  // A copy of `e` with its column references qualified, resolved in `inner` (the
  // subquery's tables) first, then in `outer`; whether any resolved in `outer`.
  std::function<const sql::Expr*(const sql::Expr& e, Relids inner, Relids outer, bool& correlated)>
      qualify;
  // Adds the subquery's quals, one AND list, to a join of the tree.
  std::function<void(JoinTreeNode& node, const std::vector<const sql::Expr*>& quals)> add_quals;
};

// `conjunct` (is_sublink_conjunct) pulled up over `tree`, whose tables are `scope`.
JoinTreeNode pull_up_sublink(JoinTreeNode tree, const sql::Expr& conjunct, Relids scope,
                             const SublinkHooks& hooks);

}  // namespace tp
