#include "engine/plan/outer_joins.h"

#include <algorithm>

#include "engine/plan/join_exprs.h"

namespace tp {

namespace {

bool subset(Relids a, Relids b) {
  return (a & ~b) == 0;
}

void add_unique(std::vector<uint32_t>& to, const std::vector<uint32_t>& from) {
  for (uint32_t v : from)
    if (std::find(to.begin(), to.end(), v) == to.end()) to.push_back(v);
}

std::vector<uint32_t> intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  for (uint32_t v : a)
    if (std::find(b.begin(), b.end(), v) != b.end()) out.push_back(v);
  return out;
}

// One walk for both analyses: `Set` is Relids or a list of vars.
template <typename Set, typename Leaf, typename Union, typename Meet>
Set nonnullable(const TypedExpr& e, bool top, const Leaf& leaf, const Union& join,
                const Meet& meet) {
  using K = TypedExpr::Kind;
  auto walk = [&](const TypedExpr& a, bool t) { return nonnullable<Set>(a, t, leaf, join, meet); };
  switch (e.kind) {
    case K::kColumn:
      return leaf(e.slot);
    case K::kCall:
    case K::kAnyArray: {
      // Every operator, function and cast tidepool has is strict; so is `x IN (...)`
      // over a constant list.
      Set s{};
      for (const TypedExpr& a : e.args) s = join(s, walk(a, false));
      return s;
    }
    case K::kAnd:
      if (top) {
        Set s{};
        for (const TypedExpr& a : e.args) s = join(s, walk(a, true));
        return s;
      }
      [[fallthrough]];
    case K::kOr: {
      // NULL (or false) only if every arm is: what they all reject.
      Set s = walk(e.args[0], top);
      for (size_t i = 1; i < e.args.size(); ++i) s = meet(s, walk(e.args[i], top));
      return s;
    }
    case K::kNot:
      return walk(e.args[0], false);
    case K::kIsNull:
      return top && e.negated ? walk(e.args[0], false) : Set{};
    case K::kBoolTest:
      // IS TRUE, IS FALSE and IS NOT UNKNOWN reject NULL.
      return top && (e.negated == (e.name == "UNKNOWN")) ? walk(e.args[0], false) : Set{};
    default:
      return Set{};
  }
}

}  // namespace

namespace {

TypedExpr bool_const(bool v) {
  TypedExpr c;
  c.kind = TypedExpr::Kind::kConst;
  c.type = TypeId::kBool;
  c.value = OwnedDatum::by_value(Datum(v ? 1 : 0));
  return c;
}

bool is_bool_const(const TypedExpr& e) {
  return e.kind == TypedExpr::Kind::kConst && e.type == TypeId::kBool;
}

}  // namespace

JoinKind join_kind_of(sql::JoinKind k) {
  switch (k) {
    case sql::JoinKind::kLeft:
      return JoinKind::kLeft;
    case sql::JoinKind::kRight:
      return JoinKind::kRight;
    case sql::JoinKind::kFull:
      return JoinKind::kFull;
    default:
      return JoinKind::kInner;
  }
}

namespace {

void erase_quals(JoinTreeNode& node, const std::vector<size_t>& gone) {
  for (std::vector<size_t>* list : {&node.quals, &node.upper_quals})
    std::erase_if(*list, [&](size_t i) { return std::ranges::find(gone, i) != gone.end(); });
  for (JoinTreeNode* child : {node.left.get(), node.right.get()})
    if (child) erase_quals(*child, gone);
}

}  // namespace

void collapse_false_lists(JoinTreeNode& root, std::vector<BoundConjunct>& conjuncts,
                          const std::vector<std::pair<size_t, size_t>>& lists,
                          const sql::Expr* false_expr) {
  std::vector<size_t> gone;
  for (const auto& [first, end] : lists) {
    if (end - first < 2) continue;
    size_t kept = end;
    for (size_t i = first; i < end && kept == end; ++i)
      if (conjuncts[i].relids == 0 && is_bool_const(conjuncts[i].bound) &&
          conjuncts[i].bound.value.datum() == 0)
        kept = i;
    if (kept == end) continue;
    conjuncts[kept].expr = false_expr;
    for (size_t i = first; i < end; ++i)
      if (i != kept) gone.push_back(i);
  }
  if (!gone.empty()) erase_quals(root, gone);
}

std::vector<const sql::Expr*> live_or_arms(const sql::Expr& e,
                                           const std::function<TypedExpr(const sql::Expr&)>& bind) {
  std::vector<const sql::Expr*> live;
  for (const sql::ExprPtr& arm : e.args) {
    const TypedExpr b = fold_qual_constants(bind(*arm));
    if (b.kind == TypedExpr::Kind::kConst && (b.isnull || b.value.datum() == 0)) continue;
    live.push_back(arm.get());
  }
  return live;
}

std::unique_ptr<sql::Expr> without_false_or_arms(
    const sql::Expr& e, const std::function<TypedExpr(const sql::Expr&)>& bind) {
  auto kept = std::make_unique<sql::Expr>(sql::ExprKind::kOr, e.position);
  for (const sql::Expr* arm : live_or_arms(e, bind)) {
    kept->args.push_back(copy_expr(*arm));
    kept->height = std::max(kept->height, kept->args.back()->height + 1);
  }
  if (kept->args.empty()) return nullptr;
  if (kept->args.size() == 1) kept = std::move(kept->args[0]);
  return kept;
}

std::vector<TypedExpr> take_gating_conjuncts(const std::vector<BoundConjunct>& conjuncts,
                                             std::vector<size_t>& where) {
  std::vector<TypedExpr> gating;
  std::vector<size_t> kept;
  for (size_t i : where) {
    const TypedExpr& e = conjuncts[i].bound;
    std::vector<uint32_t> slots;
    expr_slots(e, slots);
    if (slots.empty() && reads_subquery(e))
      gating.push_back(e);
    else
      kept.push_back(i);
  }
  where = std::move(kept);
  return gating;
}

TypedExpr fold_qual_constants(TypedExpr e) {
  using K = TypedExpr::Kind;
  if (e.kind != K::kAnd && e.kind != K::kOr) return e;
  const bool is_or = e.kind == K::kOr;
  std::vector<TypedExpr> kept;
  for (TypedExpr& a : e.args) {
    TypedExpr f = fold_qual_constants(std::move(a));
    if (is_bool_const(f)) {
      const bool truth = !f.isnull && f.value.datum() != 0;
      if (truth == is_or) return bool_const(is_or);  // OR TRUE, AND FALSE (or NULL)
      continue;                                      // OR FALSE (or NULL), AND TRUE
    }
    kept.push_back(std::move(f));
  }
  if (kept.empty()) return bool_const(!is_or);
  if (kept.size() == 1) return std::move(kept[0]);
  e.args = std::move(kept);
  return e;
}

const TypedExpr& strip_relabel(const TypedExpr& e) {
  if (e.kind == TypedExpr::Kind::kCall && e.form == TypedExpr::Form::kRelabel && e.args.size() == 1)
    return strip_relabel(e.args[0]);
  return e;
}

const TypedExpr& strip_order_keeping_relabel(const TypedExpr& e) {
  const auto is_string = [](TypeId t) { return t == TypeId::kText || t == TypeId::kVarchar; };
  if (e.kind == TypedExpr::Kind::kCall && e.form == TypedExpr::Form::kRelabel &&
      e.args.size() == 1 && is_string(e.type) && is_string(e.args[0].type))
    return strip_order_keeping_relabel(e.args[0]);
  return e;
}

Relids nonnullable_rels(const TypedExpr& e, const VarRel& rel_of, bool top_level) {
  return nonnullable<Relids>(
      e, top_level, [&](uint32_t v) { return Relids(1) << rel_of(v); },
      [](Relids a, Relids b) { return a | b; }, [](Relids a, Relids b) { return a & b; });
}

std::vector<uint32_t> nonnullable_vars(const TypedExpr& e, bool top_level) {
  using Vars = std::vector<uint32_t>;
  return nonnullable<Vars>(
      e, top_level, [](uint32_t v) { return Vars{v}; },
      [](Vars a, const Vars& b) {
        add_unique(a, b);
        return a;
      },
      [](const Vars& a, const Vars& b) { return intersect(a, b); });
}

std::vector<uint32_t> forced_null_vars(const TypedExpr& e) {
  using K = TypedExpr::Kind;
  std::vector<uint32_t> out;
  if (e.kind == K::kAnd) {
    for (const TypedExpr& a : e.args) add_unique(out, forced_null_vars(a));
  } else if (e.kind == K::kIsNull && !e.negated && e.args[0].kind == K::kColumn) {
    out.push_back(e.args[0].slot);
  } else if (e.kind == K::kBoolTest && !e.negated && e.name == "UNKNOWN" &&
             e.args[0].kind == K::kColumn) {
    out.push_back(e.args[0].slot);
  }
  return out;
}

SpecialJoin make_special_join(JoinKind kind, Relids left, Relids right, Relids inner_join_rels,
                              Relids clause_relids, Relids strict_relids,
                              const std::vector<SpecialJoin>& below) {
  SpecialJoin j;
  j.kind = kind;
  j.syn_lefthand = left;
  j.syn_righthand = right;
  if (kind == JoinKind::kFull) {
    j.min_lefthand = left;
    j.min_righthand = right;
    return j;
  }
  j.lhs_strict = (strict_relids & left) != 0;
  j.min_lefthand = clause_relids & left;
  j.min_righthand = (clause_relids | inner_join_rels) & right;
  const bool semi_or_anti = kind == JoinKind::kAnti || kind == JoinKind::kSemi;
  for (const SpecialJoin& o : below) {
    const Relids o_all = o.syn_lefthand | o.syn_righthand;
    if (o.kind == JoinKind::kFull) {
      // A full join below stays whole on whichever side it is.
      if (left & o_all) j.min_lefthand |= o_all;
      if (right & o_all) j.min_righthand |= o_all;
      continue;
    }
    // Below on our left, nullable there: it may go after us only if our clause is strict
    // for a relation of its nullable side (identity 3).
    if ((left & o.syn_righthand) && (clause_relids & o.syn_righthand) &&
        (semi_or_anti || !(strict_relids & o.min_righthand)))
      j.min_lefthand |= o_all;
    // Below on our right: we may go first only as identity 2 allows.
    if ((right & o.syn_righthand) &&
        ((clause_relids & o.syn_righthand) || !(clause_relids & o.min_lefthand) || semi_or_anti ||
         o.kind == JoinKind::kSemi || o.kind == JoinKind::kAnti || !o.lhs_strict ||
         o.delay_upper_joins))
      j.min_righthand |= o_all;
  }
  // A degenerate clause (over one side, or none) still needs a side to join.
  if (j.min_lefthand == 0) j.min_lefthand = left;
  if (j.min_righthand == 0) j.min_righthand = right;
  return j;
}

Relids outer_join_delay(Relids relids, std::vector<SpecialJoin>& joins, bool pushed_down,
                        bool& delayed, Relids* nullable) {
  delayed = false;
  bool grew = true;
  while (grew) {
    grew = false;
    for (SpecialJoin& j : joins) {
      const bool full = j.kind == JoinKind::kFull;
      if (!(relids & j.min_righthand) && !(full && (relids & j.min_lefthand))) continue;
      if (!subset(j.min_lefthand, relids) || !subset(j.min_righthand, relids)) {
        relids |= j.min_lefthand | j.min_righthand;
        delayed = true;
        grew = true;
      }
      if (nullable) *nullable |= j.min_righthand | (full ? j.min_lefthand : 0);
      if (pushed_down && !full && (relids & j.min_lefthand)) j.delay_upper_joins = true;
    }
  }
  return relids;
}

bool join_is_legal(const std::vector<SpecialJoin>& joins, Relids rel1, Relids rel2, int& match,
                   bool& reversed) {
  const Relids joined = rel1 | rel2;
  match = -1;
  reversed = false;
  bool must_be_leftjoin = false;
  for (size_t i = 0; i < joins.size(); ++i) {
    const SpecialJoin& j = joins[i];
    if (!(j.min_righthand & joined) || subset(joined, j.min_righthand)) continue;
    if (subset(j.min_lefthand | j.min_righthand, rel1) ||
        subset(j.min_lefthand | j.min_righthand, rel2))
      continue;  // done inside one input
    // A semi join's right side joined to other relations inside one input was
    // unique-ified there: what is left is an inner join.
    if (j.kind == JoinKind::kSemi && ((subset(j.syn_righthand, rel1) && rel1 != j.syn_righthand) ||
                                      (subset(j.syn_righthand, rel2) && rel2 != j.syn_righthand)))
      continue;
    if (subset(j.min_lefthand, rel1) && subset(j.min_righthand, rel2)) {
      if (match >= 0) return false;
      match = int(i);
      reversed = false;
    } else if (subset(j.min_lefthand, rel2) && subset(j.min_righthand, rel1)) {
      if (match >= 0) return false;
      match = int(i);
      reversed = true;
    } else if (j.kind == JoinKind::kSemi && j.semi_can_unique &&
               (rel2 == j.syn_righthand || rel1 == j.syn_righthand)) {
      // The whole right side, unique-ified, may inner-join anything (even less than
      // the semi join's left side): a semi join's IN list made small first.
      if (match >= 0) return false;
      match = int(i);
      reversed = rel1 == j.syn_righthand;
    } else {
      // Both inputs already inside its right side: a join that finishes building it.
      if ((rel1 & j.min_righthand) && (rel2 & j.min_righthand)) continue;
      // Else it may only join into its right side as a LEFT join of its own.
      if (j.kind != JoinKind::kLeft || (joined & j.min_lefthand)) return false;
      must_be_leftjoin = true;
    }
  }
  if (must_be_leftjoin && (match < 0 || joins[size_t(match)].kind != JoinKind::kLeft ||
                           !joins[size_t(match)].lhs_strict))
    return false;
  return true;
}

bool has_join_restriction(const std::vector<SpecialJoin>& joins, Relids rel) {
  for (const SpecialJoin& j : joins) {
    if (j.kind == JoinKind::kFull) continue;
    if (subset(j.min_lefthand, rel) && subset(j.min_righthand, rel)) continue;
    if ((j.min_lefthand & rel) || (j.min_righthand & rel)) return true;
  }
  return false;
}

bool join_order_restricted(const std::vector<SpecialJoin>& joins, Relids rel1, Relids rel2) {
  for (const SpecialJoin& j : joins) {
    if (j.kind == JoinKind::kFull) continue;
    if (subset(j.min_lefthand, rel1) && subset(j.min_righthand, rel2)) return true;
    if (subset(j.min_lefthand, rel2) && subset(j.min_righthand, rel1)) return true;
    if ((j.min_righthand & rel1) && (j.min_righthand & rel2)) return true;
    if ((j.min_lefthand & rel1) && (j.min_lefthand & rel2)) return true;
  }
  return false;
}

}  // namespace tp
