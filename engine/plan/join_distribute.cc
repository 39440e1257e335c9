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
};

// A Join Filter `var = expression` (JoinEqualities::var_expression): the expression
// joins the var's class.
struct ExpressionMember {
  uint32_t var;
  std::unique_ptr<sql::Expr> expr;
  int rel;        // the relation it reads
  size_t filter;  // its clause in q.filters
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
  }

  void run(const std::vector<BoundConjunct>& conjuncts, const std::vector<PlacedConjunct>& placed) {
    for (const PlacedConjunct& p : placed) place(conjuncts[p.conjunct], p);
    for (const Constant& k : constants_)
      if (!k.below_outer_join) fixed_.push_back(k.var);
    form_classes();
    constant_expression_members();
    reconsider_outer_join_clauses();
  }

 private:
  void place(const BoundConjunct& c, const PlacedConjunct& p) {
    const int single = std::has_single_bit(p.relids) ? std::countr_zero(p.relids) : -1;
    if (p.relids == 0 || single >= 0) {
      JoinBaseRel& rel = q_.rels[size_t(single < 0 ? 0 : single)];
      rel.restrictions.push_back(c.expr);
      if (auto k = eq_.var_constant(*c.expr)) {
        rel.constant_columns.push_back(q_.vars[k->first].column);
        if (p.may_equate) constants_.push_back({k->first, k->second, p.below_outer_join});
      }
      return;
    }
    need(c.bound, p.relids);
    if (p.may_equate)
      if (auto e = eq_.var_pair(*c.expr)) {
        for (uint32_t v : {e->first, e->second}) {
          if (!contains(member_order_, v)) member_order_.push_back(v);
          if (p.below_outer_join) below_.push_back(v);
        }
        parent_[find(e->second)] = find(e->first);
        return;
      }
    if (p.may_equate && !p.below_outer_join && std::popcount(p.relids) == 2)
      if (auto m = expression_member(c)) {
        const int other = std::countr_zero(p.relids & ~(Relids(1) << q_.vars[m->first].rel));
        members_.push_back({m->first, std::move(m->second), other, q_.filters.size()});
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
        q_.classes.push_back({std::move(members)});
        continue;
      }
      if (!below && !constant->below_outer_join)
        fixed_.insert(fixed_.end(), members.begin(), members.end());
      q_.constant_classes.push_back({members});
      // A class with a constant gives `member = constant` to every member's relation and
      // joins none of them (generate_base_implied_equalities_const).
      for (uint32_t v : members)
        if (!std::any_of(constants_.begin(), constants_.end(),
                         [&](const Constant& k) { return k.var == v; }))
          restrict_to(v, *constant->value);
    }
  }

  // A conjunct `x = f(y)` comparing as one type, x a column and f(y) an expression
  // that is no column (PostgreSQL: a class with an expression member): x's var, and
  // f(y) written as its own restriction would be (an implicit cast made explicit).
  std::optional<std::pair<uint32_t, std::unique_ptr<sql::Expr>>> expression_member(
      const BoundConjunct& c) const {
    const TypedExpr& e = c.bound;
    if (c.expr->kind != sql::ExprKind::kCompare || c.expr->name != "=" ||
        e.kind != TypedExpr::Kind::kCall || e.name != "=" || e.args.size() != 2 ||
        c.expr->args.size() != 2 || expr_is_volatile(e))
      return std::nullopt;
    for (size_t side = 0; side < 2; ++side) {
      const TypedExpr& var = e.args[side];
      const TypedExpr& other = e.args[1 - side];
      if (var.kind != TypedExpr::Kind::kColumn || other.kind == TypedExpr::Kind::kColumn ||
          other.type != var.type || other.form == TypedExpr::Form::kRelabel)
        continue;
      std::unique_ptr<sql::Expr> written = eq_.copy(*c.expr->args[1 - side]);
      const bool coerced = other.kind == TypedExpr::Kind::kCall &&
                           other.form == TypedExpr::Form::kCast && !other.explicit_cast;
      if (coerced) written = cast_to(std::move(written), other.type, other.typmod);
      return std::pair{var.slot, std::move(written)};
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
    std::vector<size_t> dropped;
    for (ExpressionMember& m : members_) {
      const Constant* k = constant_of(find(m.var));
      if (!k || k->below_outer_join || contains(below_, m.var)) continue;
      auto e = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, 0);
      e->name = "=";
      e->args.push_back(std::move(m.expr));
      e->args.push_back(eq_.copy(*k->value));
      q_.rels[size_t(m.rel)].restrictions.push_back(e.get());
      q_.derived.push_back(std::move(e));
      dropped.push_back(m.filter);
      constant_class_of(m.var).expression_rels |= Relids(1) << m.rel;
    }
    std::sort(dropped.rbegin(), dropped.rend());
    for (size_t f : dropped) q_.filters.erase(q_.filters.begin() + long(f));
  }

  JoinClass& constant_class_of(uint32_t v) {
    for (JoinClass& c : q_.constant_classes)
      if (contains(c.members, v)) return c;
    q_.constant_classes.push_back({{v}});
    return q_.constant_classes.back();
  }

  void restrict_to(uint32_t v, const sql::Expr& value) {
    const QueryVar& var = q_.vars[v];
    auto e = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, 0);
    e->name = "=";
    e->args.push_back(eq_.column_ref(var.rel, var.column));
    e->args.push_back(eq_.copy(value));
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
            e.args.size() != 2 || e.args[0].kind != TypedExpr::Kind::kColumn ||
            e.args[1].kind != TypedExpr::Kind::kColumn)
          continue;
        const bool first_outer = f.outer_relids & (Relids(1) << q_.vars[e.args[0].slot].rel);
        const uint32_t outer = e.args[first_outer ? 0 : 1].slot;
        const uint32_t inner = e.args[first_outer ? 1 : 0].slot;
        const Relids inner_rel = Relids(1) << q_.vars[inner].rel;
        if (!(f.outer_relids & (Relids(1) << q_.vars[outer].rel)) || (f.outer_relids & inner_rel) ||
            !same_btree_family(q_.vars[outer].type, q_.vars[inner].type))
          continue;
        const Constant* k = constant_of(find(outer));
        if (!k) continue;
        // Constant only where the inner side is scanned: above the join it may be NULL.
        restrict_to(inner, *k->value);
        constants_.push_back({inner, k->value, true});
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
