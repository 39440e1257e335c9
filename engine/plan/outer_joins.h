// What outer joins add to a join query, as PostgreSQL 15's planner works them out
// before the join search (prepjointree.c's reduce_outer_joins, initsplan.c's
// make_outerjoininfo and check_outerjoin_delay) and during it (joinrels.c's
// join_is_legal, has_join_restriction, have_join_order_restriction):
//
//   a LEFT JOIN b ON a.x = b.y WHERE b.z > 0      b.z > 0 rejects b's NULLs: an inner join
//   a LEFT JOIN b ON a.x = b.y WHERE b.y IS NULL  only unmatched rows: an anti join
//   a LEFT JOIN b ON ... LEFT JOIN c ON b.w = c.w (b ⟕ c) may go first: b.w = c.w is
//                                                  strict in b (identity 3)
//
// A SpecialJoin is PostgreSQL's SpecialJoinInfo: the relations that must be on each
// side when the join is done (min_*), and the ones written there (syn_*). A RIGHT join
// is a LEFT join with its sides swapped before any of this.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/join_query.h"

namespace tp {

// A var's relation, as the analyses below read a bound expression's column slots.
using VarRel = std::function<int(uint32_t var)>;

// find_nonnullable_rels / find_nonnullable_vars: the relations (vars) of which a NULL
// makes `e` NULL or false. `top_level`: `e` is a WHERE or ON conjunct, where FALSE and
// NULL are alike.
Relids nonnullable_rels(const TypedExpr& e, const VarRel& rel_of, bool top_level = true);
std::vector<uint32_t> nonnullable_vars(const TypedExpr& e, bool top_level = true);
// find_forced_null_vars: the vars a conjunct `var IS NULL` requires to be NULL.
std::vector<uint32_t> forced_null_vars(const TypedExpr& e);

// canonicalize_qual's constant folding for a WHERE or ON qual: in an OR a FALSE or NULL
// arm drops out and a TRUE arm makes it TRUE; in an AND a TRUE arm drops out and a FALSE
// or NULL arm makes it FALSE (NULL and FALSE filter alike).
TypedExpr fold_qual_constants(TypedExpr e);
// The arms of the OR `e` whose qual does not fold to FALSE or NULL (`bind` binds one).
std::vector<const sql::Expr*> live_or_arms(const sql::Expr& e,
                                           const std::function<TypedExpr(const sql::Expr&)>& bind);
// The OR `e` without those arms (its one arm alone); null when none is left.
std::unique_ptr<sql::Expr> without_false_or_arms(
    const sql::Expr& e, const std::function<TypedExpr(const sql::Expr&)>& bind);

// `e` with its binary-compatible casts taken off (`(v)::text` of a varchar column is
// that column to an estimator and to an index's order).
const TypedExpr& strip_relabel(const TypedExpr& e);
// `e` without the binary-compatible casts that keep its order (varchar as text): a sort
// by the column is a sort by the cast. text or varchar as char(n) is binary-compatible
// too, but compares without trailing blanks: a merge over it sorts by the cast.
const TypedExpr& strip_order_keeping_relabel(const TypedExpr& e);

// make_outerjoininfo: the join's minimal sides given the outer joins below it (`below`,
// in the order they were made) and the relations inner-joined inside its sides.
SpecialJoin make_special_join(JoinKind kind, Relids left, Relids right, Relids inner_join_rels,
                              Relids clause_relids, Relids strict_relids,
                              const std::vector<SpecialJoin>& below);

// check_outerjoin_delay: the relations a qual over `relids` must wait for (every outer
// join that could null one of them, with both its sides), and whether it had to wait.
// `pushed_down` (a WHERE or inner ON qual) marks the joins it delays with
// delay_upper_joins.
Relids outer_join_delay(Relids relids, std::vector<SpecialJoin>& joins, bool pushed_down,
                        bool& delayed, Relids* nullable = nullptr);

// join_is_legal: whether relations `rel1` and `rel2` may be joined, and the special join
// the pair performs (-1: an inner join) with `reversed` when rel2 is its left side.
bool join_is_legal(const std::vector<SpecialJoin>& joins, Relids rel1, Relids rel2, int& match,
                   bool& reversed);
// has_join_restriction / have_join_order_restriction (without the legal-join-clause
// test, which needs the caller's clauses).
bool has_join_restriction(const std::vector<SpecialJoin>& joins, Relids rel);
bool join_order_restricted(const std::vector<SpecialJoin>& joins, Relids rel1, Relids rel2);

// The FROM clause as a tree of joins, each with its ON (or USING) conjuncts.
struct JoinTreeNode {
  JoinKind kind = JoinKind::kInner;  // kInner, kLeft, kRight, kFull; kAnti once reduced
  int rel = -1;                      // a leaf: the base relation
  std::unique_ptr<JoinTreeNode> left;
  std::unique_ptr<JoinTreeNode> right;
  Relids relids = 0;
  std::vector<size_t> quals;  // indices into the conjuncts
  bool comma = false;         // an inner join of a FROM list's items (a FromExpr's)
  // A pulled-up sublink's semi or anti join: PostgreSQL's FromExpr holds the query's
  // FROM items under it (from_collapse_limit applies there), and the subquery's.
  bool sublink = false;
  // A pulled-up subquery's WHERE over an outer join (PostgreSQL's FromExpr above the
  // JoinExpr): inner quals done once this join is, which reject NULLs below it.
  std::vector<size_t> upper_quals;
};

// A WHERE or ON conjunct, bound over the query's vars.
struct BoundConjunct {
  const sql::Expr* expr = nullptr;
  TypedExpr bound;
  Relids relids = 0;  // the relations it reads
};

// Where deconstruct_jointree puts a conjunct (distribute_qual_to_rels).
struct PlacedConjunct {
  size_t conjunct = 0;
  Relids relids = 0;  // required_relids: where it is evaluated
  bool pushed_down = true;
  bool may_equate = true;  // may join an equivalence class
  // Inside an outer join's nullable side (or its own ON): a constant it equates a var
  // with does not make that var constant above the join.
  bool below_outer_join = false;
  Relids outer_relids = 0;
  Relids nullable_relids = 0;
};

// reduce_outer_joins: a LEFT or FULL join whose nulls a qual above rejects becomes an
// inner (or LEFT) join, a LEFT join that keeps only its unmatched rows an anti join,
// and a RIGHT join a LEFT join with its sides swapped. `where`: the WHERE conjuncts.
void reduce_outer_joins(JoinTreeNode& root, const std::vector<BoundConjunct>& conjuncts,
                        const std::vector<size_t>& where, const VarRel& rel_of);

// WHERE conjuncts (indices in `where`) that read no column but an InitPlan's value:
// PostgreSQL's pseudo-constant quals, gating the join from above, estimated as
// selectivity 1. They leave `where`; returned bound.
std::vector<TypedExpr> take_gating_conjuncts(const std::vector<BoundConjunct>& conjuncts,
                                             std::vector<size_t>& where);

// The join tree's kind for a written join (a FROM list's comma is an inner join).
JoinKind join_kind_of(sql::JoinKind k);

// canonicalize_qual's rule for one WHERE or ON list: a conjunct folded to FALSE or NULL
// makes the whole list that one FALSE (`k < 5 AND NULL` is `false`). A list's other
// conjuncts leave the tree; a lone NULL stays NULL. `lists`: each list's conjuncts as
// [first, end); `false_expr`: what a NULL in a longer list becomes.
void collapse_false_lists(JoinTreeNode& root, std::vector<BoundConjunct>& conjuncts,
                          const std::vector<std::pair<size_t, size_t>>& lists,
                          const sql::Expr* false_expr);

// deconstruct_jointree: the special joins, bottom-up, and each conjunct's place (the
// ON conjuncts as their joins are met, then `where`); a WHERE `var IS NULL` an anti
// join makes redundant is left out.
std::vector<PlacedConjunct> deconstruct_join_tree(const JoinTreeNode& root,
                                                  const std::vector<BoundConjunct>& conjuncts,
                                                  const std::vector<size_t>& where,
                                                  const VarRel& rel_of,
                                                  std::vector<SpecialJoin>& joins);

}  // namespace tp
