#include "engine/plan/join_distribute.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace tp {

namespace {

struct Constant {
  uint32_t var;
  const sql::Expr* value;
  bool below_outer_join;
  TypeId type;  // the type `var = value` gave it (an untyped literal takes the var's)
};

// A Join Filter `var = expression` (Distributor::expression_member): the expression
// may join the var's class.
struct ExpressionMember {
  uint32_t var;
  std::unique_ptr<sql::Expr> expr;  // as its relation's restriction writes it
  TypedExpr bound;                  // as the clause compares it
  int rel = 0;                      // the relation it reads
  size_t filter = 0;                // its clause in q.filters
  bool taken = false;               // a class took it: the filter goes
  bool written_first = false;       // the clause's left side (`f(y) = x`)
};

bool contains(const std::vector<uint32_t>& v, uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class Distributor {
 public:
  Distributor(JoinQuery& q, const JoinEqualities& eq, std::vector<uint32_t>& fixed)
      : q_(q), eq_(eq), fixed_(fixed) {
    parent_.resize(q.vars.size());
    std::iota(parent_.begin(), parent_.end(), 0u);
    birth_.assign(q.vars.size(), SIZE_MAX);
  }

  void run(const std::vector<BoundConjunct>& conjuncts, const std::vector<PlacedConjunct>& placed) {
    for (const PlacedConjunct& p : placed) place(conjuncts[p.conjunct], p);
    for (const Constant& k : constants_)
      if (!k.below_outer_join) fixed_.push_back(k.var);
    form_classes();
    constant_expression_members();
    expression_classes();
    drop_taken_filters();
    reconsider_outer_join_clauses();
    order_class_restrictions();
  }

 private:
  // The classes' restrictions in the order PostgreSQL makes the classes: by the first
  // conjunct that equates any member (ON clauses come before the WHERE clause, and an
  // outer join's merge clause makes its sides' classes then), so `cid = 40` of a class
  // an ON clause began comes out before the WHERE's `region = 3`.
  void order_class_restrictions() {
    std::vector<size_t> class_birth(q_.vars.size(), SIZE_MAX);
    for (uint32_t v = 0; v < q_.vars.size(); ++v)
      class_birth[find(v)] = std::min(class_birth[find(v)], birth_[v]);
    for (JoinBaseRel& rel : q_.rels) {
      std::vector<size_t> at;  // the positions of the class sources
      std::vector<std::pair<size_t, const sql::Expr*>> sources;
      for (size_t i = 0; i < rel.restrictions.size(); ++i)
        if (const auto k = eq_.var_constant(*rel.restrictions[i])) {
          at.push_back(i);
          sources.push_back({class_birth[find(k->first)], rel.restrictions[i]});
        }
      std::stable_sort(sources.begin(), sources.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (size_t j = 0; j < at.size(); ++j) rel.restrictions[at[j]] = sources[j].second;
    }
  }

  void note_birth(uint32_t var, size_t conjunct) { birth_[var] = std::min(birth_[var], conjunct); }

  void place(const BoundConjunct& c, const PlacedConjunct& p) {
    const int single = std::has_single_bit(p.relids) ? std::countr_zero(p.relids) : -1;
    if (p.relids == 0 || single >= 0) {
      JoinBaseRel& rel = q_.rels[size_t(single < 0 ? 0 : single)];
      rel.restrictions.push_back(c.expr);
      if (auto k = eq_.var_constant(*c.expr)) {
        note_birth(k->first, p.conjunct);
        rel.constant_columns.push_back(q_.vars[k->first].column);
        if (p.may_equate)
          constants_.push_back({k->first, k->second, p.below_outer_join, q_.vars[k->first].type});
      }
      return;
    }
    need(c.bound, p.relids);
    if (p.may_equate)
      if (auto e = eq_.var_pair(*c.expr)) {
        for (uint32_t v : {e->first, e->second}) {
          note_birth(v, p.conjunct);
          if (!contains(member_order_, v)) member_order_.push_back(v);
          if (p.below_outer_join) below_.push_back(v);
        }
        parent_[find(e->second)] = find(e->first);
        return;
      }
    // An outer join's merge clause makes a class of each side that is a column.
    if (!p.pushed_down && c.bound.kind == TypedExpr::Kind::kCall && c.bound.name == "=" &&
        c.bound.args.size() == 2 && same_merge_family(c.bound.args[0].type, c.bound.args[1].type))
      for (const TypedExpr& side : c.bound.args)
        if (const TypedExpr& v = strip_relabel(side); v.kind == TypedExpr::Kind::kColumn)
          note_birth(v.slot, p.conjunct);
    if (p.may_equate && !p.below_outer_join && std::popcount(p.relids) == 2)
      if (std::optional<ExpressionMember> m = expression_member(c)) {
        m->rel = std::countr_zero(p.relids & ~(Relids(1) << q_.vars[m->var].rel));
        m->filter = q_.filters.size();
        members_.push_back(std::move(*m));
      }
    // A BETWEEN is two clauses to PostgreSQL (its AND flattened into the qual list): each
    // bound may key an index of its own.
    if (c.bound.kind == TypedExpr::Kind::kAnd) {
      for (const TypedExpr& arm : c.bound.args)
        q_.filters.push_back({arm, p.relids, p.pushed_down, p.outer_relids, p.nullable_relids});
      return;
    }
    q_.filters.push_back({c.bound, p.relids, p.pushed_down, p.outer_relids, p.nullable_relids});
  }

  void need(const TypedExpr& e, Relids by) {
    if (e.kind == TypedExpr::Kind::kColumn) q_.vars[e.slot].where_needed |= by;
    for (const TypedExpr& a : e.args) need(a, by);
  }

  uint32_t find(uint32_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }

  // A class's constant, and whether it (or one of its equalities) sits inside an outer
  // join's nullable side: then its members are constant only below that join.
  const Constant* constant_of(uint32_t root) const {
    for (const Constant& k : constants_)
      if (parent_of(k.var) == root) return &k;
    return nullptr;
  }
  uint32_t parent_of(uint32_t v) const {
    while (parent_[v] != v) v = parent_[v];
    return v;
  }

  void form_classes() {
    std::vector<uint32_t> roots;
    for (uint32_t v : member_order_)
      if (!contains(roots, find(v))) roots.push_back(find(v));
    for (uint32_t root : roots) {
      std::vector<uint32_t> members;
      bool below = false;
      for (uint32_t v : member_order_)
        if (find(v) == root) {
          members.push_back(v);
          below = below || contains(below_, v);
        }
      const Constant* constant = constant_of(root);
      if (!constant) {
        // Any two members may be joined: each is needed wherever the class reaches
        // (generate_base_implied_equalities_no_const).
        Relids reach = 0;
        for (uint32_t v : members) reach |= Relids(1) << q_.vars[v].rel;
        for (uint32_t v : members) q_.vars[v].where_needed |= reach;
        q_.classes.push_back({std::move(members), {}, 0});
        continue;
      }
      if (!below && !constant->below_outer_join)
        fixed_.insert(fixed_.end(), members.begin(), members.end());
      q_.constant_classes.push_back({members, {}, 0});
      // A class with a constant gives `member = constant` to every member's relation and
      // joins none of them (generate_base_implied_equalities_const).
      for (uint32_t v : members)
        if (!std::any_of(constants_.begin(), constants_.end(),
                         [&](const Constant& k) { return k.var == v; }))
          restrict_to(v, *constant);
    }
  }

  // A conjunct `x = f(y)` comparing as one type, x a column and f(y) an expression
  // that is no column (PostgreSQL: a class with an expression member): x's var, and
  // f(y) written as its own restriction would be (an implicit cast made explicit).
  std::optional<ExpressionMember> expression_member(const BoundConjunct& c) const {
    const TypedExpr& e = c.bound;
    if (c.expr->kind != sql::ExprKind::kCompare || c.expr->name != "=" ||
        e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2 ||
        c.expr->args.size() != 2 || expr_is_volatile(e))
      return std::nullopt;
    for (size_t side = 0; side < 2; ++side) {
      const TypedExpr& var = e.args[side];
      const TypedExpr& other = e.args[1 - side];
      // Of the var's own type, or real with double precision (float_ops).
      const bool float_pair =
          same_hash_family(other.type, var.type) && !same_btree_family(other.type, var.type);
      if (var.kind != TypedExpr::Kind::kColumn || other.kind == TypedExpr::Kind::kColumn ||
          (other.type != var.type && !float_pair) || other.form == TypedExpr::Form::kRelabel)
        continue;
      std::unique_ptr<sql::Expr> written = eq_.copy(*c.expr->args[1 - side]);
      const bool coerced = other.kind == TypedExpr::Kind::kCall &&
                           other.form == TypedExpr::Form::kCast && !other.explicit_cast;
      if (coerced) written = cast_to(std::move(written), other.type, other.typmod);
      ExpressionMember m;
      m.var = var.slot;
      m.expr = std::move(written);
      m.bound = other;
      m.written_first = side == 1;
      return m;
    }
    return std::nullopt;
  }

  static std::unique_ptr<sql::Expr> cast_to(std::unique_ptr<sql::Expr> e, TypeId type,
                                            int32_t typmod) {
    auto cast = std::make_unique<sql::Expr>(sql::ExprKind::kCast, e->position);
    cast->cast_type = {type, typmod, e->position};
    cast->sval = std::string(type_info(type).pg_name);
    cast->height = e->height + 1;
    cast->args.push_back(std::move(e));
    return cast;
  }

  // generate_base_implied_equalities_const for expression members: a class with a
  // constant gives `f(y) = constant` to y's relation, and the join clause is gone.
  void constant_expression_members() {
    for (ExpressionMember& m : members_) {
      const Constant* k = constant_of(find(m.var));
      if (!k || k->below_outer_join || contains(below_, m.var)) continue;
      auto e = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, 0);
      e->name = "=";
      e->args.push_back(std::move(m.expr));
      e->args.push_back(eq_.copy(*k->value));
      q_.rels[size_t(m.rel)].restrictions.push_back(e.get());
      q_.derived.push_back(std::move(e));
      m.taken = true;
      constant_class_of(m.var).expression_rels |= Relids(1) << m.rel;
    }
  }

  // An expression member in a class without a constant (process_equivalence): `s0.f =
  // (s2.n)::double precision` joins s0.f's class, and two clauses equating one
  // expression (`(s2.k)::numeric = s1.n AND (s2.k)::numeric = x2.n`) make one class. The
  // class then writes the join clauses (s1.n = x2.n among them). A lone `x = f(y)` stays
  // the Join Filter it is (hashed and merged all the same: mark_equi).
  void expression_classes() {
    for (size_t i = 0; i < members_.size(); ++i) {
      ExpressionMember& m = members_[i];
      if (m.taken) continue;
      // One class for the clauses equating one expression, or one var, with others.
      const std::string text = deparse(m.bound);
      std::vector<ExpressionMember*> same{&m};
      for (size_t j = i + 1; j < members_.size(); ++j)
        if (!members_[j].taken && members_[j].bound.type == m.bound.type &&
            (deparse(members_[j].bound) == text || members_[j].var == m.var))
          same.push_back(&members_[j]);
      const bool in_class = std::any_of(same.begin(), same.end(), [&](ExpressionMember* x) {
        return class_index(x->var).has_value();
      });
      if (same.size() < 2 && !in_class) continue;
      const size_t target = merge_classes(same);
      JoinClass& c = q_.classes[target];
      for (ExpressionMember* x : same) {
        x->taken = true;
        const bool known = std::any_of(c.exprs.begin(), c.exprs.end(), [&](const ClassExpr& e) {
          return deparse(e.expr) == deparse(x->bound);
        });
        if (!known) c.exprs.push_back({x->bound, x->rel});
        c.expression_rels |= Relids(1) << x->rel;
      }
      Relids reach = c.expression_rels;
      for (uint32_t v : c.members) reach |= Relids(1) << q_.vars[v].rel;
      for (const ClassExpr& e : c.exprs) need(e.expr, reach);
      for (uint32_t v : c.members) q_.vars[v].where_needed |= reach;
    }
  }

  std::optional<size_t> class_index(uint32_t var) const {
    for (size_t c = 0; c < q_.classes.size(); ++c)
      if (contains(q_.classes[c].members, var)) return c;
    return std::nullopt;
  }

  // One class holding every var of `same` (their classes merged, a lone var added).
  size_t merge_classes(const std::vector<ExpressionMember*>& same) {
    std::optional<size_t> target;
    for (ExpressionMember* x : same)
      if (!target) target = class_index(x->var);
    if (!target) {
      q_.classes.push_back({});
      target = q_.classes.size() - 1;
      q_.classes[*target].expr_first = same[0]->written_first;
    }
    for (ExpressionMember* x : same) {
      const std::optional<size_t> c = class_index(x->var);
      if (!c) {
        q_.classes[*target].members.push_back(x->var);
      } else if (*c != *target) {
        JoinClass merged = std::move(q_.classes[*c]);
        q_.classes.erase(q_.classes.begin() + long(*c));
        if (*c < *target) --*target;
        JoinClass& t = q_.classes[*target];
        t.members.insert(t.members.end(), merged.members.begin(), merged.members.end());
        t.exprs.insert(t.exprs.end(), merged.exprs.begin(), merged.exprs.end());
        t.expression_rels |= merged.expression_rels;
      }
    }
    return *target;
  }

  // The clauses the classes took leave the Join Filters.
  void drop_taken_filters() {
    std::vector<size_t> dropped;
    for (const ExpressionMember& m : members_)
      if (m.taken) dropped.push_back(m.filter);
    std::sort(dropped.rbegin(), dropped.rend());
    for (size_t f : dropped) q_.filters.erase(q_.filters.begin() + long(f));
  }

  JoinClass& constant_class_of(uint32_t v) {
    for (JoinClass& c : q_.constant_classes)
      if (contains(c.members, v)) return c;
    q_.constant_classes.push_back({{v}, {}, 0});
    return q_.constant_classes.back();
  }

  // `member = constant`; a literal keeps the type its own equality gave it, so a
  // timestamptz member of a date's class compares with `'2022-01-26'::date`.
  void restrict_to(uint32_t v, const Constant& k) {
    const QueryVar& var = q_.vars[v];
    auto e = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, 0);
    e->name = "=";
    e->args.push_back(eq_.column_ref(var.rel, var.column));
    std::unique_ptr<sql::Expr> value = eq_.copy(*k.value);
    if (k.value->kind == sql::ExprKind::kStrConst && !same_hash_family(var.type, k.type))
      value = cast_to(std::move(value), k.type, -1);
    e->args.push_back(std::move(value));
    q_.rels[size_t(var.rel)].restrictions.push_back(e.get());
    q_.rels[size_t(var.rel)].constant_columns.push_back(var.column);
    q_.derived.push_back(std::move(e));
  }

  // An outer join's `outer = inner` whose outer var a WHERE constant fixes: the inner
  // var gets that constant as a restriction, and the clause, still checked at the join,
  // no longer counts in its selectivity.
  void reconsider_outer_join_clauses() {
    for (bool changed = true; changed;) {
      changed = false;
      for (JoinFilterClause& f : q_.filters) {
        const TypedExpr& e = f.expr;
        if (f.pushed_down || f.redundant || e.kind != TypedExpr::Kind::kCall || e.name != "=" ||
            e.args.size() != 2)
          continue;
        // The outer side a column, the inner one a column or a cast of one (`s2.t =
        // (s1.c)::text`, which gets `(c)::text = 'common'::text`).
        const auto var_of = [](const TypedExpr& x) -> std::optional<uint32_t> {
          if (x.kind == TypedExpr::Kind::kColumn) return x.slot;
          if (x.kind == TypedExpr::Kind::kCall &&
              (x.form == TypedExpr::Form::kCast || x.form == TypedExpr::Form::kRelabel) &&
              x.args.size() == 1 && x.args[0].kind == TypedExpr::Kind::kColumn)
            return x.args[0].slot;
          return std::nullopt;
        };
        const std::optional<uint32_t> v0 = var_of(e.args[0]), v1 = var_of(e.args[1]);
        if (!v0 || !v1) continue;
        const bool first_outer = f.outer_relids & (Relids(1) << q_.vars[*v0].rel);
        const TypedExpr& outer_side = e.args[first_outer ? 0 : 1];
        const TypedExpr& inner_side = e.args[first_outer ? 1 : 0];
        const uint32_t outer = first_outer ? *v0 : *v1, inner = first_outer ? *v1 : *v0;
        const Relids inner_rel = Relids(1) << q_.vars[inner].rel;
        if (outer_side.kind != TypedExpr::Kind::kColumn ||
            !(f.outer_relids & (Relids(1) << q_.vars[outer].rel)) || (f.outer_relids & inner_rel) ||
            !same_btree_family(q_.vars[outer].type, inner_side.type))
          continue;
        const Constant* k = constant_of(find(outer));
        if (!k) continue;
        // Constant only where the inner side is scanned: above the join it may be NULL.
        if (inner_side.kind == TypedExpr::Kind::kColumn) {
          restrict_to(inner, *k);
          constants_.push_back({inner, k->value, true, k->type});
        } else {
          const QueryVar& var = q_.vars[inner];
          auto eq = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, 0);
          eq->name = "=";
          eq->args.push_back(
              cast_to(eq_.column_ref(var.rel, var.column), inner_side.type, inner_side.typmod));
          eq->args.push_back(eq_.copy(*k->value));
          q_.rels[size_t(var.rel)].restrictions.push_back(eq.get());
          q_.derived.push_back(std::move(eq));
        }
        f.redundant = true;
        changed = true;
      }
    }
  }

  JoinQuery& q_;
  const JoinEqualities& eq_;
  std::vector<uint32_t>& fixed_;
  std::vector<uint32_t> parent_;  // union-find over vars
  std::vector<uint32_t> member_order_;
  std::vector<size_t> birth_;    // per var, the first conjunct equating it (SIZE_MAX: none)
  std::vector<uint32_t> below_;  // vars an equality inside a nullable side names
  std::vector<Constant> constants_;
  std::vector<ExpressionMember> members_;
};

}  // namespace

void distribute_conjuncts(JoinQuery& q, const std::vector<BoundConjunct>& conjuncts,
                          const std::vector<PlacedConjunct>& placed, const JoinEqualities& eq,
                          std::vector<uint32_t>& fixed) {
  Distributor(q, eq, fixed).run(conjuncts, placed);
}

}  // namespace tp
