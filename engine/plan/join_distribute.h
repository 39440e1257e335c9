// The last step of binding a join query: each conjunct, where deconstruct_join_tree put
// it (outer_joins.h), becomes a restriction of one relation, a member of an equivalence
// class, or a Join Filter (distribute_qual_to_rels); then the classes are formed
// (equivclass.c: a class with a constant gives `member = constant` to each member's
// relation, an expression member among them), and an outer join's `outer = inner` whose outer side
// a constant fixes gives its inner side the same constant (reconsider_outer_join_clauses).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "engine/plan/join_query.h"
#include "engine/plan/outer_joins.h"

namespace tp {

// What only the binder can tell of a conjunct as written.
struct JoinEqualities {
  // `x = y` of two relations' columns in one btree family: their vars.
  std::function<std::optional<std::pair<uint32_t, uint32_t>>(const sql::Expr&)> var_pair;
  // `x = constant`: the var and the constant.
  std::function<std::optional<std::pair<uint32_t, const sql::Expr*>>(const sql::Expr&)>
      var_constant;
  std::function<std::unique_ptr<sql::Expr>(int rel, int column)> column_ref;
  std::function<std::unique_ptr<sql::Expr>(const sql::Expr&)> copy;
};

// Fills q's restrictions, classes and filters, the vars' where_needed for the clauses
// above the scans, and `fixed` with the vars a constant fixes (for the whole query, not
// only inside an outer join's nullable side).
void distribute_conjuncts(JoinQuery& q, const std::vector<BoundConjunct>& conjuncts,
                          const std::vector<PlacedConjunct>& placed, const JoinEqualities& eq,
                          std::vector<uint32_t>& fixed);

}  // namespace tp
