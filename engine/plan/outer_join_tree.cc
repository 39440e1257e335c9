// reduce_outer_joins and deconstruct_jointree over the FROM clause's join tree
// (outer_joins.h).
#include <algorithm>
#include <bit>

#include "engine/plan/outer_joins.h"

namespace tp {

namespace {

// What the quals above a join say about the rows it may return: the relations whose
// NULL-extended rows they reject, and the vars they require to be NULL.
struct Constraints {
  Relids nonnullable = 0;
  std::vector<uint32_t> forced_null;
};

Constraints constraints_of(const std::vector<BoundConjunct>& conjuncts,
                           const std::vector<size_t>& quals, const VarRel& rel_of) {
  Constraints c;
  for (size_t i : quals) {
    c.nonnullable |= nonnullable_rels(conjuncts[i].bound, rel_of);
    for (uint32_t v : forced_null_vars(conjuncts[i].bound))
      if (std::find(c.forced_null.begin(), c.forced_null.end(), v) == c.forced_null.end())
        c.forced_null.push_back(v);
  }
  return c;
}

class Reducer {
 public:
  Reducer(const std::vector<BoundConjunct>& conjuncts, const VarRel& rel_of)
      : conjuncts_(conjuncts), rel_of_(rel_of) {}

  void reduce(JoinTreeNode& j, const Constraints& outer) {
    if (j.rel >= 0) return;
    // reduce_outer_joins_pass2's FromExpr: its quals join what is passed down from above.
    Constraints above = outer;
    if (!j.upper_quals.empty()) {
      const Constraints own = constraints_of(conjuncts_, j.upper_quals, rel_of_);
      above.nonnullable |= own.nonnullable;
      above.forced_null.insert(above.forced_null.end(), own.forced_null.begin(),
                               own.forced_null.end());
    }
    JoinKind kind = j.kind;
    const bool left_rejected = (above.nonnullable & j.left->relids) != 0;
    const bool right_rejected = (above.nonnullable & j.right->relids) != 0;
    if (kind == JoinKind::kLeft && right_rejected) kind = JoinKind::kInner;
    if (kind == JoinKind::kRight && left_rejected) kind = JoinKind::kInner;
    if (kind == JoinKind::kFull) {
      if (left_rejected && right_rejected)
        kind = JoinKind::kInner;
      else if (left_rejected)
        kind = JoinKind::kLeft;
      else if (right_rejected)
        kind = JoinKind::kRight;
    }
    if (kind == JoinKind::kRight) {
      std::swap(j.left, j.right);
      kind = JoinKind::kLeft;
    }
    if (kind == JoinKind::kLeft && anti_join(j, above)) kind = JoinKind::kAnti;
    j.kind = kind;
    Constraints local;
    if (kind != JoinKind::kFull) {
      local = constraints_of(conjuncts_, j.quals, rel_of_);
      if (kind == JoinKind::kInner || kind == JoinKind::kSemi) {
        local.nonnullable |= above.nonnullable;
        local.forced_null.insert(local.forced_null.end(), above.forced_null.begin(),
                                 above.forced_null.end());
      }
    }
    // An inner join passes everything down; a LEFT (or anti) join passes what is above
    // to its preserved side and its own ON clause to its nullable side; nothing passes a
    // FULL join.
    if (kind == JoinKind::kInner || kind == JoinKind::kSemi)
      reduce(*j.left, local);
    else if (kind == JoinKind::kFull)
      reduce(*j.left, {});
    else
      reduce(*j.left, above);
    reduce(*j.right, kind == JoinKind::kFull ? Constraints{} : local);
  }

 private:
  // A var the ON clause cannot match NULL, on the nullable side, which a qual above
  // requires to be NULL: only unmatched rows survive.
  bool anti_join(const JoinTreeNode& j, const Constraints& above) const {
    for (size_t i : j.quals)
      for (uint32_t v : nonnullable_vars(conjuncts_[i].bound))
        if (std::find(above.forced_null.begin(), above.forced_null.end(), v) !=
                above.forced_null.end() &&
            (j.right->relids & (Relids(1) << rel_of_(v))))
          return true;
    return false;
  }

  const std::vector<BoundConjunct>& conjuncts_;
  const VarRel& rel_of_;
};

class Deconstructor {
 public:
  Deconstructor(const std::vector<BoundConjunct>& conjuncts, const VarRel& rel_of,
                std::vector<SpecialJoin>& joins)
      : conjuncts_(conjuncts), rel_of_(rel_of), joins_(joins) {}

  // Returns the relations inner-joined within `j` (inner_join_rels). `below`: `j` is
  // inside an outer join's nullable side.
  Relids walk(const JoinTreeNode& j, bool below) {
    if (j.rel >= 0) {
      // A pulled-up subquery's WHERE over its one table.
      for (size_t i : j.quals) place(i, 0, 0, below, j.relids);
      return 0;
    }
    const Relids left_inner = walk(*j.left, below || j.kind == JoinKind::kFull);
    const Relids right_inner =
        walk(*j.right, below || (j.kind != JoinKind::kInner && j.kind != JoinKind::kSemi));
    if (j.kind == JoinKind::kInner) {
      for (size_t i : j.quals) place(i, 0, 0, below, j.relids);
      for (size_t i : j.upper_quals) place(i, 0, 0, below, j.relids);
      return j.relids;
    }
    Relids clause_relids = 0, strict = 0;
    for (size_t i : j.quals) {
      clause_relids |= conjuncts_[i].relids;
      strict |= nonnullable_rels(conjuncts_[i].bound, rel_of_);
    }
    SpecialJoin sj = make_special_join(j.kind, j.left->relids, j.right->relids,
                                       left_inner | right_inner, clause_relids, strict, joins_);
    if (j.kind == JoinKind::kSemi) semijoin_info(j, sj);
    if (j.kind == JoinKind::kSemi) {
      // A semi join's quals are placed as an inner join's (they may form classes); its
      // minimal sides keep them from being done anywhere but at it.
      for (size_t i : j.quals) place(i, 0, 0, below, j.relids);
    } else {
      const Relids preserved = j.kind == JoinKind::kFull ? j.relids : j.left->relids;
      for (size_t i : j.quals)
        place(i, sj.min_lefthand | sj.min_righthand, preserved, true, j.relids);
    }
    joins_.push_back(sj);
    for (size_t i : j.upper_quals) place(i, 0, 0, below, j.relids);
    return left_inner | right_inner;
  }

  // distribute_qual_to_rels' placement. `ojscope` and `preserved` are an outer join's
  // for its own ON conjuncts (0 for WHERE and inner ON conjuncts).
  // `qualscope`: the relations under the qual's join, one of which a qual over none
  // filters (a constant FALSE empties that join).
  void place(size_t i, Relids ojscope, Relids preserved, bool below, Relids qualscope) {
    // A constant TRUE is no qual at all (make_ands_implicit drops it).
    const TypedExpr& e = conjuncts_[i].bound;
    if (e.kind == TypedExpr::Kind::kConst && !e.isnull && e.type == TypeId::kBool &&
        e.value.datum() != 0)
      return;
    PlacedConjunct p;
    p.conjunct = i;
    p.outer_relids = preserved;
    p.below_outer_join = below;
    Relids relids = conjuncts_[i].relids;
    if (relids == 0) relids = ojscope != 0 ? ojscope : qualscope & (~qualscope + 1);
    bool delayed = false;
    if (relids & preserved) {
      // An outer join's own clause: evaluated at that join, deciding matches.
      outer_join_delay(relids, joins_, false, delayed, &p.nullable_relids);
      p.relids = ojscope;
      p.pushed_down = false;
      p.may_equate = false;
    } else {
      p.relids = outer_join_delay(relids, joins_, true, delayed, &p.nullable_relids);
      p.may_equate = !delayed;
      if (delayed && redundant_is_null(conjuncts_[i].bound)) return;
    }
    placed.push_back(p);
  }

  std::vector<PlacedConjunct> placed;

 private:
  Relids relids_of(const TypedExpr& e) const {
    Relids r = e.kind == TypedExpr::Kind::kColumn ? Relids(1) << rel_of_(e.slot) : 0;
    for (const TypedExpr& a : e.args) r |= relids_of(a);
    return r;
  }

  // compute_semijoin_info: every qual over both sides an equality of a left expression
  // and a right column of one btree family (hashable and sortable alike).
  void semijoin_info(const JoinTreeNode& j, SpecialJoin& sj) const {
    const Relids rhs = sj.syn_righthand;
    for (size_t i : j.quals) {
      const TypedExpr& e = conjuncts_[i].bound;
      const Relids all = relids_of(e);
      if (!(all & rhs) || (all & ~rhs) == 0) continue;  // over one side: a restriction
      if (e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2) return;
      const Relids r0 = relids_of(e.args[0]), r1 = relids_of(e.args[1]);
      const int side = (r1 != 0 && (r1 & ~rhs) == 0 && !(r0 & rhs))   ? 1
                       : (r0 != 0 && (r0 & ~rhs) == 0 && !(r1 & rhs)) ? 0
                                                                      : -1;
      if (side < 0) return;
      const TypedExpr& in = strip_relabel(e.args[size_t(side)]);
      if (!same_merge_family(e.args[0].type, e.args[1].type)) return;
      if (!same_hash_family(e.args[0].type, e.args[1].type)) sj.semi_can_hash = false;
      if (in.kind == TypedExpr::Kind::kColumn) sj.semi_rhs_vars.push_back(in.slot);
      sj.semi_rhs_exprs.push_back(in.kind == TypedExpr::Kind::kColumn ? in : e.args[size_t(side)]);
    }
    if (sj.semi_rhs_vars.size() == sj.semi_rhs_exprs.size()) sj.semi_rhs_exprs.clear();
    sj.semi_can_unique = !sj.semi_rhs_vars.empty() || !sj.semi_rhs_exprs.empty();
  }

  // check_redundant_nullability_qual: `var IS NULL` over the nullable side of an anti
  // join, which returns only rows where it holds.
  bool redundant_is_null(const TypedExpr& e) const {
    if (e.kind != TypedExpr::Kind::kIsNull || e.negated ||
        e.args[0].kind != TypedExpr::Kind::kColumn)
      return false;
    const Relids rel = Relids(1) << rel_of_(e.args[0].slot);
    return std::any_of(joins_.begin(), joins_.end(), [&](const SpecialJoin& j) {
      return j.kind == JoinKind::kAnti && (j.syn_righthand & rel);
    });
  }

  const std::vector<BoundConjunct>& conjuncts_;
  const VarRel& rel_of_;
  std::vector<SpecialJoin>& joins_;
};

}  // namespace

void reduce_outer_joins(JoinTreeNode& root, const std::vector<BoundConjunct>& conjuncts,
                        const std::vector<size_t>& where, const VarRel& rel_of) {
  Reducer(conjuncts, rel_of).reduce(root, constraints_of(conjuncts, where, rel_of));
}

std::vector<PlacedConjunct> deconstruct_join_tree(const JoinTreeNode& root,
                                                  const std::vector<BoundConjunct>& conjuncts,
                                                  const std::vector<size_t>& where,
                                                  const VarRel& rel_of,
                                                  std::vector<SpecialJoin>& joins) {
  Deconstructor d(conjuncts, rel_of, joins);
  d.walk(root, false);
  for (size_t i : where) d.place(i, 0, 0, false, root.relids);
  return std::move(d.placed);
}

}  // namespace tp
