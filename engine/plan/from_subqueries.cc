#include "engine/plan/from_subqueries.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/from_lateral.h"
#include "engine/plan/from_subquery_names.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/select_list.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

using namespace from_subqueries;  // NOLINT(google-build-using-namespace)

using CteEnv = std::vector<const sql::CommonTableExpr*>;  // innermost last

const sql::CommonTableExpr* find_cte(const CteEnv& env, const sql::FromItem& f) {
  if (!f.is_table() || !f.schema.empty()) return nullptr;
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if ((*it)->name == f.name) return *it;
  return nullptr;
}

// A subquery flattened: its FROM tree (its own WHERE on the tree's root), and its
// select list's names and expressions.
struct Flat {
  sql::FromItem from;
  std::vector<std::string> names;
  std::vector<const sql::Expr*> outputs;
};

bool from_has_subquery(const sql::FromItem& f) {
  if (f.subquery) return true;
  return std::any_of(f.sides.begin(), f.sides.end(),
                     [](const sql::FromItem& s) { return from_has_subquery(s); });
}

class Flattener {
 public:
  explicit Flattener(PlanContext& ctx) : ctx_(ctx) {}

  sql::Select top(const sql::Select& s) {
    count_refs(s, {});
    CteEnv env;
    for (const sql::CommonTableExpr& c : s.with) env.push_back(&c);
    all_ctes_ = env;
    check_unreferenced(s);
    sql::Select out;
    std::vector<Item> items;
    std::vector<NsCol> cols;
    registering_top_ = true;
    out.from = level_from(*s.from, items, env, cols);
    sublink_leaves_ = leaves_.size();
    const Scope all{&items, 0, items.size(), &cols, &outer_, nullptr, &sublink_hook_};
    if (s.where) out.where = rewrite(*s.where, all);
    for (const sql::Target& t : s.targets) {
      if (t.expr->kind == sql::ExprKind::kStar) {
        expand_star(*t.expr, all, out.targets);
        continue;
      }
      sql::Target o;
      o.expr = rewrite(*t.expr, all);
      o.alias = t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias;
      out.targets.push_back(std::move(o));
    }
    for (const sql::ExprPtr& g : s.group_by)
      out.group_by.push_back(is_output_name(*g, cols, false) ? copy_expr(*g) : rewrite(*g, all));
    out.group_by_position = s.group_by_position;
    if (s.having) out.having = rewrite(*s.having, all);
    for (const sql::OrderItem& o : s.order_by) {
      sql::OrderItem r;
      r.expr = is_output_name(*o.expr, cols, true, &s) ? copy_expr(*o.expr) : rewrite(*o.expr, all);
      r.descending = o.descending;
      r.nulls_first = o.nulls_first;
      out.order_by.push_back(std::move(r));
    }
    out.distinct = s.distinct;
    for (const sql::ExprPtr& d : s.distinct_on) out.distinct_on.push_back(rewrite(*d, all));
    out.limit = s.limit;
    out.offset = s.offset;
    out.pulled_up = true;
    rename(out);
    return out;
  }

 private:
  // EXISTS (...) / x IN (SELECT ...) in the query's WHERE, left for the join binder to
  // pull up (engine/plan/join_sublinks.h) with its references to this level's names
  // replaced: its own tables keep their names, a name they lack is read from the query.
  sql::ExprPtr sublink(const sql::Expr& e, const Scope& around) {
    const sql::Select& q = *e.subselect;
    if (!q.with.empty() || (q.from && from_has_subquery(*q.from)))
      throw not_supported("a subquery in FROM inside a subquery in WHERE", e.position);
    auto out = std::make_shared<sql::Select>();
    std::vector<Item> items;
    std::vector<NsCol> cols;
    const size_t first_leaf = leaves_.size();
    if (q.from) out->from = sublink_from(*q.from, items, cols);
    // IN's subquery joins as a subquery (convert_ANY_sublink_to_join), pulled up after the
    // FROM clause's; EXISTS's tables join the range table at once.
    if (e.name == "in")
      for (size_t i = first_leaf; i < leaves_.size(); ++i) in_leaves_.push_back(i);
    const Scope local{&items, 0, items.size(), &cols, &outer_, &around};
    for (const sql::Target& t : q.targets) {
      sql::Target o;
      o.expr = t.expr->kind == sql::ExprKind::kStar ? copy_expr(*t.expr) : rewrite(*t.expr, local);
      o.alias = t.alias;
      out->targets.push_back(std::move(o));
    }
    if (q.where) out->where = rewrite(*q.where, local);
    for (const sql::ExprPtr& g : q.group_by) out->group_by.push_back(rewrite(*g, local));
    out->group_by_position = q.group_by_position;
    if (q.having) out->having = rewrite(*q.having, local);
    for (const sql::OrderItem& o : q.order_by)
      out->order_by.push_back({rewrite(*o.expr, local), o.descending, o.nulls_first});
    out->distinct = q.distinct;
    out->limit = q.limit;
    out->offset = q.offset;
    sql::ExprPtr c = copy_expr(e);
    c->args.clear();
    for (const sql::ExprPtr& a : e.args) c->args.push_back(rewrite(*a, around));
    c->subselect = out;
    sublinks_.push_back(std::move(out));
    return c;
  }

  // A subquery in WHERE's FROM: tables (under their own names) in a list or CROSS JOIN.
  sql::FromItem sublink_from(const sql::FromItem& f, std::vector<Item>& items,
                             std::vector<NsCol>& cols) {
    sql::FromItem out;
    out.position = f.position;
    out.join = f.join;
    if (f.is_join()) {
      if (f.on || !f.using_columns.empty())
        throw not_supported(
            "JOIN ... ON or USING inside a subquery in WHERE beside a subquery "
            "in FROM",
            f.position);
      for (const sql::FromItem& side : f.sides)
        out.sides.push_back(sublink_from(side, items, cols));
      return out;
    }
    if (f.is_function) throw not_supported("a function in a join", f.position);
    const RelationEntry& rel = find_table_item(ctx_, f);
    Item item;
    item.name = f.alias.empty() ? f.name : f.alias;
    item.position = f.position;
    // Its tables join the range table too (pull_up_sublinks appends them), and take
    // EXPLAIN's names with the others.
    const std::string id = std::string(1, kLeafMark) + std::to_string(leaves_.size());
    leaves_.push_back(item.name);
    leaf_rel_.push_back(&rel);
    return table_leaf(f, rel, id, std::move(item), items, cols, std::move(out));
  }

  // cterefcount: the references to each WITH query anywhere in the statement (a query
  // of WITH's list sees the ones before it).
  void count_refs(const sql::Select& s, CteEnv env) {
    check_stack_depth();
    for (const sql::CommonTableExpr& c : s.with) {
      count_refs(*c.query, env);
      env.push_back(&c);
    }
    if (s.from) count_from(*s.from, env);
  }
  void count_from(const sql::FromItem& f, const CteEnv& env) {
    for (const sql::FromItem& side : f.sides) count_from(side, env);
    if (f.subquery) count_refs(*f.subquery, env);
    if (const sql::CommonTableExpr* c = find_cte(env, f)) ++refs_[c];
  }

  // A bare name ORDER BY (or GROUP BY) reads as an output column rather than an input one.
  bool is_output_name(const sql::Expr& e, const std::vector<NsCol>& cols, bool order_by,
                      const sql::Select* s = nullptr) const {
    if (e.kind == sql::ExprKind::kIntConst) return true;
    if (e.kind != sql::ExprKind::kColumnRef || !e.qualifier.empty()) return false;
    if (order_by) {
      for (const sql::Target& t : s->targets)
        if (t.expr->kind != sql::ExprKind::kStar &&
            (t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias) == e.name)
          return true;
      return false;
    }
    // GROUP BY: an input column first (findTargetlistEntrySQL92).
    return std::none_of(cols.begin(), cols.end(), [&](const NsCol& c) { return c.name == e.name; });
  }

  // One level's FROM: its own tables take their places in the range table first, then
  // each subquery's, in the order written (pull_up_subqueries appends them).
  sql::FromItem level_from(const sql::FromItem& f, std::vector<Item>& items, const CteEnv& env,
                           std::vector<NsCol>& cols) {
    std::map<const sql::FromItem*, size_t> leaf_of;
    const bool top = registering_top_;
    registering_top_ = false;
    register_tables(f, env, leaf_of);
    if (top) top_own_ = leaves_.size();
    // The parser's checkNameSpaceConflicts, before anything is looked up.
    std::vector<std::pair<std::string, int>> names;
    item_names(f, names);
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (names[j].first == names[i].first)
          throw Error("table name " + quoted(names[i].first) + " specified more than once")
              .at_position(names[i].second)
              .with_sqlstate(sqlstate::kDuplicateAlias);
    return flatten(f, items, env, leaf_of, false, cols);
  }

  void register_tables(const sql::FromItem& f, const CteEnv& env,
                       std::map<const sql::FromItem*, size_t>& leaf_of) {
    for (const sql::FromItem& side : f.sides) register_tables(side, env, leaf_of);
    if (f.is_table() && !f.is_function && !find_cte(env, f)) {
      leaf_of[&f] = leaves_.size();
      leaves_.push_back(f.alias.empty() ? f.name : f.alias);
      leaf_rel_.push_back(nullptr);
    }
  }

  sql::FromItem flatten(const sql::FromItem& f, std::vector<Item>& items, const CteEnv& env,
                        const std::map<const sql::FromItem*, size_t>& leaf_of, bool nullable,
                        std::vector<NsCol>& cols) {
    check_stack_depth();
    sql::FromItem out;
    out.position = f.position;
    if (f.is_join()) {
      if (f.join == sql::JoinKind::kFull && !f.using_columns.empty())
        throw not_supported("FULL JOIN with USING", f.position);
      out.join = f.join;
      const size_t begin = items.size();
      const bool full = f.join == sql::JoinKind::kFull;
      std::vector<NsCol> left, right;
      out.sides.push_back(flatten(f.sides[0], items, env, leaf_of,
                                  nullable || full || f.join == sql::JoinKind::kRight, left));
      // A LATERAL item on the right sees the left side's items (not across RIGHT or FULL).
      const size_t lateral_cols = lateral_cols_.size(), not_lateral = not_lateral_.size();
      for (const NsCol& c : left) {
        lateral_cols_.push_back(c);
        if (full || f.join == sql::JoinKind::kRight) not_lateral_.push_back(c.item);
      }
      out.sides.push_back(flatten(f.sides[1], items, env, leaf_of,
                                  nullable || full || f.join == sql::JoinKind::kLeft, right));
      lateral_cols_.resize(lateral_cols);
      not_lateral_.resize(not_lateral);
      // Before its own ON clause: an outer join's, they decide its matches.
      sql::ExprPtr postponed = take_postponed(postponed_, outer_.size(), begin);
      if (!f.using_columns.empty()) {
        out.on = and_of(std::move(postponed), using_join(f, items, left, right, cols));
        return out;
      }
      cols = left;
      cols.insert(cols.end(), right.begin(), right.end());
      if (f.on) out.on = rewrite(*f.on, {&items, begin, items.size(), &cols, &outer_});
      out.on = and_of(std::move(postponed), std::move(out.on));
      if (out.on && (f.join == sql::JoinKind::kComma || f.join == sql::JoinKind::kCross))
        out.join = sql::JoinKind::kInner;
      return out;
    }
    if (f.is_function) throw not_supported("a function in a join", f.position);
    Item item;
    item.position = f.position;
    item.nullable = nullable;
    if (const sql::CommonTableExpr* cte = find_cte(env, f); cte || f.subquery) {
      if (cte) check_inlined(*cte, f.position);
      // A WITH query sees the WITH queries before it, not the query that names it.
      CteEnv inner = env;
      if (cte) inner.erase(std::find(inner.begin(), inner.end(), cte), inner.end());
      if (f.lateral && planned_alone(*f.subquery)) {
        item.subquery = true;
        sql::FromItem alone =
            lateral_alone(f, item, items, lateral_cols_, not_lateral_, leaves_, pool_);
        leaf_cols(item, items.size(), cols);
        items.push_back(std::move(item));
        return alone;
      }
      outer_.push_back(&items);
      Flat sub = subquery_seeing(cte ? *cte->query : *f.subquery, f, items, inner, nullable);
      outer_.pop_back();
      item.subquery = true;
      item.name = f.alias.empty() ? cte->name : f.alias;
      item.columns = sub.names;
      item.exprs = sub.outputs;
      if (cte) alias_columns(item, cte->column_aliases, cte);
      alias_columns(item, f.column_aliases);
      leaf_cols(item, items.size(), cols);
      items.push_back(std::move(item));
      return std::move(sub.from);
    }
    check_forward_reference(f);
    const RelationEntry& rel = find_table_item(ctx_, f);
    leaf_rel_[leaf_of.at(&f)] = &rel;
    const std::string id = std::string(1, kLeafMark) + std::to_string(leaf_of.at(&f));
    item.name = f.alias.empty() ? f.name : f.alias;
    return table_leaf(f, rel, id, std::move(item), items, cols, std::move(out));
  }

  // `q` flattened, reading the items before it if `f` is LATERAL (its own levels start
  // with nothing before them).
  Flat subquery_seeing(const sql::Select& q, const sql::FromItem& f, const std::vector<Item>& items,
                       const CteEnv& env, bool nullable) {
    std::vector<NsCol> visible;
    std::vector<size_t> not_lateral;
    std::vector<size_t> touched;
    visible.swap(lateral_cols_);
    not_lateral.swap(not_lateral_);
    const Scope lateral{&items,  0,       items.size(), &visible,    &outer_,
                        nullptr, nullptr, &touched,     &not_lateral};
    Flat sub = subquery(q, f.position, env, f.lateral ? &lateral : nullptr, nullable);
    visible.swap(lateral_cols_);
    not_lateral.swap(not_lateral_);
    return sub;
  }

  // A table of the FROM clause as a leaf: its columns named `id`.column (the leaf's
  // mark), as the item's outputs, and the FROM item that stands for it.
  sql::FromItem table_leaf(const sql::FromItem& f, const RelationEntry& rel, const std::string& id,
                           Item item, std::vector<Item>& items, std::vector<NsCol>& cols,
                           sql::FromItem out) {
    for (const Column& c : rel.columns) {
      auto ref = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, f.position);
      ref->qualifier = id;
      ref->name = c.name;
      item.columns.push_back(c.name);
      item.exprs.push_back(ref.get());
      pool_.push_back(std::move(ref));
    }
    alias_columns(item, f.column_aliases);
    leaf_cols(item, items.size(), cols);
    items.push_back(std::move(item));
    out.name = f.name;
    out.schema = f.schema;
    out.alias = id;
    return out;
  }

  static void leaf_cols(const Item& item, size_t index, std::vector<NsCol>& cols) {
    for (size_t c = 0; c < item.columns.size(); ++c)
      cols.push_back({item.columns[c], item.exprs[c], index});
  }

  // JOIN ... USING (x, ...) as the ON clause `left.x = right.x AND ...` it is, and the
  // join's columns: the merged ones first (a RIGHT join's are its right side's), then each
  // side's others.
  sql::ExprPtr using_join(const sql::FromItem& f, const std::vector<Item>& items,
                          const std::vector<NsCol>& left, const std::vector<NsCol>& right,
                          std::vector<NsCol>& cols) const {
    sql::ExprPtr on;
    std::vector<NsCol> merged;
    for (const std::string& name : f.using_columns) {
      const NsCol& l = using_side(name, left, f.position, "left");
      const NsCol& r = using_side(name, right, f.position, "right");
      merged.push_back(merged_column(f, l, r, type_of(*l.expr), type_of(*r.expr)));
      checked(l.expr, items[l.item], f.position);
      checked(r.expr, items[r.item], f.position);
      auto eq = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, f.position);
      eq->name = "=";
      eq->args.push_back(copy_expr(*l.expr));
      eq->args.push_back(copy_expr(*r.expr));
      eq->height = 1 + std::max(eq->args[0]->height, eq->args[1]->height);
      on = and_of(std::move(on), std::move(eq));
    }
    cols = merged;
    auto rest = [&](const std::vector<NsCol>& side) {
      for (const NsCol& c : side)
        if (std::find(f.using_columns.begin(), f.using_columns.end(), c.name) ==
            f.using_columns.end())
          cols.push_back(c);
    };
    rest(left);
    rest(right);
    return on;
  }

  // A base table's column's type (a pulled-up expression's is not known here).
  std::optional<TypeId> type_of(const sql::Expr& e) const {
    if (e.kind != sql::ExprKind::kColumnRef || e.qualifier.empty() || e.qualifier[0] != kLeafMark)
      return std::nullopt;
    const RelationEntry* rel = leaf_rel_[size_t(std::stoul(e.qualifier.substr(1)))];
    for (const Column& c : rel->columns)
      if (c.name == e.name) return c.type;
    return std::nullopt;
  }

  // A WITH query nothing reads is not planned, but PostgreSQL's parser reads its names
  // all the same: their errors are its errors (what is not built yet is no error here).
  void check_unreferenced(const sql::Select& s) {
    CteEnv env;
    for (const sql::CommonTableExpr& c : s.with) {
      if (refs_[&c] == 0) {
        const size_t leaves = leaves_.size();
        try {
          subquery(*c.query, c.position, env);
        } catch (const Error& e) {
          if (e.sqlstate() != sqlstate::kFeatureNotSupported) throw;
        }
        leaves_.resize(leaves);
        leaf_rel_.resize(leaves);
      }
      env.push_back(&c);
    }
  }

  // A name of a WITH query that cannot be seen from here (itself, or one after it):
  // PostgreSQL's error, with its detail and hint, when no table has the name.
  void check_forward_reference(const sql::FromItem& f) const {
    if (!f.schema.empty() || ctx_.catalog.find(f.name)) return;
    for (const sql::CommonTableExpr* c : all_ctes_)
      if (c->name == f.name)
        throw Error("relation " + quoted(f.name) + " does not exist",
                    "There is a WITH item named " + quoted(f.name) +
                        ", but it cannot be referenced from this part of the query.",
                    "Use WITH RECURSIVE, or re-order the WITH items to remove forward references.")
            .at_position(f.position)
            .with_sqlstate(sqlstate::kUndefinedTable);
  }

  // inline_cte's conditions (PostgreSQL 12+): referenced once, or written NOT MATERIALIZED.
  void check_inlined(const sql::CommonTableExpr& c, int position) {
    if (c.materialized.value_or(false))
      throw not_supported("WITH ... AS MATERIALIZED (a CTE Scan)", position);
    if (refs_[&c] > 1 && !c.materialized.has_value())
      throw not_supported("a WITH query referenced more than once (a CTE Scan)", position);
  }

  // is_simple_subquery: what PostgreSQL would plan on its own is refused by name.
  Flat subquery(const sql::Select& q, int position, const CteEnv& env,
                const Scope* lateral = nullptr, bool nullable = false) {
    check_stack_depth();
    if (!q.with.empty()) throw not_supported("WITH inside a subquery in FROM", position);
    if (!q.values.empty() || !q.from)
      throw not_supported("a subquery in FROM without a FROM clause", position);
    const bool aggregates = std::any_of(q.targets.begin(), q.targets.end(),
                                        [](const auto& t) { return calls_aggregate(*t.expr); });
    if (!q.group_by.empty() || q.having || aggregates)
      throw not_supported("a subquery in FROM with GROUP BY or aggregates (a Subquery Scan)",
                          position);
    if (q.distinct)
      throw not_supported("a subquery in FROM with DISTINCT (a Subquery Scan)", position);
    if (!q.order_by.empty() || q.limit || q.offset)
      throw not_supported("a subquery in FROM with ORDER BY, LIMIT or OFFSET (a Subquery Scan)",
                          position);
    if (std::any_of(q.targets.begin(), q.targets.end(),
                    [](const auto& t) { return calls_volatile(*t.expr); }))
      throw not_supported("a subquery in FROM whose select list calls a volatile function",
                          position);
    Flat flat;
    std::vector<Item> items;
    std::vector<NsCol> cols;
    flat.from = level_from(*q.from, items, env, cols);
    const Scope all{&items, 0, items.size(), &cols, &outer_, lateral};
    lateral_where(q.where.get(), all, lateral, flat.from.pulled_quals, postponed_,
                  outer_.size() - 1);
    for (const sql::Target& t : q.targets) {
      if (t.expr->kind == sql::ExprKind::kStar) {
        std::vector<sql::Target> star;
        expand_star(*t.expr, all, star);
        for (sql::Target& s : star) {
          flat.names.push_back(s.alias);
          flat.outputs.push_back(s.expr.get());
          pool_.push_back(std::move(s.expr));
        }
        continue;
      }
      flat.names.push_back(t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias);
      pool_.push_back(rewrite(*t.expr, all));
      flat.outputs.push_back(pool_.back().get());
    }
    // An output reading the items before a LATERAL subquery on an outer join's nullable
    // side would go NULL with the subquery only through a PlaceHolderVar.
    if (lateral && nullable && !lateral->touched->empty())
      throw not_supported(
          "a LATERAL subquery's output over the tables before it on the nullable side of "
          "an outer join (a PlaceHolderVar)",
          position);
    return flat;
  }

  // set_rtable_names: each table in range-table order takes its alias or name, or that
  // name suffixed `_N` (a counter per name) when an earlier table holds it.
  void rename(sql::Select& s) {
    std::map<std::string, int> counter;
    std::vector<std::string> used;
    // The range table's order: the query's own tables, then EXISTS's (pull_up_sublinks
    // runs first), then the subqueries' in FROM, then IN's.
    std::vector<size_t> order;
    auto is_in = [&](size_t i) {
      return std::find(in_leaves_.begin(), in_leaves_.end(), i) != in_leaves_.end();
    };
    for (size_t i = 0; i < top_own_; ++i) order.push_back(i);
    for (size_t i = sublink_leaves_; i < leaves_.size(); ++i)
      if (!is_in(i)) order.push_back(i);
    for (size_t i = top_own_; i < sublink_leaves_; ++i) order.push_back(i);
    for (size_t i : in_leaves_) order.push_back(i);
    final_.resize(leaves_.size());
    for (size_t leaf : order) {
      const std::string& base = leaves_[leaf];
      std::string name = base;
      if (std::find(used.begin(), used.end(), name) != used.end()) {
        int& n = counter[base];
        do name = base + "_" + std::to_string(++n);
        while (std::find(used.begin(), used.end(), name) != used.end());
      }
      used.push_back(name);
      final_[leaf] = name;
    }
    rename_from(*s.from);
    for (sql::Target& t : s.targets) rename_expr(t.expr.get());
    rename_expr(s.where.get());
    for (sql::ExprPtr& g : s.group_by) rename_expr(g.get());
    rename_expr(s.having.get());
    for (sql::OrderItem& o : s.order_by) rename_expr(o.expr.get());
    for (sql::ExprPtr& d : s.distinct_on) rename_expr(d.get());
    for (const std::shared_ptr<sql::Select>& q : sublinks_) {
      if (q->from) rename_from(*q->from);
      for (sql::Target& t : q->targets) rename_expr(t.expr.get());
      rename_expr(q->where.get());
      for (sql::ExprPtr& g : q->group_by) rename_expr(g.get());
      rename_expr(q->having.get());
      for (sql::OrderItem& o : q->order_by) rename_expr(o.expr.get());
    }
  }
  void rename_from(sql::FromItem& f) {
    for (sql::FromItem& side : f.sides) rename_from(side);
    rename_expr(f.on.get());
    rename_expr(f.pulled_quals.get());
    if (!f.alias.empty() && f.alias[0] == kLeafMark) f.alias = final_name(f.alias);
    if (!f.lateral_outer.empty()) f.lateral_outer = final_name(f.lateral_outer);
  }
  void rename_expr(sql::Expr* e) {
    if (e == nullptr) return;
    check_stack_depth();
    if (!e->qualifier.empty() && e->qualifier[0] == kLeafMark)
      e->qualifier = final_name(e->qualifier);
    for (sql::ExprPtr& a : e->args) rename_expr(a.get());
  }
  const std::string& final_name(const std::string& id) const {
    return final_[size_t(std::stoul(id.substr(1)))];
  }

  PlanContext& ctx_;
  std::map<const sql::CommonTableExpr*, int> refs_;
  CteEnv all_ctes_;                  // the statement's WITH queries
  std::vector<std::string> leaves_;  // each base table's alias or name, in range-table order
  std::vector<const RelationEntry*> leaf_rel_;
  std::vector<std::string> final_;  // and the name EXPLAIN gives it
  std::vector<sql::ExprPtr> pool_;  // the expressions references are replaced by
  bool registering_top_ = false;    // the next level_from is the query's own FROM
  size_t top_own_ = 0;              // the query's own tables: leaves [0, top_own_)
  size_t sublink_leaves_ = 0;       // its subqueries' in WHERE: leaves from here on
  std::vector<size_t> in_leaves_;   // the tables of IN (SELECT ...)s
  std::vector<std::shared_ptr<sql::Select>> sublinks_;  // the subqueries in WHERE, rewritten
  const std::function<sql::ExprPtr(const sql::Expr&, const Scope&)> sublink_hook_ =
      [this](const sql::Expr& e, const Scope& around) { return sublink(e, around); };
  std::vector<const std::vector<Item>*> outer_;  // the levels around the subquery being read
  // What a LATERAL subquery at this level may read: the columns of the items before it,
  // and those across a RIGHT or FULL join (an error to read).
  std::vector<NsCol> lateral_cols_;
  std::vector<size_t> not_lateral_;
  std::vector<Postponed> postponed_;
};

}  // namespace

bool has_from_subqueries(const sql::Select& s) {
  return !s.pulled_up && (!s.with.empty() || (s.from && from_has_subquery(*s.from)));
}

sql::Select pull_up_from_subqueries(PlanContext& ctx, const sql::Select& s) {
  if (!s.from) throw not_supported("WITH over a query without FROM", 0);
  sql::Select flat = Flattener(ctx).top(s);
  // One table left: the single-table planner's plan is PostgreSQL's (min/max InitPlans,
  // parallel scans, ordered index scans under a LIMIT, DISTINCT), its WHERE the
  // subquery's first; EXPLAIN qualifies the names above its scan (PlannedQuery::
  // upper_prefix_table) as PostgreSQL's does once the range table holds the subquery too.
  std::vector<const sql::Expr*> where;
  split_and(flat.where.get(), where);
  const bool sublinks = std::any_of(where.begin(), where.end(),
                                    [](const sql::Expr* e) { return is_sublink_conjunct(*e); });
  if (!flat.from->is_join() && !sublinks) {
    flat.where = and_of(std::move(flat.from->pulled_quals), std::move(flat.where));
    flat.pulled_up = false;
  }
  return flat;
}

}  // namespace tp
