#include "engine/plan/join_search.h"

#include <algorithm>
#include <bit>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/plan/join_collapse.h"
#include "engine/plan/join_selectivity.h"
#include "engine/plan/outer_joins.h"
#include "engine/plan/param_paths.h"
#include "engine/sql/expr_ops.h"

namespace tp {

namespace {

bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}

bool is_text(TypeId t) {
  return t == TypeId::kText || t == TypeId::kVarchar;
}

}  // namespace

void JoinSearch::to_columns(TypedExpr& e, uint32_t first_var) {
  if (e.kind == TypedExpr::Kind::kColumn) e.slot -= first_var;
  for (TypedExpr& a : e.args) to_columns(a, first_var);
}

JoinSearch::JoinSearch(const PlanContext& ctx, const JoinQuery& q, std::vector<JoinBaseInput> base,
                       std::vector<PathKey> query_pathkeys, bool consider_startup)
    : ctx_(ctx),
      cs_(ctx.settings.costs),
      q_(q),
      base_(std::move(base)),
      query_pathkeys_(std::move(query_pathkeys)),
      consider_startup_(consider_startup) {
  for (uint32_t v = 0; v < q.vars.size(); ++v) var_key_.push_back(q.key_of(v));
  merge_pairs_ = q.outer_join_merge_pairs();
  // The outer join clauses' expression sides and the keys they sort by.
  for (size_t j = 0; j < q.filters.size(); ++j) {
    const TypedExpr& e = q.filters[j].expr;
    if (q.filters[j].pushed_down || e.kind != TypedExpr::Kind::kCall || e.name != "=" ||
        e.form != TypedExpr::Form::kInfix || e.args.size() != 2)
      continue;
    for (size_t a = 0; a < 2; ++a)
      if (strip_order_keeping_relabel(e.args[a]).kind != TypedExpr::Kind::kColumn &&
          q.relids_of(e.args[a]) != 0)
        expression_merge_sides_.push_back({expression_key(e.args[a], kOwnKeys + uint32_t(j)),
                                           q.relids_of(e.args[a]), q.relids_of(e.args[1 - a])});
  }
  consider_parallel_ = ctx.settings.max_parallel_workers_per_gather > 0;
}

uint32_t JoinSearch::key_of(uint32_t var) const {
  return var_key_[var];
}

std::vector<uint32_t> JoinSearch::output_vars(Relids relids) const {
  return q_.output_vars(relids);
}

const JoinRelation& JoinSearch::run() {
  levels_.assign(q_.rels.size() + 1, {});
  for (size_t i = 0; i < q_.rels.size(); ++i) {
    if (q_.is_removed(i)) {
      // Kept in its place (rels_ is indexed by base relation first), joined to nothing.
      index_[Relids(1) << i] = rels_.size();
      JoinRelation removed;
      removed.relids = Relids(1) << i;
      rels_.push_back(std::move(removed));
      continue;
    }
    JoinRelation r;
    r.relids = Relids(1) << i;
    r.rows = base_[i].rows;
    r.width = base_[i].width;
    r.vars = output_vars(r.relids);
    if (base_[i].dummy) mark_dummy(r);
    for (const JoinPathPtr& p : base_[i].paths) {
      auto kept = std::make_shared<JoinPath>(*p);
      kept->pathkeys = useful_pathkeys(r, p->pathkeys);
      add_path(r.paths, std::move(kept), consider_startup_);
    }
    if (consider_parallel_ && !q_.rels[i].lateral) r.partial_paths = base_[i].partial_paths;
    // A LATERAL subquery has only its parameterized path: no cheapest unparameterized one.
    if (!q_.rels[i].lateral && !base_[i].dummy) {
      add_gather_path(r, true);
      set_cheapest(r);
    }
    index_[r.relids] = rels_.size();
    levels_[1].push_back(rels_.size());
    rels_.push_back(std::move(r));
  }
  for (size_t i = 0; i < q_.rels.size(); ++i)
    if (!q_.is_removed(i)) add_param_paths(rels_[i], i);
  const size_t top = size_t(std::popcount(q_.all_rels()));
  for (size_t level = 2; level <= top; ++level) {
    search_level(level);
    for (size_t i : levels_[level]) {
      // The top relation's Gather comes after its target is costed (join_select.cc).
      if (level < top) add_gather_path(rels_[i]);
      set_cheapest(rels_[i]);
    }
  }
  return rels_[index_.at(q_.all_rels())];
}

void JoinSearch::mark_dummy(JoinRelation& r) const {
  auto dummy = std::make_shared<JoinPath>();
  dummy->kind = JoinPath::Kind::kDummy;
  dummy->relids = r.relids;
  dummy->width = r.width;
  r.rows = 0;
  r.paths = {dummy};
  r.param_paths.clear();
  r.partial_paths.clear();
  set_cheapest(r);
}

void JoinSearch::set_cheapest(JoinRelation& r) const {
  if (r.paths.empty()) throw Error("could not devise a query plan for the given query");
  r.cheapest_total = r.paths[0];
  r.cheapest_startup = r.paths[0];
  for (const JoinPathPtr& p : r.paths) {
    const PathCost& c = p->cost;
    const PathCost& t = r.cheapest_total->cost;
    if (c.total < t.total || (c.total == t.total && c.startup < t.startup)) r.cheapest_total = p;
    const PathCost& s = r.cheapest_startup->cost;
    if (c.startup < s.startup || (c.startup == s.startup && c.total < s.total))
      r.cheapest_startup = p;
  }
}

// calc_joinrel_size_estimate: an outer join's own clauses (jselec) apart from the WHERE
// clauses done there (pselec).
double JoinSearch::pair_rows(JoinKind kind, const RestrictList& restrict, double outer_rows,
                             double inner_rows) const {
  double jselec = 1, pselec = 1;
  const bool semi_or_anti = kind == JoinKind::kSemi || kind == JoinKind::kAnti;
  for (const RestrictClause& c : restrict.clauses) {
    if (is_outer_join(kind) && c.pushed_down)
      pselec *= c.selectivity;
    else
      jselec *= semi_or_anti ? c.semi_selectivity : c.selectivity;
  }
  return join_rows(kind, outer_rows, inner_rows, jselec, pselec);
}

void JoinSearch::make_join_rel(size_t r1, size_t r2) {
  int special = -1;
  bool reversed = false;
  if (!join_is_legal(q_.special_joins, rels_[r1].relids, rels_[r2].relids, special, reversed) ||
      !respects_units(q_.subproblems, rels_[r1].relids | rels_[r2].relids) ||
      !lateral_legal(rels_[r1].relids | rels_[r2].relids))
    return;
  if (reversed) std::swap(r1, r2);
  const JoinKind kind = special < 0 ? JoinKind::kInner : q_.special_joins[size_t(special)].kind;
  const Relids joined = rels_[r1].relids | rels_[r2].relids;
  std::shared_ptr<const RestrictList> restrict =
      restrictlist(rels_[r1].relids, rels_[r2].relids, kind);
  auto found = index_.find(joined);
  if (found == index_.end()) {
    // build_join_rel: the size from the first pair that makes the relation.
    JoinRelation j;
    j.relids = joined;
    j.rows = pair_rows(kind, * restrict, rels_[r1].rows, rels_[r2].rows);
    j.vars = output_vars(joined);
    for (uint32_t v : j.vars) j.width += q_.vars[v].width;
    found = index_.emplace(joined, rels_.size()).first;
    levels_[size_t(std::popcount(joined))].push_back(rels_.size());
    rels_.push_back(std::move(j));
  }
  JoinRelation& join = rels_[found->second];
  // An outer join's own clause that is constant FALSE matches nothing: its nullable side
  // is PostgreSQL's dummy relation (mark_dummy_rel), the join keeps every outer row.
  if ((kind == JoinKind::kLeft || kind == JoinKind::kAnti) &&
      (rels_[r2].relids & ~q_.special_joins[size_t(special)].syn_righthand) == 0 &&
      std::any_of(restrict->clauses.begin(), restrict->clauses.end(), [](const RestrictClause& c) {
        return !c.pushed_down && c.expr.kind == TypedExpr::Kind::kConst &&
               c.expr.value.datum() == 0;
      }))
    mark_dummy(rels_[r2]);
  switch (kind) {
    case JoinKind::kLeft:
      add_paths(join, rels_[r1], rels_[r2], restrict, JoinKind::kLeft);
      add_paths(join, rels_[r2], rels_[r1], restrict, JoinKind::kRight);
      break;
    case JoinKind::kFull:
      add_paths(join, rels_[r1], rels_[r2], restrict, JoinKind::kFull);
      add_paths(join, rels_[r2], rels_[r1], restrict, JoinKind::kFull);
      if (join.paths.empty())
        throw Error(
            "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      break;
    case JoinKind::kAnti:
      add_paths(join, rels_[r1], rels_[r2], restrict, kind);  // no right anti join in 15
      break;
    case JoinKind::kSemi: {
      const SpecialJoin& sj = q_.special_joins[size_t(special)];
      if ((sj.min_lefthand & ~rels_[r1].relids) == 0 && (sj.min_righthand & ~rels_[r2].relids) == 0)
        add_paths(join, rels_[r1], rels_[r2], restrict, kind);
      // Or the right side made unique and inner-joined, either way round.
      if (sj.semi_can_unique && rels_[r2].relids == sj.syn_righthand)
        if (JoinPathPtr u = unique_path(rels_[r2], sj)) {
          add_paths(join, rels_[r1], rels_[r2], restrict, JoinKind::kInner, UniqueSide::kInner, u);
          add_paths(join, rels_[r2], rels_[r1], restrict, JoinKind::kInner, UniqueSide::kOuter, u);
        }
      break;
    }
    default:
      add_paths(join, rels_[r1], rels_[r2], restrict, JoinKind::kInner);
      add_paths(join, rels_[r2], rels_[r1], restrict, JoinKind::kInner);
  }
}

// build_joinrel_restrictlist: the Join Filters first evaluable at this join, in the
// order written, then generate_join_implied_equalities' one clause per class with
// members on both sides (rel1's first member = rel2's first member).
std::shared_ptr<const RestrictList> JoinSearch::restrictlist(Relids rel1, Relids rel2,
                                                             JoinKind kind) const {
  auto r = std::make_shared<RestrictList>();
  r->rel1 = rel1;
  r->rel2 = rel2;
  const Relids joined = rel1 | rel2;
  const bool semi_or_anti = kind == JoinKind::kSemi || kind == JoinKind::kAnti;
  const double inner_rows = semi_or_anti ? rels_[index_.at(rel2)].rows : -1;
  for (size_t i = 0; i < q_.filters.size(); ++i) {
    const JoinFilterClause& f = q_.filters[i];
    if ((f.relids & ~joined) || !(f.relids & ~rel1) || !(f.relids & ~rel2)) continue;
    RestrictClause c;
    c.expr = f.expr;
    c.selectivity = f.redundant ? 1.0 : clause_selectivity(f.expr);
    c.semi_selectivity =
        semi_or_anti && !f.redundant ? clause_selectivity(f.expr, rel2, inner_rows) : c.selectivity;
    c.pushed_down = f.pushed_down;
    mark_equi(c, rel1, rel2, kOwnKeys + uint32_t(i));
    // An equality of one type that no outer join holds back is PostgreSQL's equivalence
    // class of two expressions, whose clause it writes rel1's side first.
    if (c.equi && f.pushed_down && f.nullable_relids == 0 &&
        c.expr.args[0].type == c.expr.args[1].type && deparse(c.key1) != deparse(c.expr.args[0]))
      std::swap(c.expr.args[0], c.expr.args[1]);
    r->clauses.push_back(std::move(c));
  }
  for (size_t c = 0; c < q_.classes.size(); ++c) {
    const auto [m1, m2] = class_members(c, rel1, rel2);
    if (!m1 || !m2) {
      // A side with no var of the class joins through an expression member (PostgreSQL
      // prefers vars on both sides: they have statistics and cost nothing).
      if (std::optional<RestrictClause> rc =
              expression_member_clause(uint32_t(c), m1, m2, rel1, rel2, semi_or_anti, inner_rows))
        r->clauses.push_back(std::move(*rc));
      continue;
    }
    const QueryVar& a = q_.vars[*m1];
    const QueryVar& b = q_.vars[*m2];
    RestrictClause rc;
    rc.expr = q_.var_equality(*m1, *m2);
    // Integers of two widths compare as int8, varchar and text as text, the rest as the
    // operator's common type (double precision, timestamp or timestamptz).
    const TypeId cmp = a.type == b.type                           ? a.type
                       : is_text(a.type) && is_text(b.type)       ? TypeId::kText
                       : is_integer(a.type) && is_integer(b.type) ? TypeId::kInt8
                                                                  : rc.expr.compare_as;
    rc.selectivity = eqjoinsel(join_var(*m1), join_var(*m2), JoinKind::kInner, cmp);
    rc.semi_selectivity =
        semi_or_anti ? eqjoinsel(join_var(*m1), join_var(*m2), JoinKind::kSemi, cmp, inner_rows)
                     : rc.selectivity;
    if (!same_btree_family(a.type, b.type)) {
      // real = double precision, date = timestamptz: each side hashed (if its family
      // hashes across types) and sorted as the common type.
      rc.pushed_down = true;
      mark_equi(rc, rel1, rel2, uint32_t(c));
    } else {
      rc.equi = true;
      rc.key1 = rc.exec1 = rc.expr.args[0];
      rc.key2 = rc.exec2 = rc.expr.args[1];
      rc.key = rc.key_b = uint32_t(c);
    }
    r->clauses.push_back(std::move(rc));
  }
  return r;
}

// generate_join_implied_equalities_normal's pair of members, each a var of one side: the
// first whose operator hashes (two dates before a date and a timestamptz), else the
// first of each side.
std::pair<std::optional<uint32_t>, std::optional<uint32_t>> JoinSearch::class_members(
    size_t c, Relids rel1, Relids rel2) const {
  const auto in = [&](uint32_t v, Relids rels) { return (rels & (Relids(1) << q_.vars[v].rel)); };
  std::optional<uint32_t> m1, m2;
  for (uint32_t v : q_.classes[c].members) {
    if (in(v, rel1) && !m1) m1 = v;
    if (in(v, rel2) && !m2) m2 = v;
  }
  if (!m1 || !m2 || same_hash_family(q_.vars[*m1].type, q_.vars[*m2].type)) return {m1, m2};
  for (uint32_t v1 : q_.classes[c].members)
    for (uint32_t v2 : q_.classes[c].members)
      if (in(v1, rel1) && in(v2, rel2) && same_hash_family(q_.vars[v1].type, q_.vars[v2].type))
        return {v1, v2};
  return {m1, m2};
}

// generate_join_implied_equalities over an expression member: `m1 = m2`, each side a
// var of the class or an expression member of that side's relations.
std::optional<RestrictClause> JoinSearch::expression_member_clause(
    uint32_t c, std::optional<uint32_t> m1, std::optional<uint32_t> m2, Relids rel1, Relids rel2,
    bool semi_or_anti, double inner_rows) const {
  const JoinClass& jc = q_.classes[c];
  auto side = [&](std::optional<uint32_t> var, Relids rels) -> std::optional<TypedExpr> {
    if (var) return q_.var_expr(*var);
    for (const ClassExpr& e : jc.exprs)
      if (rels & (Relids(1) << e.rel)) return e.expr;
    return std::nullopt;
  };
  std::optional<TypedExpr> a = side(m1, rel1), b = side(m2, rel2);
  if (!a || !b) return std::nullopt;
  RestrictClause rc;
  rc.expr = q_.member_equality(std::move(*a), std::move(*b));
  rc.selectivity = clause_selectivity(rc.expr);
  rc.semi_selectivity =
      semi_or_anti ? clause_selectivity(rc.expr, rel2, inner_rows) : rc.selectivity;
  rc.pushed_down = true;
  mark_equi(rc, rel1, rel2, c);
  if (!rc.equi) return std::nullopt;
  rc.key = rc.key_b = c;
  return rc;
}

// A Join Filter `f(a) = g(b)` whose sides read one side of the pair each and compare as
// the same type (integers of any width alike) is a hash and merge clause too, keyed on
// its two expressions (PostgreSQL's mergejoinable and hashjoinable operators).
void JoinSearch::mark_equi(RestrictClause& c, Relids rel1, Relids rel2, uint32_t key) const {
  const TypedExpr& e = c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || e.name != "=" ||
      e.args.size() != 2)
    return;
  const TypeId t0 = e.args[0].type, t1 = e.args[1].type;
  const Relids r0 = q_.relids_of(e.args[0]), r1 = q_.relids_of(e.args[1]);
  if (r0 == 0 || r1 == 0) return;
  // Two types the operator compares as a third (float4 = float8, date = timestamptz):
  // each side as that type, as PostgreSQL's cross-type operator families hash and sort.
  TypedExpr x0 = e.args[0], x1 = e.args[1];
  if (t0 != t1 && !(is_integer(t0) && is_integer(t1))) {
    if (!expr::can_coerce(t0, e.compare_as, expr::CoercionContext::kImplicit) ||
        !expr::can_coerce(t1, e.compare_as, expr::CoercionContext::kImplicit))
      return;
    if (t0 != e.compare_as) x0 = expr::coerce_implicitly(std::move(x0), e.compare_as, -1);
    if (t1 != e.compare_as) x1 = expr::coerce_implicitly(std::move(x1), e.compare_as, -1);
    // PostgreSQL's hash families across types: the integers, and float4 with float8.
    auto is_float = [](TypeId t) { return t == TypeId::kFloat4 || t == TypeId::kFloat8; };
    c.hashable = is_float(t0) && is_float(t1);
  }
  if ((r0 & ~rel1) == 0 && (r1 & ~rel2) == 0) {
    c.key1 = e.args[0];
    c.key2 = e.args[1];
    c.exec1 = std::move(x0);
    c.exec2 = std::move(x1);
  } else if ((r0 & ~rel2) == 0 && (r1 & ~rel1) == 0) {
    c.key1 = e.args[1];
    c.key2 = e.args[0];
    c.exec1 = std::move(x1);
    c.exec2 = std::move(x0);
  } else {
    return;
  }
  c.equi = true;
  c.key = c.key_b = key;
  // An outer join's `a.x = b.y` of one family sorts each side by its var's own order
  // (the class it is in, if any), which a side a constant fixes has none of.
  // (A side that is an expression keeps the clause's own key.)
  const TypedExpr& v1 = strip_order_keeping_relabel(c.key1);
  const TypedExpr& v2 = strip_order_keeping_relabel(c.key2);
  // A WHERE's (or inner ON's) cross-type equality of one family, no equivalence class
  // here, is one to PostgreSQL: its sides sort by their vars' orders too (an index on
  // either side is a merge input).
  const bool cross_type = c.pushed_down && c.key1.type != c.key2.type;
  // One of one type with an expression side (`s1.n = (s0.k)::numeric`): PostgreSQL's
  // class holds both, so either side sorts as the column's var (ORDER BY s1.n is met by
  // a merge join with either outer side).
  const bool expression_side =
      c.pushed_down && !cross_type &&
      (v1.kind == TypedExpr::Kind::kColumn) != (v2.kind == TypedExpr::Kind::kColumn);
  if (expression_side)
    c.key = c.key_b = q_.key_of((v1.kind == TypedExpr::Kind::kColumn ? v1 : v2).slot);
  if ((!c.pushed_down && same_merge_family(c.key1.type, c.key2.type)) ||
      (cross_type && same_merge_family(c.key1.type, c.key2.type)) || expression_side) {
    c.key =
        v1.kind == TypedExpr::Kind::kColumn ? q_.key_of(v1.slot) : expression_key(c.key1, c.key);
    c.key_b =
        v2.kind == TypedExpr::Kind::kColumn ? q_.key_of(v2.slot) : expression_key(c.key2, c.key_b);
    c.mergeable = !(v1.kind == TypedExpr::Kind::kColumn && q_.is_fixed(v1.slot)) &&
                  !(v2.kind == TypedExpr::Kind::kColumn && q_.is_fixed(v2.slot));
  }
}

// An outer join clause's expression side sorts as the same expression elsewhere does
// (initialize_mergeclause_eclasses finds its canonical class): a class holding it, an
// inner join's `var = expression` (whose class it would be), else the first outer join
// clause comparing it.
uint32_t JoinSearch::expression_key(const TypedExpr& side, uint32_t own) const {
  const std::string text = deparse(side);
  for (size_t c = 0; c < q_.classes.size(); ++c)
    for (const ClassExpr& e : q_.classes[c].exprs)
      if (e.expr.type == side.type && deparse(e.expr) == text) return uint32_t(c);
  std::optional<uint32_t> earlier;
  for (size_t j = 0; j < q_.filters.size(); ++j) {
    const TypedExpr& e = q_.filters[j].expr;
    if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || e.name != "=" ||
        e.args.size() != 2 || e.args[0].type != e.args[1].type)
      continue;
    for (size_t a = 0; a < 2; ++a) {
      if (e.args[a].type != side.type || deparse(e.args[a]) != text) continue;
      const TypedExpr& other = strip_order_keeping_relabel(e.args[1 - a]);
      if (q_.filters[j].pushed_down && other.kind == TypedExpr::Kind::kColumn)
        return q_.key_of(other.slot);
      if (!q_.filters[j].pushed_down && !earlier && kOwnKeys + j < own)
        earlier = kOwnKeys + uint32_t(j);
    }
  }
  return earlier.value_or(own);
}

const TypedExpr& JoinSearch::side_key(const RestrictClause& c, Relids side) const {
  return (q_.relids_of(c.key1) & ~side) == 0 ? c.key1 : c.key2;
}

::tp::JoinVar JoinSearch::join_var(uint32_t var) const {
  const QueryVar& v = q_.vars[var];
  const JoinBaseInput& b = base_[size_t(v.rel)];
  ::tp::JoinVar j;
  j.type = v.type;
  j.tuples = b.tuples;
  j.rows = b.rows;
  if (b.view && size_t(v.column) < b.view->columns.size()) {
    j.stats = b.view->columns[size_t(v.column)].stats;
    j.unique = b.view->columns[size_t(v.column)].unique;
  }
  return j;
}

// clause_selectivity for a Join Filter: PostgreSQL's join estimators for the
// comparisons (eqjoinsel over the two sides, with statistics where a side is one
// column; 1/3 for an inequality), AND and OR combined as independent, 1/3 for any other
// boolean expression (no estimator).
double JoinSearch::clause_selectivity(const TypedExpr& e, Relids semi_inner,
                                      double inner_rows) const {
  using K = TypedExpr::Kind;
  if (e.kind == K::kConst && e.type == TypeId::kBool) return !e.isnull && e.value.datum() != 0;
  // A part over one table is a restriction there, estimated with its statistics.
  if (const Relids rels = q_.relids_of(e); std::has_single_bit(rels)) {
    const size_t rel = size_t(std::countr_zero(rels));
    if (base_[rel].view) {
      TypedExpr local = e;
      to_columns(local, q_.rels[rel].first_var);
      return tp::clause_selectivity(*base_[rel].view, Clause::expression(std::move(local)));
    }
  }
  if (e.kind == K::kAnd) {
    double s = 1;
    for (const TypedExpr& a : e.args) s *= clause_selectivity(a, semi_inner, inner_rows);
    return s;
  }
  if (e.kind == K::kOr) {
    double s = 0;
    for (const TypedExpr& a : e.args) {
      const double t = clause_selectivity(a, semi_inner, inner_rows);
      s = s + t - s * t;
    }
    return s;
  }
  if (e.kind == K::kNot) return 1 - clause_selectivity(e.args[0], semi_inner, inner_rows);
  if (e.kind == K::kCall && e.form == TypedExpr::Form::kInfix && e.args.size() == 2 &&
      (e.name == "=" || e.name == "<>")) {
    auto side = [&](const TypedExpr& x) {
      const TypedExpr& a = strip_relabel(x);
      if (a.kind == K::kColumn) return join_var(a.slot);
      // An expression has no statistics, but one over a single table has its size
      // (examine_variable's vardata->rel), which get_variable_numdistinct reads.
      ::tp::JoinVar j;
      j.type = a.type;
      if (const Relids r = q_.relids_of(a); std::has_single_bit(r)) {
        const JoinBaseInput& b = base_[size_t(std::countr_zero(r))];
        j.tuples = b.tuples;
        j.rows = b.rows;
      }
      return j;
    };
    // An anti join's estimators read the outer side first.
    const bool swap = semi_inner != 0 && (q_.relids_of(e.args[0]) & ~semi_inner) == 0;
    const ::tp::JoinVar l = side(e.args[swap ? 1 : 0]);
    const ::tp::JoinVar r = side(e.args[swap ? 0 : 1]);
    const JoinKind kind = semi_inner != 0 ? JoinKind::kAnti : JoinKind::kInner;
    return e.name == "=" ? eqjoinsel(l, r, kind, e.compare_as, inner_rows)
                         : neqjoinsel(l, r, kind, e.compare_as, inner_rows);
  }
  return ineqjoinsel();
}

}  // namespace tp
