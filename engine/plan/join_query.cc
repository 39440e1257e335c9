#include "engine/plan/join_query.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/grouping_bind.h"
#include "engine/plan/join_collapse.h"
#include "engine/plan/join_distinct.h"
#include "engine/plan/join_distribute.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/join_grouping.h"
#include "engine/plan/join_removal.h"
#include "engine/plan/join_star.h"
#include "engine/plan/join_sublinks.h"
#include "engine/plan/lateral.h"
#include "engine/plan/outer_joins.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/select_list.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"
#include "engine/storage/table_stats.h"

namespace tp {
namespace {

bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}

using Resolved = RelColumn;

class JoinBinder {
 public:
  JoinBinder(PlanContext& ctx, const sql::Select& s) : ctx_(ctx), s_(s) {}

  JoinQuery bind() {
    refuse_unbuilt();
    JoinTreeNode tree = collect(*s_.from);
    scope_ = tree.relids;
    std::vector<const sql::Expr*> where_exprs;
    split_and(s_.where.get(), where_exprs);
    std::vector<const sql::Expr*> plain;
    for (const sql::Expr* e : where_exprs) {
      if (is_sublink_conjunct(*e))
        tree = pull_up_sublink(std::move(tree), *e, scope_, hooks());
      else
        plain.push_back(e);
    }
    if (q_.rels.size() > kMaxJoinRels)
      throw not_supported("a join of more than " + std::to_string(kMaxJoinRels) + " tables",
                          s_.from->position);
    add_vars();
    std::vector<size_t> where;
    for (const sql::Expr* e : plain) add_where(qualified(*e, scope_), where);
    if (is_grouped()) {
      bind_grouping(where);
    } else {
      bind_targets();
      bind_order();
    }
    for (BoundConjunct& c : conjuncts_) bind_conjunct(c);
    q_.derived.push_back(std::make_unique<sql::Expr>(sql::ExprKind::kBoolConst, 0));
    collapse_false_lists(tree, conjuncts_, qual_lists_, q_.derived.back().get());
    q_.gating = take_gating_conjuncts(conjuncts_, where);
    for (size_t i : where)
      if (conjuncts_[i].bound.kind == TypedExpr::Kind::kConst &&
          conjuncts_[i].bound.value.datum() == 0) {
        q_.where_false = true;
        // canonicalize_qual: the WHERE is that FALSE alone; its other conjuncts make no
        // class and fix no column (an ORDER BY over one still sorts).
        where = {i};
        break;
      }
    const VarRel rel_of = [this](uint32_t v) { return q_.vars[v].rel; };
    reduce_outer_joins(tree, conjuncts_, where, rel_of);
    q_.subproblems = join_subproblems(tree, ctx_.settings, s_.from->position).units;
    JoinEqualities eq;
    eq.var_pair = [this](const sql::Expr& e) { return class_equality(e); };
    eq.var_constant = [this](const sql::Expr& e) { return constant_equality(e); };
    eq.column_ref = [this](int rel, int column) { return column_ref({rel, column}); };
    eq.copy = [](const sql::Expr& e) { return copy_expr(e); };
    distribute_conjuncts(q_, conjuncts_,
                         deconstruct_join_tree(tree, conjuncts_, where, rel_of, q_.special_joins),
                         eq, fixed_);
    remove_useless_joins(q_, ctx_);
    for (Relids& unit : q_.subproblems) unit &= q_.all_rels();
    q_.fixed = fixed_;
    drop_redundant_order_keys(q_, s_.distinct);
    q_.limit = s_.limit;
    q_.offset = s_.offset.value_or(0);
    return std::move(q_);
  }

 private:
  void refuse_unbuilt() {
    if (!s_.distinct_on.empty())
      throw not_supported("SELECT DISTINCT ON over a join", s_.from->position);
    if (s_.distinct && is_grouped())
      throw not_supported("SELECT DISTINCT over a join's groups or aggregates", s_.from->position);
  }

  bool is_grouped() const {
    return !s_.group_by.empty() || s_.having ||
           std::any_of(s_.targets.begin(), s_.targets.end(),
                       [](const sql::Target& t) { return calls_aggregate(*t.expr); }) ||
           std::any_of(s_.order_by.begin(), s_.order_by.end(),
                       [](const sql::OrderItem& o) { return calls_aggregate(*o.expr); });
  }

  // The join tree of `f` (relations in FROM order), with each join's ON / USING
  // conjuncts, each checked to read only the relations of its join.
  JoinTreeNode collect(const sql::FromItem& f) {
    check_stack_depth();
    JoinTreeNode node;
    if (!f.is_join()) {
      if (f.is_function) throw not_supported("a function in a join", f.position);
      add_rel(f);
      node.rel = int(q_.rels.size() - 1);
      node.relids = Relids(1) << node.rel;
      add_pulled_quals(node, f);
      return node;
    }
    node.kind = join_kind_of(f.join);
    node.comma = f.join == sql::JoinKind::kComma;
    if (node.kind == JoinKind::kFull && !f.using_columns.empty())
      throw not_supported("FULL JOIN with USING", f.position);
    node.left = std::make_unique<JoinTreeNode>(collect(f.sides[0]));
    node.right = std::make_unique<JoinTreeNode>(collect(f.sides[1]));
    const Relids left = node.left->relids, right = node.right->relids;
    node.relids = left | right;
    const size_t first_on = conjuncts_.size();
    if (f.on) {
      std::vector<const sql::Expr*> on;
      split_and(f.on.get(), on);
      if (calls_aggregate(*f.on))
        throw Error("aggregate functions are not allowed in JOIN conditions")
            .at_position(f.on->position)
            .with_sqlstate(sqlstate::kGroupingError);
      for (const sql::Expr* e : on) {
        const sql::Expr* q = qualified(*e, node.relids);
        add_conjunct(node, q, relids_of(*q, node.relids));
      }
    }
    for (const std::string& name : f.using_columns) {
      const Resolved l = resolve_using(name, left, f.position, "left");
      const Resolved r = resolve_using(name, right, f.position, "right");
      // The merged column is the left one's, a RIGHT join's the right one's.
      using_joins_.push_back({name, node.relids, node.kind == JoinKind::kRight ? r : l});
      auto eq = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, f.position);
      eq->name = "=";
      eq->args.push_back(column_ref(l));
      eq->args.push_back(column_ref(r));
      add_conjunct(node, eq.get(), (Relids(1) << l.rel) | (Relids(1) << r.rel));
      q_.derived.push_back(std::move(eq));
    }
    qual_lists_.emplace_back(first_on, conjuncts_.size());
    add_pulled_quals(node, f);
    return node;
  }

  // A pulled-up subquery's WHERE (engine/plan/from_subqueries.h), after the ON clause of
  // the join it stood in place of, as deconstruct_jointree meets its FromExpr's quals.
  void add_pulled_quals(JoinTreeNode& node, const sql::FromItem& f) {
    std::vector<const sql::Expr*> quals;
    split_and(f.pulled_quals.get(), quals);
    qual_lists_.emplace_back(conjuncts_.size(), conjuncts_.size() + quals.size());
    const bool outer = node.kind != JoinKind::kInner;  // over an outer join: a FromExpr's
    for (const sql::Expr* e : quals) {
      const sql::Expr* q = qualified(*e, node.relids);
      add_conjunct(node, q, relids_of(*q, node.relids));
      if (outer) {
        node.upper_quals.push_back(node.quals.back());
        node.quals.pop_back();
      }
    }
  }

  // A conjunct folded to FALSE or NULL filters like a constant FALSE over no relation
  // (TRUE is left to be dropped).
  void bind_conjunct(BoundConjunct& c) {
    c.bound = fold_qual_constants(bind_condition(*c.expr, lookup(q_.all_rels()), "WHERE"));
    drop_false_or_arms(c);
    const TypedExpr& b = c.bound;
    if (b.kind != TypedExpr::Kind::kConst || (!b.isnull && b.value.datum() != 0)) return;
    // A NULL alone is shown as one (`One-Time Filter: NULL::boolean`).
    auto f = std::make_unique<sql::Expr>(
        b.isnull ? sql::ExprKind::kNullConst : sql::ExprKind::kBoolConst, c.expr->position);
    f->ival = 0;
    c.expr = f.get();
    c.relids = 0;
    c.bound.isnull = false;
    q_.derived.push_back(std::move(f));
  }

  std::function<TypedExpr(const sql::Expr&)> bind_qual() const {
    return [this](const sql::Expr& e) { return bind_condition(e, lookup(q_.all_rels()), "WHERE"); };
  }

  // find_duplicate_ors: an OR's arms that fold to FALSE or NULL drop out of a qual; the
  // conjunct then reads fewer relations and is placed as one over those
  // (`s2.d IN (...) OR s3.k <> NULL` is a restriction of s2).
  void drop_false_or_arms(BoundConjunct& c) {
    if (c.expr->kind != sql::ExprKind::kOr || c.bound.kind == TypedExpr::Kind::kConst) return;
    const Relids now = q_.relids_of(c.bound);
    if (now == c.relids) return;
    std::unique_ptr<sql::Expr> kept = without_false_or_arms(*c.expr, bind_qual());
    if (!kept) return;
    c.expr = kept.get();
    c.relids = now;
    q_.derived.push_back(std::move(kept));
  }

  void add_conjunct(JoinTreeNode& node, const sql::Expr* e, Relids relids) {
    node.quals.push_back(conjuncts_.size());
    conjuncts_.push_back({e, {}, relids});
  }

  // A copy of `e` whose column references name their tables (resolved in `scope`, then
  // in `outer`), so that it binds the same anywhere in the query.
  const sql::Expr* qualified(const sql::Expr& e, Relids scope, Relids outer = 0,
                             bool* correlated = nullptr) {
    const std::function<std::string(const sql::Expr&)> name = [&](const sql::Expr& ref) {
      const Resolved r = resolve_nested(ref, scope, outer);
      if (correlated && !(scope & (Relids(1) << r.rel))) *correlated = true;
      return q_.rels[size_t(r.rel)].refname;
    };
    q_.derived.push_back(copy_expr(e, &name));
    return q_.derived.back().get();
  }

  // A subquery's name: its own tables first, then the query's around it.
  Resolved resolve_nested(const sql::Expr& ref, Relids scope, Relids outer) const {
    if (outer == 0) return resolve(ref, scope);
    const int rel = ref.qualifier.empty() ? -1 : rel_named(q_, ref.qualifier);
    const bool inner = ref.qualifier.empty() ? !matches(ref.name, scope).empty()
                                             : rel >= 0 && (scope & (Relids(1) << rel));
    return resolve(ref, inner ? scope : outer);
  }

  SublinkHooks hooks() {
    SublinkHooks h;
    h.collect = [this](const sql::FromItem& f) {
      in_subquery_ = true;
      JoinTreeNode n = collect(f);
      in_subquery_ = false;
      return n;
    };
    h.qualify = [this](const sql::Expr& e, Relids inner, Relids outer, bool& correlated) {
      return qualified(e, inner, outer, &correlated);
    };
    h.add_quals = [this](JoinTreeNode& node, const std::vector<const sql::Expr*>& quals) {
      // One list: a FALSE or NULL among them makes the join's whole condition FALSE.
      qual_lists_.emplace_back(conjuncts_.size(), conjuncts_.size() + quals.size());
      for (const sql::Expr* e : quals) add_conjunct(node, e, relids_of(*e, node.relids));
    };
    return h;
  }

  void add_rel(const sql::FromItem& f) {
    JoinBaseRel r;
    if (f.lateral) {
      r.lateral_outer = rel_named(q_, f.lateral_outer);
      if (r.lateral_outer < 0) throw not_supported("a LATERAL subquery here", f.position);
      const JoinBaseRel& outer = q_.rels[size_t(r.lateral_outer)];
      r.lateral = plan_lateral(ctx_, f, *outer.rel, outer.refname);
      r.rel = &r.lateral->entry;
      r.refname = f.alias;
      r.prefix = sql::quote_identifier(r.refname) + ".";
      q_.rels.push_back(std::move(r));
      return;
    }
    r.rel = &find_table_item(ctx_, f);
    r.refname = f.alias.empty() ? f.name : f.alias;
    if (!f.alias.empty() && f.alias != r.rel->name) r.alias = f.alias;
    if (!f.column_aliases.empty()) throw not_supported("column aliases in a join", f.position);
    for (const JoinBaseRel& o : q_.rels)
      if (o.refname == r.refname && in_subquery_)
        throw not_supported("a subquery's table named as one outside it", f.position);
      else if (o.refname == r.refname)
        throw Error("table name " + quoted(r.refname) + " specified more than once")
            .at_position(f.position)
            .with_sqlstate(sqlstate::kDuplicateAlias);
    r.prefix = sql::quote_identifier(r.refname) + ".";
    q_.rels.push_back(std::move(r));
  }

  void add_vars() {
    for (size_t i = 0; i < q_.rels.size(); ++i) {
      JoinBaseRel& r = q_.rels[i];
      r.first_var = uint32_t(q_.vars.size());
      const std::optional<TableStats> stats =
          r.rel->stats.empty() ? std::nullopt : std::optional(stats_from_catalog(r.rel->stats));
      for (size_t c = 0; c < r.rel->columns.size(); ++c) {
        const Column& col = r.rel->columns[c];
        q_.vars.push_back(
            {int(i), int(c), col.type, col.typmod,
             r.lateral ? r.lateral->widths[c] : column_width(*r.rel, c, stats ? &*stats : nullptr),
             0});
      }
    }
    // A LATERAL subquery's references: its outer relation returns them to the join.
    for (size_t i = 0; i < q_.rels.size(); ++i)
      if (q_.rels[i].lateral)
        for (int c : q_.rels[i].lateral->outer_columns)
          q_.vars[q_.var_of(q_.rels[i].lateral_outer, c)].where_needed |= Relids(1) << i;
  }

  std::unique_ptr<sql::Expr> column_ref(const Resolved& r) const {
    auto e = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, 0);
    e->qualifier = q_.rels[size_t(r.rel)].refname;
    e->name = q_.rels[size_t(r.rel)].rel->columns[size_t(r.column)].name;
    return e;
  }

  int column_of(int rel, const std::string& name) const {
    const auto& cols = q_.rels[size_t(rel)].rel->columns;
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c].name == name) return int(c);
    return -1;
  }

  Resolved resolve_using(const std::string& name, Relids side, int position, const char* which) {
    std::vector<Resolved> found = matches(name, side);
    if (found.empty())
      throw Error("column " + quoted(name) + " specified in USING clause does not exist in " +
                  which + " table")
          .at_position(position)
          .with_sqlstate(sqlstate::kUndefinedColumn);
    if (found.size() == 1) return found[0];
    if (const std::optional<Resolved> merged = merged_by_using(name, found)) return *merged;
    throw Error("common column name " + quoted(name) + " appears more than once in " + which +
                " table")
        .at_position(position)
        .with_sqlstate(sqlstate::kAmbiguousColumn);
  }

  std::vector<Resolved> matches(const std::string& name, Relids scope) const {
    std::vector<Resolved> found;
    for (size_t i = 0; i < q_.rels.size(); ++i)
      if (scope & (Relids(1) << i))
        if (const int c = column_of(int(i), name); c >= 0) found.push_back({int(i), c});
    return found;
  }

  // Several tables' `name` that USING joins made one column: the column that stands for
  // it (the left side's, a RIGHT join's right side's) of the smallest such join holding
  // them all; none when no USING join merged them.
  std::optional<Resolved> merged_by_using(const std::string& name,
                                          const std::vector<Resolved>& found) const {
    Relids need = 0;
    for (const Resolved& r : found) need |= Relids(1) << r.rel;
    const UsingJoin* best = nullptr;
    for (const UsingJoin& u : using_joins_)
      if (u.name == name && (need & ~u.scope) == 0 &&
          (!best || std::popcount(u.scope) < std::popcount(best->scope)))
        best = &u;
    if (!best) return std::nullopt;
    return best->stands_for;
  }

  Resolved resolve(const sql::Expr& ref, Relids scope) const {
    if (!ref.qualifier.empty()) {
      int rel = -1;
      for (size_t i = 0; i < q_.rels.size(); ++i)
        if (q_.rels[i].refname == ref.qualifier) rel = int(i);
      if (rel < 0 || (!ref.sval.empty() && ref.sval != "public"))
        throw Error("missing FROM-clause entry for table " + quoted(ref.qualifier))
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kUndefinedTable);
      if (!(scope & (Relids(1) << rel)))
        throw Error("invalid reference to FROM-clause entry for table " + quoted(ref.qualifier), "",
                    "There is an entry for table " + quoted(ref.qualifier) +
                        ", but it cannot be referenced from this part of the query.")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kUndefinedTable);
      const int c = column_of(rel, ref.name);
      if (c < 0)
        throw Error("column " + ref.qualifier + "." + ref.name + " does not exist")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kUndefinedColumn);
      return {rel, c};
    }
    std::vector<Resolved> found = matches(ref.name, scope);
    if (found.empty())
      throw Error("column " + quoted(ref.name) + " does not exist")
          .at_position(ref.position)
          .with_sqlstate(sqlstate::kUndefinedColumn);
    if (found.size() == 1) return found[0];
    if (const std::optional<Resolved> merged = merged_by_using(ref.name, found)) return *merged;
    throw Error("column reference " + quoted(ref.name) + " is ambiguous")
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kAmbiguousColumn);
  }

  Relids relids_of(const sql::Expr& e, Relids scope) const {
    check_stack_depth();
    Relids r = 0;
    if (e.kind == sql::ExprKind::kColumnRef) r |= Relids(1) << resolve(e, scope).rel;
    for (const sql::ExprPtr& a : e.args) r |= relids_of(*a, scope);
    // A correlated SubPlan reads the outer columns it takes as parameters.
    if (e.kind == sql::ExprKind::kSubLink && current_sublinks() && current_sublinks()->outer_refs)
      for (const sql::Expr& ref : current_sublinks()->outer_refs(e))
        r |= Relids(1) << resolve(ref, scope).rel;
    return r;
  }

  ColumnLookup lookup(Relids scope) const {
    return [this, scope](const sql::Expr& ref) {
      const Resolved r = resolve(ref, scope);
      const JoinBaseRel& rel = q_.rels[size_t(r.rel)];
      const Column& col = rel.rel->columns[size_t(r.column)];
      return BoundColumnRef{q_.var_of(r.rel, r.column), col.type, col.typmod,
                            q_.column_name(r.rel, r.column)};
    };
  }

  std::shared_ptr<TypedExpr> var_expr(int rel, int column) const {
    const JoinBaseRel& r = q_.rels[size_t(rel)];
    const Column& col = r.rel->columns[size_t(column)];
    return std::make_shared<TypedExpr>(
        column_expr(q_.var_of(rel, column), col.type, col.typmod, q_.column_name(rel, column)));
  }

  void add_target(std::shared_ptr<TypedExpr> e, std::string name) {
    q_.targets.push_back(std::move(e));
    q_.names.push_back(std::move(name));
  }

  // An OR whose arms but one AND fold to FALSE or NULL is that AND, flattened into the
  // qual list (find_duplicate_ors): each conjunct placed, and equated, on its own.
  void add_where(const sql::Expr* e, std::vector<size_t>& where) {
    if (e->kind == sql::ExprKind::kOr) {
      const std::vector<const sql::Expr*> live = live_or_arms(*e, bind_qual());
      if (live.size() == 1 && live[0]->kind == sql::ExprKind::kOr) return add_where(live[0], where);
      if (live.size() == 1) {
        std::vector<const sql::Expr*> parts;
        split_and(live[0], parts);
        for (const sql::Expr* part : parts) add_where(part, where);
        return;
      }
    }
    where.push_back(conjuncts_.size());
    conjuncts_.push_back({e, {}, relids_of(*e, q_.all_rels())});
  }

  // GROUP BY, HAVING and aggregates, bound by engine/plan/grouping_bind.h over the vars;
  // HAVING's conjuncts that move join WHERE's.
  void bind_grouping(std::vector<size_t>& where) {
    GroupingColumns cols;
    cols.lookup = lookup(scope_);
    cols.has_name = [this](const std::string& n) { return !matches(n, scope_).empty(); };
    cols.error_name = [this](uint32_t v) {
      const QueryVar& var = q_.vars[v];
      const JoinBaseRel& r = q_.rels[size_t(var.rel)];
      return r.refname + "." + r.rel->columns[size_t(var.column)].name;
    };
    cols.star = [this](const sql::Expr& e) {
      std::vector<std::pair<sql::ExprPtr, std::string>> out;
      for (const Resolved& r : star_of(q_, *s_.from, e))
        out.emplace_back(column_ref(r), q_.rels[size_t(r.rel)].rel->columns[size_t(r.column)].name);
      return out;
    };
    bind_join_grouping(q_, s_, cols);
    for (const sql::Expr* e : q_.grouped->having_to_where) add_where(qualified(*e, scope_), where);
  }

  void bind_targets() {
    for (const sql::Target& t : s_.targets) {
      const sql::Expr& e = *t.expr;
      if (e.kind == sql::ExprKind::kStar) {
        for (const Resolved& r : star_of(q_, *s_.from, e))
          add_target(var_expr(r.rel, r.column),
                     q_.rels[size_t(r.rel)].rel->columns[size_t(r.column)].name);
        continue;
      }
      auto bound = std::make_shared<TypedExpr>(finish_output(bind_expr(e, lookup(scope_))));
      add_target(std::move(bound), !t.alias.empty() ? t.alias : sql::default_column_name(e));
    }
    for (const auto& t : q_.targets) need(*t, kOutputNeed);
  }

  // An ORDER BY item as PostgreSQL's findTargetlistEntrySQL92 reads it: an ordinal or
  // an output column's name first, else an expression over the tables.
  std::shared_ptr<TypedExpr> order_expr(const sql::Expr& e) {
    if (e.kind == sql::ExprKind::kIntConst) {
      if (e.ival < 1 || size_t(e.ival) > q_.targets.size())
        throw Error("ORDER BY position " + std::to_string(e.ival) + " is not in select list")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
      return q_.targets[size_t(e.ival - 1)];
    }
    if (e.kind == sql::ExprKind::kColumnRef && e.qualifier.empty()) {
      std::shared_ptr<TypedExpr> found;
      for (size_t i = 0; i < q_.names.size(); ++i)
        if (q_.names[i] == e.name) {
          if (found && deparse(*found) != deparse(*q_.targets[i]))
            throw Error("ORDER BY " + quoted(e.name) + " is ambiguous")
                .at_position(e.position)
                .with_sqlstate(sqlstate::kAmbiguousColumn);
          if (!found) found = q_.targets[i];
        }
      if (found) return found;
    }
    // An expression equal to a select-list entry is that entry (findTargetlistEntrySQL99).
    auto bound = std::make_shared<TypedExpr>(bind_expr(e, lookup(scope_)));
    for (const auto& t : q_.targets)
      if (deparse(*t) == deparse(*bound)) return t;
    return bound;
  }

  void bind_order() {
    for (const sql::OrderItem& o : s_.order_by) {
      JoinOrderItem item;
      item.expr = order_expr(*o.expr);
      item.descending = o.descending;
      item.nulls_first = o.nulls_first.value_or(o.descending);
      need(*item.expr, kOutputNeed);
      if (s_.distinct) add_distinct_item(q_, item, o.expr->position);
      q_.order.push_back(std::move(item));
    }
    if (s_.distinct) finish_distinct_clause(q_);
  }

  void need(const TypedExpr& e, Relids by) {
    if (e.kind == TypedExpr::Kind::kColumn) q_.vars[e.slot].where_needed |= by;
    for (const TypedExpr& a : e.args) need(a, by);
  }

  // A conjunct `x = y` of two columns of different relations in one operator family.
  std::optional<std::pair<uint32_t, uint32_t>> class_equality(const sql::Expr& e) const {
    if (e.kind != sql::ExprKind::kCompare || e.name != "=" ||
        e.args[0]->kind != sql::ExprKind::kColumnRef ||
        e.args[1]->kind != sql::ExprKind::kColumnRef)
      return std::nullopt;
    const Resolved a = resolve(*e.args[0], q_.all_rels());
    const Resolved b = resolve(*e.args[1], q_.all_rels());
    const uint32_t va = q_.var_of(a.rel, a.column), vb = q_.var_of(b.rel, b.column);
    if (a.rel == b.rel || !same_merge_family(q_.vars[va].type, q_.vars[vb].type))
      return std::nullopt;
    return std::pair{va, vb};
  }

  // A restriction `column = constant` (either way round): the column's var and the
  // constant.
  std::optional<std::pair<uint32_t, const sql::Expr*>> constant_equality(const sql::Expr& e) const {
    // `x IN (v)` is `x = v` (transformAExprIn with one item).
    const bool in_one = e.kind == sql::ExprKind::kInList && !e.negated && !e.array &&
                        e.int_items.empty() && e.args.size() == 2;
    if (!in_one && (e.kind != sql::ExprKind::kCompare || e.name != "=")) return std::nullopt;
    for (int side = 0; side < (in_one ? 1 : 2); ++side) {
      const sql::Expr& col = *e.args[size_t(side)];
      const sql::Expr& value = *e.args[size_t(1 - side)];
      if (col.kind == sql::ExprKind::kColumnRef && is_constant(value)) {
        const Resolved r = resolve(col, q_.all_rels());
        const uint32_t var = q_.var_of(r.rel, r.column);
        // `b = true` is `b`, `b = false` `NOT b` (simplify_boolean_equality): no class.
        if (q_.vars[var].type == TypeId::kBool) return std::nullopt;
        // An integer column against a decimal compares in numeric: `(col)::numeric = c`,
        // an expression no class holds.
        if (is_integer(q_.vars[var].type) && value.kind != sql::ExprKind::kIntConst)
          return std::nullopt;
        return std::pair{var, &value};
      }
    }
    return std::nullopt;
  }

  struct UsingJoin {
    std::string name;
    Relids scope;
    Resolved stands_for;  // the merged column's var
  };

  PlanContext& ctx_;
  const sql::Select& s_;
  JoinQuery q_;
  std::vector<BoundConjunct> conjuncts_;               // ON and USING conjuncts, then WHERE's
  std::vector<std::pair<size_t, size_t>> qual_lists_;  // each ON's, each subquery WHERE's
  Relids scope_ = 0;  // the FROM clause's tables, where the query's own names resolve
  bool in_subquery_ = false;
  std::vector<UsingJoin> using_joins_;
  std::vector<uint32_t> fixed_;  // vars WHERE fixes to a constant
};

}  // namespace

JoinQuery bind_join_query(PlanContext& ctx, const sql::Select& s) {
  return JoinBinder(ctx, s).bind();
}

}  // namespace tp
