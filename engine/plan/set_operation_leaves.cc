#include "engine/plan/set_operation_leaves.h"

#include <algorithm>
#include <map>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/result_plan.h"
#include "engine/plan/select_list.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"
#include "scans/project.h"

namespace tp {
namespace {

void collect(const sql::Select& s, std::vector<const sql::Select*>& out) {
  if (!s.set_operation) {
    out.push_back(&s);
    return;
  }
  check_stack_depth();
  collect(*s.set_operation->left, out);
  collect(*s.set_operation->right, out);
}

bool has_sublink(const sql::Expr* e) {
  if (e == nullptr) return false;
  if (e->kind == sql::ExprKind::kSubLink) return true;
  return std::any_of(e->args.begin(), e->args.end(),
                     [](const sql::ExprPtr& a) { return has_sublink(a.get()); });
}

int leftmost_position(const sql::Expr& e) {
  int p = e.position;
  for (const sql::ExprPtr& a : e.args)
    if (a && a->position > 0) p = std::min(p, leftmost_position(*a));
  return p;
}

// Each table a FROM item names, in the range table's order.
void item_names(const sql::FromItem& f, std::vector<std::string>& out) {
  if (f.is_join()) {
    for (const sql::FromItem& side : f.sides) item_names(side, out);
    return;
  }
  out.push_back(f.alias.empty() ? f.name : f.alias);
}

void requalify(sql::Expr* e, const std::string& from, const std::string& to) {
  if (e == nullptr) return;
  if (e->qualifier == from && e->sval.empty()) e->qualifier = to;
  for (sql::ExprPtr& a : e->args) requalify(a.get(), from, to);
}

sql::ExprPtr copy_renamed(const sql::ExprPtr& e, const std::string& from, const std::string& to) {
  if (!e) return nullptr;
  sql::ExprPtr c = copy_expr(*e);
  requalify(c.get(), from, to);
  return c;
}

// A single-table SELECT whose table takes the alias `to` (its name `from` already used
// by an earlier branch), references written `from.x` following it.
std::shared_ptr<sql::Select> renamed_copy(const sql::Select& s, const std::string& from,
                                          const std::string& to) {
  auto c = std::make_shared<sql::Select>();
  c->distinct = s.distinct;
  for (const sql::ExprPtr& d : s.distinct_on) c->distinct_on.push_back(copy_renamed(d, from, to));
  for (const sql::Target& t : s.targets) {
    sql::Target o;
    o.expr = copy_renamed(t.expr, from, to);
    o.alias = t.alias;
    c->targets.push_back(std::move(o));
  }
  sql::FromItem f;
  f.name = s.from->name;
  f.schema = s.from->schema;
  f.position = s.from->position;
  f.alias = to == s.from->name ? s.from->alias : to;
  c->from = std::move(f);
  c->where = copy_renamed(s.where, from, to);
  for (const sql::ExprPtr& g : s.group_by) c->group_by.push_back(copy_renamed(g, from, to));
  c->having = copy_renamed(s.having, from, to);
  c->group_by_position = s.group_by_position;
  for (const sql::OrderItem& o : s.order_by) {
    sql::OrderItem r;
    r.expr = copy_renamed(o.expr, from, to);
    r.descending = o.descending;
    r.nulls_first = o.nulls_first;
    c->order_by.push_back(std::move(r));
  }
  c->limit = s.limit;
  c->offset = s.offset;
  return c;
}

bool is_simple(const sql::Select& s) {
  return s.from && s.from->is_table() && !s.where && s.group_by.empty() && !s.having &&
         !s.distinct && s.order_by.empty() && !s.limit && !s.offset && s.with.empty() &&
         std::none_of(s.targets.begin(), s.targets.end(),
                      [](const sql::Target& t) { return has_sublink(t.expr.get()); });
}

// A column of a join's tables written without its table: the table holding it.
std::string owning_table(PlanContext& ctx, const sql::FromItem& f, const std::string& column) {
  if (f.is_join()) {
    for (const sql::FromItem& side : f.sides) {
      std::string t = owning_table(ctx, side, column);
      if (!t.empty()) return t;
    }
    return "";
  }
  if (!f.is_table()) return "";
  for (const Column& c : find_table_item(ctx, f).columns)
    if (c.name == column) return f.alias.empty() ? f.name : f.alias;
  return "";
}

// How column `i` of a branch prints in a key above the union: a column as its name (a
// join's qualified), an expression deparsed in parentheses as ruleutils prints a
// non-Var sort key.
std::string key_text(PlanContext& ctx, const sql::Select& s, const sql::Expr& e, bool join,
                     const std::string& output_name) {
  if (e.kind == sql::ExprKind::kColumnRef) {
    if (!join) return sql::quote_identifier(e.name);
    const std::string table =
        e.qualifier.empty() ? owning_table(ctx, *s.from, e.name) : e.qualifier;
    return table.empty() ? sql::quote_identifier(e.name)
                         : sql::quote_identifier(table) + "." + sql::quote_identifier(e.name);
  }
  if (join) return sql::quote_identifier(output_name);  // not deparsed over a join
  std::shared_ptr<TypedExpr> bound;
  try {
    bound = bind_select_expr(find_table(ctx, s), e);
  } catch (const Error&) {  // an aggregate: its value is the grouped row's, not deparsed here
    return sql::quote_identifier(output_name);
  }
  const std::string text = deparse(*bound);
  if (bound->kind == TypedExpr::Kind::kColumn) return text;
  return "(" + text + ")";
}

void describe_columns(PlanContext& ctx, const sql::Select& s, SetOpLeaf& leaf) {
  const PlannedQuery& q = leaf.plan;
  std::vector<const sql::Expr*> exprs;  // per output column, null under a *
  for (const sql::Target& t : s.targets) {
    if (t.expr->kind != sql::ExprKind::kStar) {
      exprs.push_back(t.expr.get());
      continue;
    }
    if (s.targets.size() != 1)
      throw not_supported("* beside other columns in a UNION branch", t.expr->position);
    exprs.assign(q.column_names.size(), nullptr);
  }
  leaf.first_position = s.targets.empty() ? 0 : s.targets[0].expr->position;
  for (size_t i = 0; i < q.output_columns.size(); ++i) {
    SetOpColumn c;
    c.name = q.column_names[i];
    c.type = q.output_columns[i].type;
    c.typmod = q.output_columns[i].typmod;
    const sql::Expr* e = i < exprs.size() ? exprs[i] : nullptr;
    c.position = e ? leftmost_position(*e) : leaf.first_position;
    if (e && (e->kind == sql::ExprKind::kNullConst || e->kind == sql::ExprKind::kStrConst)) {
      c.unknown = true;
      c.null_literal = e->kind == sql::ExprKind::kNullConst;
    }
    c.key_text = e ? key_text(ctx, s, *e, leaf.join, c.name) : sql::quote_identifier(c.name);
    leaf.columns.push_back(std::move(c));
  }
}

// A branch without FROM (`SELECT 1, 'a'`): PostgreSQL's Result, its select list computed
// over the one row it returns (a projection EXPLAIN does not show).
void plan_result_leaf(PlanContext& ctx, const sql::Select& s, SetOpLeaf& leaf) {
  leaf.plan = plan_result(ctx, s);
  const ColumnLookup no_columns = [](const sql::Expr& ref) -> BoundColumnRef {
    throw Error("column \"" + ref.name + "\" does not exist")
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  };
  std::vector<std::shared_ptr<const TypedExpr>> exprs;
  for (const sql::Target& t : s.targets) {
    TypedExpr e = finish_output(bind_expr(*t.expr, no_columns));
    SetOpColumn c;
    c.name = t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias;
    c.type = e.type;
    c.typmod = e.typmod;
    c.position = leftmost_position(*t.expr);
    c.unknown =
        t.expr->kind == sql::ExprKind::kNullConst || t.expr->kind == sql::ExprKind::kStrConst;
    c.null_literal = t.expr->kind == sql::ExprKind::kNullConst;
    c.key_text = "(" + deparse(e) + ")";
    leaf.plan.output_slots.push_back(uint32_t(exprs.size()));
    leaf.plan.output_columns.push_back({c.name, e.type, e.typmod});
    leaf.plan.column_names.push_back(c.name);
    leaf.columns.push_back(std::move(c));
    exprs.push_back(std::make_shared<const TypedExpr>(std::move(e)));
  }
  const scans::PlanEstimate estimate = leaf.plan.root->estimate;
  leaf.plan.root =
      std::make_unique<scans::ProjectNode>(std::move(leaf.plan.root), std::move(exprs));
  leaf.plan.root->estimate = estimate;
  leaf.first_position = s.targets.empty() ? 0 : s.targets[0].expr->position;
  leaf.simple = true;  // is_safe_append_member: an empty FROM is pulled up as a Result
}

}  // namespace

std::shared_ptr<sql::Select> ordered_leaf(const SetOpLeaf& leaf, size_t column,
                                          const sql::OrderItem& order) {
  const sql::Select& s = leaf.renamed ? *leaf.renamed : *leaf.select;
  const std::string name = s.from->alias.empty() ? s.from->name : s.from->alias;
  std::shared_ptr<sql::Select> c = renamed_copy(s, name, name);
  sql::OrderItem o;
  if (s.targets.size() == 1 && s.targets[0].expr->kind == sql::ExprKind::kStar) {
    o.expr = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, 0);
    o.expr->name = leaf.columns[column].name;
  } else {
    o.expr = copy_expr(*s.targets[column].expr);
  }
  o.descending = order.descending;
  o.nulls_first = order.nulls_first;
  c->order_by.push_back(std::move(o));
  return c;
}

std::vector<SetOpLeaf> plan_set_operation_leaves(PlanContext& ctx, const sql::Select& top) {
  std::vector<const sql::Select*> selects;
  collect(top, selects);
  std::vector<SetOpLeaf> leaves;
  std::vector<std::string> used;  // the names EXPLAIN has given tables so far
  std::map<std::string, int> counter;
  for (const sql::Select* s : selects) {
    SetOpLeaf leaf;
    leaf.select = s;
    leaf.number = int(leaves.size()) + 1;
    if (!s->from && s->values.empty()) {
      plan_result_leaf(ctx, *s, leaf);
      leaves.push_back(std::move(leaf));
      continue;
    }
    if (!s->from || s->from->is_function || !s->values.empty())
      throw not_supported("a UNION branch over a function or VALUES",
                          s->targets.empty() ? 0 : s->targets[0].expr->position);
    const sql::Select* planned = s;
    if (s->from->is_table() && s->with.empty()) {
      const std::string base = s->from->alias.empty() ? s->from->name : s->from->alias;
      std::string name = base;
      if (std::find(used.begin(), used.end(), name) != used.end()) {
        int& n = counter[base];
        do name = base + "_" + std::to_string(++n);
        while (std::find(used.begin(), used.end(), name) != used.end());
        leaf.renamed = renamed_copy(*s, base, name);
        planned = leaf.renamed.get();
      }
      used.push_back(name);
    } else {
      item_names(*s->from, used);
    }
    leaf.join = !s->from->is_table();
    leaf.plan = plan_select(ctx, *planned);
    if (leaf.plan.aggregate != nullptr)
      throw not_supported("an aggregate without GROUP BY in a UNION branch",
                          s->targets.empty() ? 0 : s->targets[0].expr->position);
    leaf.simple = is_simple(*s);
    if (!leaf.join) {
      leaf.prefix.table = planned->from->alias.empty() ? planned->from->name : planned->from->alias;
      for (const Column& c : find_table(ctx, *planned).columns)
        leaf.prefix.columns.push_back(c.name);
    } else if (!s->from->is_join()) {  // a subquery in FROM, pulled up into one table
      leaf.prefix = {leaf.plan.upper_prefix_table, leaf.plan.upper_prefix_columns};
    }
    describe_columns(ctx, *planned, leaf);
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

}  // namespace tp
