#include "engine/plan/set_operations.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "engine/core/error.h"
#include "engine/plan/distinct.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/plan_steps.h"
#include "engine/plan/set_operation_leaves.h"
#include "engine/sql/expr_ops.h"
#include "engine/sql/identifier.h"
#include "scans/append.h"
#include "scans/distinct.h"
#include "scans/sort_limit_agg.h"

namespace tp {
namespace {

constexpr double kAppendCpuCostMultiplier = 0.5;  // PostgreSQL's APPEND_CPU_COST_MULTIPLIER
constexpr double kMinimalTupleHeader = 16;        // MAXALIGN(SizeofMinimalTupleHeader)

// One input of an Append: a branch (under its Subquery Scan) or a nested UNION.
struct Child {
  std::unique_ptr<scans::ExecNode> node;
  std::vector<uint32_t> slots;                          // the union's columns in the node's rows
  std::vector<std::shared_ptr<const TypedExpr>> casts;  // per column; null: as it is
  PathCost cost;
  int width = 0;
};

double maxalign(double w) {
  return std::ceil(w / 8) * 8;
}

// compare_fractional_path_costs < 0: `a` is cheaper for the first `fraction` of its rows
// (all of them when the fraction is 0 or 1 and over).
bool cheaper_fraction(const PathCost& a, const PathCost& b, double fraction) {
  if (fraction <= 0 || fraction >= 1) {
    if (a.total != b.total) return a.total < b.total;
    return a.startup < b.startup;
  }
  return a.startup + fraction * (a.total - a.startup) <
         b.startup + fraction * (b.total - b.startup);
}

class UnionPlanner {
 public:
  UnionPlanner(PlanContext& ctx, const sql::Select& s)
      : ctx_(ctx), cs_(ctx.settings.costs), s_(s) {}

  PlannedQuery plan() {
    leaves_ = plan_set_operation_leaves(ctx_, s_);
    for (size_t i = 0; i < leaves_.size(); ++i) leaf_of_[leaves_[i].select] = i;
    size_t next = 0;
    columns_ = resolve(s_, next);
    check_literals();
    flat_ = flattenable(s_);
    name_columns();
    order_ = bind_order(order_text_);
    std::optional<Child> merged;
    if (flat_) merged = merge_append();
    Child top = merged  ? std::move(*merged)
                : flat_ ? append_relation()
                        : union_paths(*s_.set_operation);
    return finish(std::move(top));
  }

 private:
  // transformSetOperationTree's types, bottom-up: each column's select_common_type over
  // its two sides (42601 when they differ in length, 42804 when the types do not meet).
  std::vector<SetOpColumn> resolve(const sql::Select& s, size_t& next) {
    if (!s.set_operation) return leaves_[next++].columns;
    std::vector<SetOpColumn> l = resolve(*s.set_operation->left, next);
    const size_t right_leaf = next;
    std::vector<SetOpColumn> r = resolve(*s.set_operation->right, next);
    if (l.size() != r.size())
      throw Error("each UNION query must have the same number of columns")
          .at_position(leaves_[right_leaf].first_position)
          .with_sqlstate(sqlstate::kSyntaxError);
    for (size_t i = 0; i < l.size(); ++i) {
      TypedExpr a, b;
      a.type = l[i].type;
      a.unknown_literal = l[i].unknown;
      b.type = r[i].type;
      b.unknown_literal = r[i].unknown;
      const TypeId t = expr::unify_types({&a, &b}, "UNION", r[i].position);
      if (!(l[i].unknown && r[i].unknown)) {
        // select_common_typmod: the typmod both sides share, none beside an untyped literal.
        const bool same_mod =
            !l[i].unknown && !r[i].unknown && l[i].type == r[i].type && l[i].typmod == r[i].typmod;
        l[i].typmod = same_mod ? l[i].typmod : kNoTypmod;
        l[i].type = t;
        l[i].unknown = false;
        l[i].null_literal = false;
      }
    }
    types_[s.set_operation.get()] = l;
    return l;
  }

  // An untyped NULL is the union's type in its branch (PostgreSQL coerces the constant
  // there: its width and printed form are that type's); an untyped string literal read
  // as another type than text is not built.
  void check_literals() {
    for (SetOpLeaf& leaf : leaves_)
      for (size_t c = 0; c < leaf.columns.size(); ++c) {
        SetOpColumn& col = leaf.columns[c];
        if (!col.unknown || columns_[c].type == col.type) continue;
        if (!col.null_literal)
          throw not_supported("an untyped literal read as " +
                                  format_type(columns_[c].type, columns_[c].typmod) + " in a UNION",
                              col.position);
        const int delta =
            type_avg_width(columns_[c].type, kNoTypmod) - type_avg_width(col.type, col.typmod);
        scans::ExecNode* node = leaf.plan.root.get();
        node->estimate.width += delta;
        while (node->explain_transparent()) {  // the node EXPLAIN shows for it
          node = node->mutable_children()[0];
          node->estimate.width += delta;
        }
        col.key_text = "(NULL::" + format_type(columns_[c].type, kNoTypmod) + ")";
        col.type = columns_[c].type;
        col.typmod = kNoTypmod;
      }
  }

  bool needs_cast(const SetOpLeaf& leaf, size_t c, TypeId to) const {
    const SetOpColumn& col = leaf.columns[c];
    return !col.unknown && col.type != to;
  }

  // flatten_simple_union_all: every operation UNION ALL, every branch returning the
  // union's types as they are.
  bool flattenable(const sql::Select& s) const {
    if (!s.set_operation) {
      const SetOpLeaf& leaf = leaves_[leaf_of_.at(&s)];
      for (size_t c = 0; c < columns_.size(); ++c)
        if (needs_cast(leaf, c, columns_[c].type)) return false;
      return true;
    }
    return s.set_operation->all && flattenable(*s.set_operation->left) &&
           flattenable(*s.set_operation->right);
  }

  // A branch as an Append's input: its plan under a Subquery Scan, which PostgreSQL
  // shows only when it casts a column, else removes (its cost stays in the Append's).
  Child leaf_child(SetOpLeaf& leaf, bool scan_cost, const std::vector<SetOpColumn>& types) {
    Child c;
    const scans::PlanEstimate sub = leaf.plan.root->estimate;
    c.cost = {sub.startup_cost, sub.total_cost, sub.rows};
    c.width = sub.width;
    c.slots = leaf.plan.output_slots;
    double cast_units = 0;
    int width = 0;
    for (size_t i = 0; i < types.size(); ++i) {
      std::shared_ptr<const TypedExpr> cast;
      if (!flat_ && needs_cast(leaf, i, types[i].type)) {
        auto e = std::make_shared<TypedExpr>(expr::coerce(
            column_expr(c.slots[i], leaf.columns[i].type, leaf.columns[i].typmod,
                        leaf.columns[i].name),
            types[i].type, kNoTypmod, expr::CoercionContext::kImplicit, leaf.columns[i].position));
        cast_units += expr_cost_units(*e);
        width += type_avg_width(types[i].type, types[i].typmod);
        cast = std::move(e);
      } else {
        width += type_avg_width(leaf.columns[i].type, leaf.columns[i].typmod);
      }
      c.casts.push_back(std::move(cast));
    }
    const bool shown = std::any_of(c.casts.begin(), c.casts.end(), [](const auto& e) { return e; });
    if (scan_cost) {
      c.cost.total += (cs_.cpu_tuple_cost + cast_units * cs_.cpu_operator_cost) * c.cost.rows;
      if (shown) c.width = width;
    }
    auto scan = std::make_unique<scans::SubqueryScanNode>(
        std::move(leaf.plan.root), "\"*SELECT* " + std::to_string(leaf.number) + "\"", shown,
        leaf.prefix);
    scan->estimate = {c.cost.startup, c.cost.total, c.cost.rows, c.width};
    c.node = std::move(scan);
    return c;
  }

  // cost_append over unordered inputs: the first input's startup, the inputs' totals and
  // cpu_tuple_cost / 2 per row.
  Child append(std::vector<Child> children, int width) {
    Child out;
    std::vector<std::unique_ptr<scans::ExecNode>> nodes;
    std::vector<std::vector<uint32_t>> slots;
    std::vector<std::vector<std::shared_ptr<const TypedExpr>>> casts;
    out.cost.startup = children.front().cost.startup;
    for (Child& c : children) {
      out.cost.rows += c.cost.rows;
      out.cost.total += c.cost.total;
      nodes.push_back(std::move(c.node));
      slots.push_back(std::move(c.slots));
      casts.push_back(std::move(c.casts));
    }
    out.cost.total += cs_.cpu_tuple_cost * kAppendCpuCostMultiplier * out.cost.rows;
    out.width = width;
    std::vector<TypeId> types;
    for (const SetOpColumn& col : columns_) types.push_back(col.type);
    auto node = std::make_unique<scans::AppendNode>(
        std::move(nodes), std::move(slots), std::move(casts),
        std::make_shared<const scans::RowShape>(std::move(types)));
    node->estimate = {out.cost.startup, out.cost.total, out.cost.rows, width};
    out.node = std::move(node);
    for (size_t i = 0; i < columns_.size(); ++i) out.slots.push_back(uint32_t(i));
    out.casts.assign(columns_.size(), nullptr);
    return out;
  }

  // The append relation of flatten_simple_union_all: every branch of the tree, its width
  // the average of the branches' over their rows (set_append_rel_size).
  Child append_relation() {
    // A branch proven empty is no member (set_append_rel_size skips dummy children);
    // with one member left the Append is that member (create_append_path's costs, and
    // setrefs removes the node).
    std::vector<SetOpLeaf*> live;
    for (SetOpLeaf& leaf : leaves_)
      if (!is_dummy(leaf)) live.push_back(&leaf);
    if (live.empty())
      for (SetOpLeaf& leaf : leaves_) live.push_back(&leaf);
    if (live.size() == 1) {  // the keys above print as the member's own
      for (size_t c = 0; c < columns_.size(); ++c) key_texts_[c] = live[0]->columns[c].key_text;
      top_prefix_ = live[0]->prefix;
      return leaf_child(*live[0], !live[0]->simple, columns_);
    }
    std::vector<Child> children;
    double rows = 0, size = 0;
    for (SetOpLeaf* member : live) {
      SetOpLeaf& leaf = *member;
      children.push_back(leaf_child(leaf, !leaf.simple, columns_));
      rows += children.back().cost.rows;
      size += children.back().cost.rows * children.back().width;
    }
    return append(std::move(children), rows > 0 ? int(std::rint(size / rows)) : 0);
  }

  // The plan of a branch whose WHERE is proven false: a Result that returns nothing.
  static bool is_dummy(const SetOpLeaf& leaf) {
    const scans::PlanEstimate& e = leaf.plan.root->estimate;
    return leaf.plan.root->explain_name() == "Result" && e.rows == 0 && e.total_cost == 0;
  }

  // plan_union_children: the operands of `top`, an operand that is the same UNION (or a
  // UNION ALL under a UNION) taken apart into its own.
  void union_children(const sql::SetOperation& top, const sql::Select& s, std::vector<Child>& out) {
    if (s.set_operation) {
      const sql::SetOperation& op = *s.set_operation;
      if (op.all == top.all || op.all) {
        union_children(top, *op.left, out);
        union_children(top, *op.right, out);
        return;
      }
      const std::vector<SetOpColumn>& inner = types_.at(&op);
      for (size_t c = 0; c < columns_.size(); ++c)
        if (inner[c].type != columns_[c].type)
          throw not_supported("a UNION inside another whose column types differ", op.position);
      out.push_back(union_paths(op));
      return;
    }
    out.push_back(leaf_child(leaves_[leaf_of_.at(&s)], true, columns_));
  }

  // generate_union_paths: an Append of the operands; UNION removes duplicates over it.
  Child union_paths(const sql::SetOperation& op) {
    std::vector<Child> children;
    union_children(op, *op.left, children);
    union_children(op, *op.right, children);
    int width = 0;
    for (const SetOpColumn& c : columns_) width += type_avg_width(c.type, c.typmod);
    Child path = append(std::move(children), width);
    if (!op.all) path = make_unique(std::move(path));
    return path;
  }

  std::string key_list() const {
    std::string text;
    for (size_t i = 0; i < columns_.size(); ++i) text += (i ? ", " : "") + key_texts_[i];
    return text;
  }

  // make_union_unique with choose_hashed_setop: the groups are all the input rows; a
  // HashAggregate when its table fits in hash_mem and it is cheaper for the rows the
  // statement fetches (all of them under an ORDER BY), else a Sort and a Unique.
  Child make_unique(Child in) {
    const double groups = in.cost.rows;
    const size_t ncols = columns_.size();
    const double hash_mem = std::floor(double(cs_.work_mem_kb) * cs_.hash_mem_multiplier * 1024.0);
    int partitions = 0;
    const PathCost hashed = cost_hash_distinct(cs_, in.cost, ncols, groups, in.width, &partitions);
    const PathCost sorted = cost_sort(cs_, in.cost, in.cost.rows, in.width);
    PathCost grouped = sorted;
    grouped.total += cs_.cpu_operator_cost * in.cost.rows * double(ncols);
    double fraction = 0;
    if (s_.order_by.empty() && s_.limit) {
      fraction = double(*s_.limit + s_.offset.value_or(0));
      if (fraction >= 1) fraction /= groups;
    }
    const bool hash = ctx_.settings.enable_hashagg &&
                      (maxalign(in.width) + kMinimalTupleHeader) * groups <= hash_mem &&
                      cheaper_fraction(hashed, grouped, fraction);
    std::vector<uint32_t> keys;
    for (size_t i = 0; i < ncols; ++i) keys.push_back(uint32_t(i));
    Child out;
    out.width = in.width;
    out.slots = in.slots;
    out.casts = in.casts;
    if (hash) {
      auto node = std::make_unique<scans::HashAggregateNode>(std::move(in.node), keys, key_list(),
                                                             partitions, kSortMemoryLimitBytes);
      out.cost = hashed;
      node->estimate = {hashed.startup, hashed.total, groups, in.width};
      out.node = std::move(node);
      return out;
    }
    std::vector<scans::SortKey> sort_keys;
    for (uint32_t k : keys) sort_keys.push_back({k, false, false});
    auto sort = std::make_unique<scans::SortNode>(std::move(in.node), sort_keys, key_list(), 0,
                                                  kSortMemoryLimitBytes);
    sort->estimate = {sorted.startup, sorted.total, in.cost.rows, in.width};
    auto unique = std::make_unique<scans::UniqueNode>(std::move(sort), keys);
    out.cost = {sorted.startup, grouped.total, groups};
    unique->estimate = {out.cost.startup, out.cost.total, groups, in.width};
    out.node = std::move(unique);
    sorted_on_all_ = true;
    return out;
  }

  // How the union's columns print above it: the first branch's expressions, read
  // through its Subquery Scan when that is shown (`(("*SELECT* 1".id)::bigint)`).
  void name_columns() {
    const SetOpLeaf& first = leaves_.front();
    bool shown = false;
    for (size_t c = 0; c < columns_.size() && !flat_; ++c)
      shown = shown || needs_cast(first, c, columns_[c].type);
    for (size_t c = 0; c < columns_.size(); ++c) {
      output_names_.push_back(first.columns[c].name);
      if (!shown) {
        key_texts_.push_back(first.columns[c].key_text);
        continue;
      }
      const std::string ref = "\"*SELECT* 1\"." + sql::quote_identifier(first.columns[c].name);
      key_texts_.push_back(needs_cast(first, c, columns_[c].type)
                               ? "((" + ref + ")::" + format_type(columns_[c].type, kNoTypmod) + ")"
                               : ref);
    }
    if (!shown) top_prefix_ = first.prefix;
  }

  std::optional<Child> merge_append();
  Child build_merge_append(std::vector<std::optional<PlannedQuery>> ordered, const PathCost& merged,
                           int width);
  PlannedQuery finish(Child top);
  std::vector<scans::SortKey> bind_order(std::string& text) const;
  void check_names(const sql::Expr& e) const;
  static int leftmost(const sql::Expr& e);

  PlanContext& ctx_;
  const CostSettings& cs_;
  const sql::Select& s_;
  std::vector<SetOpLeaf> leaves_;
  std::map<const sql::Select*, size_t> leaf_of_;
  std::map<const sql::SetOperation*, std::vector<SetOpColumn>> types_;
  std::vector<SetOpColumn> columns_;
  std::vector<std::string> key_texts_;
  std::vector<std::string> output_names_;  // the first branch's
  scans::BranchPrefix top_prefix_;         // what EXPLAIN qualifies above the union
  bool flat_ = false;
  bool sorted_on_all_ = false;  // the top is a Unique over a Sort on every column
  bool merged_ = false;         // the top is a Merge Append in ORDER BY's order
  std::vector<scans::SortKey> order_;
  std::string order_text_;
};

// ORDER BY over the union's output: a column's name or position only (PostgreSQL binds
// anything else against the output columns, then refuses it as not one of them).
std::vector<scans::SortKey> UnionPlanner::bind_order(std::string& text) const {
  std::vector<scans::SortKey> keys;
  for (const sql::OrderItem& o : s_.order_by) {
    const sql::Expr& e = *o.expr;
    size_t col = columns_.size();
    if (e.kind == sql::ExprKind::kIntConst) {
      if (e.ival < 1 || e.ival > int64_t(columns_.size()))
        throw Error("ORDER BY position " + std::to_string(e.ival) + " is not in select list")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
      col = size_t(e.ival - 1);
    } else if (e.kind == sql::ExprKind::kColumnRef && e.qualifier.empty()) {
      for (size_t c = 0; c < columns_.size() && col == columns_.size(); ++c)
        if (output_names_[c] == e.name) col = c;
    }
    if (col == columns_.size()) {
      check_names(e);
      throw Error("invalid UNION/INTERSECT/EXCEPT ORDER BY clause",
                  "Only result column names can be used, not expressions or functions.",
                  "Add the expression/function to every SELECT, or move the UNION into a FROM "
                  "clause.")
          .at_position(leftmost(e))
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
    const bool nulls_first = o.nulls_first.value_or(o.descending);
    keys.push_back({uint32_t(col), o.descending, nulls_first});
    text += (text.empty() ? "" : ", ") + key_texts_[col] + (o.descending ? " DESC" : "");
    if (nulls_first != o.descending) text += nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  return keys;
}

// The names an ORDER BY expression reads, as the output columns' namespace resolves them.
void UnionPlanner::check_names(const sql::Expr& e) const {
  if (e.kind == sql::ExprKind::kColumnRef) {
    if (!e.qualifier.empty())
      throw Error("missing FROM-clause entry for table \"" + e.qualifier + "\"")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedTable);
    if (std::find(output_names_.begin(), output_names_.end(), e.name) == output_names_.end())
      throw Error("column \"" + e.name + "\" does not exist")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedColumn);
  }
  for (const sql::ExprPtr& a : e.args)
    if (a) check_names(*a);
}

int UnionPlanner::leftmost(const sql::Expr& e) {
  int p = e.position;
  for (const sql::ExprPtr& a : e.args)
    if (a && a->position > 0) p = std::min(p, leftmost(*a));
  return p;
}

// generate_orderedappend_paths for an ORDER BY of one output column over an append
// relation of single tables: where some branch's table has a path in that order (an
// index), a Merge Append over each branch's cheapest path in it (a Sort, bounded by the
// LIMIT, over the others'), cost_merge_append's heap on top; kept when it is cheaper
// than the Sort over the Append for the rows the LIMIT fetches.
std::optional<Child> UnionPlanner::merge_append() {
  if (order_.size() != 1) return std::nullopt;
  for (const SetOpLeaf& leaf : leaves_)
    if (!leaf.simple || is_dummy(leaf) || !leaf.select->from) return std::nullopt;
  const scans::SortKey key = order_[0];
  const std::optional<int64_t> bound = limit_tuples(s_);
  PlanContext unsorted{ctx_.catalog, ctx_.data_dir, ctx_.storage, ctx_.settings, ctx_.worker_slots};
  unsorted.settings.enable_sort = false;
  std::vector<std::optional<PlannedQuery>> ordered(leaves_.size());
  bool any = false;
  PathCost input, plain;
  double size = 0;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    PlannedQuery q = plan_select(unsorted, *ordered_leaf(leaves_[i], key.slot, s_.order_by[0]));
    const std::string name = q.root->explain_name();
    const scans::PlanEstimate& own = leaves_[i].plan.root->estimate;
    plain.total += own.total_cost;
    plain.rows += own.rows;
    if (i == 0) plain.startup = own.startup_cost;
    size += own.rows * own.width;
    if (name.find("Index") != std::string::npos && name.find("Bitmap") == std::string::npos &&
        q.root->estimate.total_cost < kDisableCost) {
      input.startup += q.root->estimate.startup_cost;
      input.total += q.root->estimate.total_cost;
      ordered[i] = std::move(q);
      any = true;
      continue;
    }
    const PathCost sorted = cost_sort(cs_, {own.startup_cost, own.total_cost, own.rows}, own.rows,
                                      own.width, 0, bound ? double(*bound) : -1);
    input.startup += sorted.startup;
    input.total += sorted.total;
  }
  if (!any) return std::nullopt;
  const double rows = plain.rows;
  const int width = rows > 0 ? int(std::rint(size / rows)) : 0;
  const double n = std::max<double>(2, double(leaves_.size())), log_n = std::log2(n);
  const double comparison = 2 * cs_.cpu_operator_cost;
  const double heap = comparison * n * log_n;
  const PathCost merged{heap + input.startup,
                        heap + rows * comparison * log_n +
                            cs_.cpu_tuple_cost * kAppendCpuCostMultiplier * rows + input.total,
                        rows};
  plain.total += cs_.cpu_tuple_cost * kAppendCpuCostMultiplier * rows;
  const PathCost sort = cost_sort(cs_, plain, rows, width, 0, bound ? double(*bound) : -1);
  PathCost a = merged, b = sort;
  if (s_.limit || s_.offset.value_or(0) > 0) {
    const double count = s_.limit ? double(*s_.limit) : -1;
    a = cost_limit(merged, double(s_.offset.value_or(0)), count);
    b = cost_limit(sort, double(s_.offset.value_or(0)), count);
  }
  if (!(a.total < b.total || (a.total == b.total && a.startup < b.startup))) return std::nullopt;
  return build_merge_append(std::move(ordered), merged, width);
}

// The Merge Append's nodes: each branch's ordered plan, or a Sort over its own.
Child UnionPlanner::build_merge_append(std::vector<std::optional<PlannedQuery>> ordered,
                                       const PathCost& merged, int width) {
  const scans::SortKey key = order_[0];
  const std::optional<int64_t> bound = limit_tuples(s_);
  const double rows = merged.rows;
  std::vector<std::unique_ptr<scans::ExecNode>> nodes;
  std::vector<std::vector<uint32_t>> columns;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    SetOpLeaf& leaf = leaves_[i];
    std::unique_ptr<scans::ExecNode> node;
    if (ordered[i]) {
      columns.push_back(ordered[i]->output_slots);
      node = std::move(ordered[i]->root);
    } else {
      const scans::PlanEstimate own = leaf.plan.root->estimate;
      const PathCost sorted = cost_sort(cs_, {own.startup_cost, own.total_cost, own.rows}, own.rows,
                                        own.width, 0, bound ? double(*bound) : -1);
      std::string text = leaf.columns[key.slot].key_text + (key.descending ? " DESC" : "");
      if (key.nulls_first != key.descending)
        text += key.nulls_first ? " NULLS FIRST" : " NULLS LAST";
      columns.push_back(leaf.plan.output_slots);
      auto sort_node = std::make_unique<scans::SortNode>(
          std::move(leaf.plan.root),
          std::vector<scans::SortKey>{
              {leaf.plan.output_slots[key.slot], key.descending, key.nulls_first}},
          text, bound.value_or(0), kSortMemoryLimitBytes);
      sort_node->estimate = {sorted.startup, sorted.total, own.rows, own.width};
      node = std::move(sort_node);
    }
    const scans::PlanEstimate shown = node->estimate;
    auto scan = std::make_unique<scans::SubqueryScanNode>(
        std::move(node), "\"*SELECT* " + std::to_string(leaf.number) + "\"", false, leaf.prefix);
    scan->estimate = shown;
    nodes.push_back(std::move(scan));
  }
  std::vector<TypeId> types;
  for (const SetOpColumn& col : columns_) types.push_back(col.type);
  auto node = std::make_unique<scans::MergeAppendNode>(
      std::move(nodes), std::move(columns), order_, order_text_,
      std::make_shared<const scans::RowShape>(std::move(types)));
  node->estimate = {merged.startup, merged.total, rows, width};
  Child out;
  out.node = std::move(node);
  out.cost = merged;
  out.width = width;
  for (size_t i = 0; i < columns_.size(); ++i) out.slots.push_back(uint32_t(i));
  out.casts.assign(columns_.size(), nullptr);
  merged_ = true;
  return out;
}

// ORDER BY's Sort (none over a Unique already in its order), LIMIT and the output.
PlannedQuery UnionPlanner::finish(Child top) {
  std::string key_text;
  std::vector<scans::SortKey> keys = bind_order(key_text);
  for (scans::SortKey& k : keys) k.slot = top.slots[k.slot];  // a lone member's own slots
  std::optional<int64_t> bound = limit_tuples(s_);
  bool presorted = sorted_on_all_ || merged_;
  for (size_t i = 0; i < keys.size() && presorted && !merged_; ++i)
    presorted = order_[i].slot == i && !keys[i].descending && !keys[i].nulls_first;
  PlanTop plan{std::move(top.node), top.cost};
  if (!keys.empty() && !presorted) {
    const PathCost sorted =
        cost_sort(cs_, plan.path, plan.path.rows, top.width, 0, bound ? double(*bound) : -1);
    auto sort = std::make_unique<scans::SortNode>(std::move(plan.node), keys, key_text,
                                                  bound.value_or(0), kSortMemoryLimitBytes);
    sort->estimate = {sorted.startup, sorted.total, sorted.rows, top.width};
    plan = {std::move(sort), sorted};
  }
  if (s_.limit || s_.offset.value_or(0) > 0) add_limit(s_.limit, s_.offset.value_or(0), plan);
  PlannedQuery q;
  q.root = std::move(plan.node);
  for (size_t c = 0; c < columns_.size(); ++c) {
    q.column_names.push_back(output_names_[c]);
    q.output_slots.push_back(top.slots[c]);
    q.output_columns.push_back({output_names_[c], columns_[c].type, columns_[c].typmod});
    q.output_types.push_back(columns_[c].type == TypeId::kInt8 ? OutputType::kInt8
                                                               : OutputType::kInt4);
  }
  q.upper_prefix_table = top_prefix_.table;
  q.upper_prefix_columns = top_prefix_.columns;
  return q;
}

}  // namespace

PlannedQuery plan_set_operation(PlanContext& ctx, const sql::Select& select) {
  return UnionPlanner(ctx, select).plan();
}

}  // namespace tp
