#include "engine/plan/grouping_bind.h"

#include <algorithm>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/aggregate_text.h"
#include "engine/plan/subplans.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

// While binding, a table column reference stands as slot kRefTag + its reference's
// number (so an ungrouped one can name its place in the statement); an aggregate as
// its upper slot.
constexpr uint32_t kRefTag = 1u << 30;

bool is_aggregate_call(const sql::Expr& e) {
  return e.kind == sql::ExprKind::kFuncCall &&
         (e.star_arg || e.name == "count" || e.name == "sum" || e.name == "avg" ||
          e.name == "min" || e.name == "max");
}

// The first aggregate call in `e` (for "aggregate functions are not allowed in ...").
const sql::Expr* find_aggregate(const sql::Expr& e) {
  check_stack_depth();
  if (is_aggregate_call(e)) return &e;
  for (const auto& a : e.args)
    if (const sql::Expr* f = find_aggregate(*a)) return f;
  return nullptr;
}

// AND's conjuncts, as make_ands_implicit splits a qual.
void conjuncts(const sql::Expr& e, std::vector<const sql::Expr*>& out) {
  if (e.kind == sql::ExprKind::kAnd) {
    for (const auto& a : e.args) conjuncts(*a, out);
    return;
  }
  out.push_back(&e);
}

class GroupingBinder {
 public:
  GroupingBinder(const GroupingColumns& cols, const sql::Select& s, GroupedSelect& g)
      : cols_(cols), s_(s), g_(g) {}

  void bind() {
    bind_keys();
    for (const sql::Target& t : s_.targets) bind_target(t);
    bind_having();
    bind_order();
    order_keys_as_order_by();
    collect_input_vars();
  }

 private:
  struct ColumnRef {
    int column;
    int position;
  };

  // Column references tagged with their number; aggregate calls as their upper slots
  // where `aggregates` allows them (not in GROUP BY, which `context` names).
  ColumnLookup tagged_columns() {
    return [&](const sql::Expr& ref) {
      const BoundColumnRef col = cols_.lookup(ref);
      refs_.push_back({int(col.slot), ref.position});
      return BoundColumnRef{kRefTag + uint32_t(refs_.size() - 1), col.type, col.typmod,
                            col.printed};
    };
  }
  CallLookup aggregate_calls(bool aggregates, const char* context) {
    return [this, aggregates, context](const sql::Expr& call) -> std::optional<TypedExpr> {
      if (!is_aggregate_call(call)) return std::nullopt;
      if (!aggregates)
        throw Error(std::string("aggregate functions are not allowed in ") + context)
            .at_position(call.position)
            .with_sqlstate(sqlstate::kGroupingError);
      return aggregate_ref(call);
    };
  }

  TypedExpr bind_raw(const sql::Expr& e, bool aggregates, const char* context) {
    return bind_expr(e, tagged_columns(), aggregate_calls(aggregates, context));
  }

  // An aggregate call as its upper slot; the same call twice is one aggregate.
  TypedExpr aggregate_ref(const sql::Expr& call) {
    BoundAgg a = bind_aggregate(cols_.lookup, call);
    std::string text;
    if (call.star_arg) {
      text = call.name + "(*)";
    } else {
      std::string arg;
      for (const auto& x : call.args) {
        const std::shared_ptr<TypedExpr> bound = bind_select_expr_text(*x);
        std::string text = deparse(*bound);
        // min / max over varchar are text's: the argument is relabeled.
        if ((a.kind == scans::AggKind::kMin || a.kind == scans::AggKind::kMax) &&
            bound->type == TypeId::kVarchar)
          text = (bound->kind == TypedExpr::Kind::kColumn ? "(" + text + ")" : text) + "::text";
        arg += (arg.empty() ? "" : ", ") + text;
      }
      text = call.name + "(" + (call.distinct ? "DISTINCT " : "") + arg + ")";
    }
    size_t k = 0;
    while (k < agg_texts_.size() && agg_texts_[k] != text) ++k;
    if (k == agg_texts_.size()) {
      g_.aggs.push_back(std::move(a));
      agg_texts_.push_back(text);
    }
    const BoundAgg& bound = g_.aggs[k];
    const OutputAggregate out = output_aggregate(bound.kind, bound.type);
    return column_expr(uint32_t(g_.keys.size() + k), out.result, kNoTypmod, text);
  }

  // An aggregate's argument as EXPLAIN prints it inside the call: a column bare, an
  // operator in its parentheses ("sum((a + b))").
  std::shared_ptr<TypedExpr> bind_select_expr_text(const sql::Expr& e) {
    return std::make_shared<TypedExpr>(bind_expr(e, cols_.lookup));
  }

  // The table expression of a tagged expression: each reference back to its column.
  TypedExpr untagged(TypedExpr e) const {
    check_stack_depth();
    if (e.kind == TypedExpr::Kind::kColumn && e.slot >= kRefTag)
      e.slot = uint32_t(refs_[e.slot - kRefTag].column);
    for (TypedExpr& a : e.args) a = untagged(std::move(a));
    return e;
  }

  // The grouping key `e` is, if any: a constant is none (it groups nothing).
  std::optional<size_t> matching_key(const TypedExpr& e) const {
    if (e.kind == TypedExpr::Kind::kConst) return std::nullopt;
    const std::string text = deparse(e);
    for (size_t i = 0; i < g_.keys.size(); ++i)
      if (g_.keys[i].expr->type == e.type && key_texts_[i] == text) return i;
    return std::nullopt;
  }

  // `e` over upper slots: each largest part that is a grouping key becomes its slot;
  // a column reference left over is PostgreSQL's grouping error.
  TypedExpr to_upper(TypedExpr e) const {
    check_stack_depth();
    if (std::optional<size_t> k = matching_key(e)) {
      const GroupKey& key = g_.keys[*k];
      return column_expr(uint32_t(*k), key.expr->type, key.expr->typmod, key.text);
    }
    if (e.kind == TypedExpr::Kind::kColumn && e.slot >= kRefTag) {
      const ColumnRef& ref = refs_[e.slot - kRefTag];
      throw Error("column \"" + cols_.error_name(uint32_t(ref.column)) +
                  "\" must appear in the GROUP BY clause or be used in an aggregate function")
          .at_position(ref.position)
          .with_sqlstate(sqlstate::kGroupingError);
    }
    for (TypedExpr& a : e.args) a = to_upper(std::move(a));
    return e;
  }

  // GROUP BY's items as findTargetlistEntrySQL92 reads them: an ordinal is that select
  // entry; a bare name is the table's column first, else an output column's alias.
  const sql::Expr& group_item(const sql::Expr& item) {
    if (item.kind == sql::ExprKind::kIntConst) {
      if (item.ival < 1 || size_t(item.ival) > s_.targets.size() ||
          s_.targets[size_t(item.ival - 1)].expr->kind == sql::ExprKind::kStar)
        throw Error("GROUP BY position " + std::to_string(item.ival) + " is not in select list")
            .at_position(item.position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
      return *s_.targets[size_t(item.ival - 1)].expr;
    }
    if (item.kind == sql::ExprKind::kColumnRef && item.qualifier.empty() &&
        !cols_.has_name(item.name)) {
      const sql::Expr* found = nullptr;
      for (const sql::Target& t : s_.targets) {
        if (output_name(t) != item.name) continue;
        if (found && !same_text(*found, *t.expr))
          throw Error("GROUP BY \"" + item.name + "\" is ambiguous")
              .at_position(item.position)
              .with_sqlstate(sqlstate::kAmbiguousColumn);
        found = t.expr.get();
      }
      if (found) return *found;
    }
    return item;
  }

  std::string output_name(const sql::Target& t) const {
    if (!t.alias.empty()) return t.alias;
    return sql::default_column_name(*t.expr);
  }

  // Whether two select-list entries are one expression (binding them adds nothing to
  // the query's aggregates).
  bool same_text(const sql::Expr& a, const sql::Expr& b) {
    const size_t aggs = g_.aggs.size(), refs = refs_.size();
    const bool same = deparse(bind_raw(a, true, "")) == deparse(bind_raw(b, true, ""));
    g_.aggs.resize(aggs);
    agg_texts_.resize(aggs);
    refs_.resize(refs);
    return same;
  }

  void bind_keys() {
    for (const auto& item : s_.group_by) {
      const sql::Expr& e = group_item(*item);
      if (e.kind == sql::ExprKind::kStar)
        throw Error("GROUP BY * is not valid").at_position(e.position);
      TypedExpr raw = bind_raw(e, false, "GROUP BY");
      if (const sql::Expr* agg = find_aggregate(e))
        throw Error("aggregate functions are not allowed in GROUP BY")
            .at_position(agg->position)
            .with_sqlstate(sqlstate::kGroupingError);
      raw = finish_output(std::move(raw));
      const std::string text = deparse(raw);
      bool repeated = false;
      for (size_t i = 0; i < g_.keys.size(); ++i)
        repeated = repeated || (key_texts_[i] == text && g_.keys[i].expr->type == raw.type);
      if (repeated) continue;  // GROUP BY a, a groups by a once
      GroupKey k;
      k.expr = std::make_shared<TypedExpr>(untagged(std::move(raw)));
      if (k.expr->kind == TypedExpr::Kind::kColumn) k.column = int(k.expr->slot);
      k.text = text;
      key_texts_.push_back(text);
      g_.keys.push_back(std::move(k));
    }
  }

  void bind_target(const sql::Target& t) {
    const sql::Expr& e = *t.expr;
    if (e.kind == sql::ExprKind::kStar) {
      for (auto& [ref, name] : cols_.star(e))
        add_output(finish_output(bind_raw(*ref, true, "")), name);
      return;
    }
    add_output(finish_output(bind_raw(e, true, "")),
               t.alias.empty() ? sql::default_column_name(e) : t.alias);
  }

  void add_output(TypedExpr raw, std::string name) {
    const std::optional<size_t> key = matching_key(raw);
    output_key_.push_back(key ? int(*key) : -1);
    raw_outputs_.push_back(raw);
    g_.outputs.push_back(std::make_shared<TypedExpr>(to_upper(std::move(raw))));
    g_.names.push_back(std::move(name));
  }

  void bind_having() {
    if (!s_.having) return;
    std::vector<const sql::Expr*> parts;
    conjuncts(*s_.having, parts);
    std::vector<TypedExpr> kept;
    for (const sql::Expr* p : parts) {
      TypedExpr raw = bind_condition(*p, tagged_columns(), "HAVING", aggregate_calls(true, ""));
      TypedExpr upper = to_upper(raw);
      // A conjunct over grouping keys only filters rows as well as groups: WHERE does it.
      // Without GROUP BY it stays in HAVING too (no rows still make a group).
      if (!find_aggregate(*p) && !expr_is_volatile(upper)) {
        g_.having_to_where.push_back(p);
        if (!g_.keys.empty()) continue;
      }
      // A constant TRUE filters nothing (eval_const_expressions drops it from the AND).
      if (upper.is_const() && !upper.isnull && upper.value.datum() != 0) continue;
      raw_having_.push_back(std::move(raw));
      kept.push_back(std::move(upper));
    }
    if (kept.empty()) return;
    if (kept.size() == 1) {
      g_.having = std::make_shared<TypedExpr>(std::move(kept[0]));
      return;
    }
    TypedExpr all;
    all.kind = TypedExpr::Kind::kAnd;
    all.type = TypeId::kBool;
    all.args = std::move(kept);
    g_.having = std::make_shared<TypedExpr>(std::move(all));
  }

  // ORDER BY as findTargetlistEntrySQL92 reads it in a grouped query: an output name or
  // ordinal is that select entry; anything else an expression over the grouped row.
  void bind_order() {
    for (const sql::OrderItem& o : s_.order_by) {
      const sql::Expr& e = *o.expr;
      UpperSortKey k;
      k.descending = o.descending;
      k.nulls_first = o.nulls_first.value_or(o.descending);
      std::optional<size_t> target;
      if (e.kind == sql::ExprKind::kIntConst) {
        if (e.ival < 1 || size_t(e.ival) > g_.outputs.size())
          throw Error("ORDER BY position " + std::to_string(e.ival) + " is not in select list")
              .at_position(e.position)
              .with_sqlstate(sqlstate::kInvalidColumnReference);
        target = size_t(e.ival - 1);
      } else if (e.kind == sql::ExprKind::kColumnRef && e.qualifier.empty()) {
        for (size_t i = 0; i < g_.names.size(); ++i) {
          if (g_.names[i] != e.name) continue;
          if (target && deparse(*g_.outputs[*target]) != deparse(*g_.outputs[i]))
            throw Error("ORDER BY \"" + e.name + "\" is ambiguous")
                .at_position(e.position)
                .with_sqlstate(sqlstate::kAmbiguousColumn);
          if (!target) target = i;
        }
      }
      std::optional<TypedExpr> raw;
      if (target) {
        k.expr = g_.outputs[*target];
        k.group_key = output_key_[*target];
      } else {
        raw = finish_output(bind_raw(e, true, ""));
        const std::optional<size_t> key = matching_key(*raw);
        k.group_key = key ? int(*key) : -1;
        k.expr = std::make_shared<TypedExpr>(to_upper(*raw));
      }
      // An expression ORDER BY already sorts by, either way, is not sorted by again
      // (targetIsInSortList takes the commutator too).
      const std::string text = deparse(*k.expr);
      if (std::any_of(g_.order.begin(), g_.order.end(),
                      [&](const UpperSortKey& o) { return deparse(*o.expr) == text; }))
        continue;
      // Neither a select-list entry nor a key: a resjunk one (its own column above the
      // grouping).
      if (raw) {
        bool listed = k.group_key >= 0;
        for (const auto& out : g_.outputs) listed = listed || deparse(*out) == text;
        if (!listed) raw_resjunk_.push_back(std::move(*raw));
      }
      const bool bare = k.group_key >= 0 ? g_.keys[size_t(k.group_key)].column >= 0
                                         : k.expr->kind == TypedExpr::Kind::kColumn &&
                                               k.expr->slot < g_.keys.size();
      k.text = bare ? deparse(*k.expr) : "(" + deparse(*k.expr) + ")";
      g_.order.push_back(std::move(k));
    }
  }

  // transformGroupClause gives a key ORDER BY names ORDER BY's direction; then
  // preprocess_groupclause moves the keys ORDER BY starts with to the front, when the
  // rest of ORDER BY is keys too or the keys run out first.
  void order_keys_as_order_by() {
    std::vector<bool> directed(g_.keys.size(), false);
    for (const UpperSortKey& o : g_.order) {
      if (o.group_key < 0 || directed[size_t(o.group_key)]) continue;
      directed[size_t(o.group_key)] = true;
      g_.keys[size_t(o.group_key)].descending = o.descending;
      g_.keys[size_t(o.group_key)].nulls_first = o.nulls_first;
    }
    if (g_.order.empty()) return;
    std::vector<size_t> moved;
    bool partial = false;
    for (const UpperSortKey& o : g_.order) {
      const GroupKey* k = o.group_key >= 0 ? &g_.keys[size_t(o.group_key)] : nullptr;
      if (!k || k->descending != o.descending || k->nulls_first != o.nulls_first ||
          std::find(moved.begin(), moved.end(), size_t(o.group_key)) != moved.end()) {
        partial = true;
        break;
      }
      moved.push_back(size_t(o.group_key));
    }
    if (moved.empty() || (partial && moved.size() < g_.keys.size())) return;
    for (size_t i = 0; i < g_.keys.size(); ++i)
      if (std::find(moved.begin(), moved.end(), i) == moved.end()) moved.push_back(i);
    renumber_keys(moved);
  }

  // Puts key moved[i] at position i, with every upper expression following it.
  void renumber_keys(const std::vector<size_t>& moved) {
    std::vector<uint32_t> new_slot(g_.upper_width());
    for (size_t i = 0; i < new_slot.size(); ++i) new_slot[i] = uint32_t(i);
    for (size_t i = 0; i < moved.size(); ++i) new_slot[moved[i]] = uint32_t(i);
    std::vector<GroupKey> keys;
    std::vector<std::string> texts;
    for (size_t i : moved) {
      keys.push_back(g_.keys[i]);
      texts.push_back(key_texts_[i]);
    }
    g_.keys = std::move(keys);
    key_texts_ = std::move(texts);
    std::vector<const TypedExpr*> done;
    auto renumber = [&](const std::shared_ptr<TypedExpr>& e) {
      if (!e || std::find(done.begin(), done.end(), e.get()) != done.end()) return;
      done.push_back(e.get());
      renumber_slots(*e, new_slot);
    };
    for (auto& e : g_.outputs) renumber(e);
    renumber(g_.having);
    for (auto& o : g_.order) {
      renumber(o.expr);
      if (o.group_key >= 0) o.group_key = int(new_slot[size_t(o.group_key)]);
    }
    for (int& k : output_key_)
      if (k >= 0) k = int(new_slot[size_t(k)]);
  }

  static void renumber_slots(TypedExpr& e, const std::vector<uint32_t>& new_slot) {
    check_stack_depth();
    if (e.kind == TypedExpr::Kind::kColumn && e.slot < new_slot.size()) e.slot = new_slot[e.slot];
    for (TypedExpr& a : e.args) renumber_slots(a, new_slot);
  }

  // The table columns the final target reads outside its grouping keys, as
  // make_group_input_target pulls them: the select list's non-key entries, the
  // resjunk ones, then HAVING (aggregates' arguments included).
  void collect_input_vars() {
    for (size_t i = 0; i < g_.keys.size(); ++i) {
      bool listed = std::find(output_key_.begin(), output_key_.end(), int(i)) != output_key_.end();
      if (!listed) resjunk_keys_.push_back(i);
    }
    auto entry = [&](const TypedExpr& raw) {
      GroupedSelect::TargetEntry t{-1, raw.type, raw.typmod};
      if (raw.kind == TypedExpr::Kind::kColumn && raw.slot >= kRefTag)
        t.column = refs_[raw.slot - kRefTag].column;
      g_.target.push_back(t);
      g_.target_cost_units += expr_cost_units(raw);
    };
    for (const TypedExpr& r : raw_outputs_) entry(r);
    for (const TypedExpr& r : raw_resjunk_) entry(r);
    for (size_t k : resjunk_keys_) {
      const GroupKey& key = g_.keys[k];
      g_.target.push_back({key.column, key.expr->type, key.expr->typmod});
      g_.target_cost_units += expr_cost_units(*key.expr);
    }
    std::vector<int>& vars = g_.input_vars;
    auto pull = [&](const TypedExpr& raw) {
      std::vector<uint32_t> slots;
      expr_slots(raw, slots);
      for (uint32_t s : slots)
        if (s >= kRefTag) vars.push_back(refs_[s - kRefTag].column);
    };
    for (size_t i = 0; i < raw_outputs_.size(); ++i)
      if (output_key_[i] < 0) pull(raw_outputs_[i]);
    for (const TypedExpr& r : raw_resjunk_) pull(r);
    for (const BoundAgg& a : g_.aggs) {
      if (a.column >= 0) vars.push_back(a.column);
      if (a.arg) {
        std::vector<uint32_t> slots;
        expr_slots(*a.arg, slots);
        for (uint32_t s : slots) vars.push_back(int(s));
      }
    }
    for (const TypedExpr& r : raw_having_) pull(r);
  }

  const GroupingColumns& cols_;
  const sql::Select& s_;
  GroupedSelect& g_;
  std::vector<ColumnRef> refs_;
  std::vector<std::string> agg_texts_;  // per aggregate: "count(*)", "avg((a + 1))"
  std::vector<int> output_key_;       // per select-list entry, the key it is (sortgroupref), or -1
  std::vector<size_t> resjunk_keys_;  // the keys the select list does not name
  std::vector<std::string> key_texts_;  // each key's deparse over tagged references
  std::vector<TypedExpr> raw_outputs_;  // the select list over tagged references
  std::vector<TypedExpr> raw_resjunk_;
  std::vector<TypedExpr> raw_having_;
};

}  // namespace

GroupedSelect bind_grouped_select(const RelationEntry& rel, const sql::Select& s) {
  GroupingColumns cols;
  // Beside InitPlans EXPLAIN's range table holds several relations: keys are qualified.
  std::string prefix;
  if (qualify_sort_keys()) {
    const std::string ref = s.from && !s.from->alias.empty() ? s.from->alias : rel.name;
    const std::string shown = subplan_display_name(ref);
    prefix = sql::quote_identifier(shown.empty() ? ref : shown) + ".";
  }
  cols.lookup = [&rel, prefix](const sql::Expr& ref) {
    const int c = bind_column(rel, ref);
    const Column& col = rel.columns[size_t(c)];
    return BoundColumnRef{uint32_t(c), col.type, col.typmod,
                          prefix + sql::quote_identifier(col.name)};
  };
  cols.has_name = [&rel](const std::string& name) {
    return std::any_of(rel.columns.begin(), rel.columns.end(),
                       [&](const Column& c) { return c.name == name; });
  };
  cols.error_name = [&rel](uint32_t c) { return rel.name + "." + rel.columns[c].name; };
  cols.star = [&rel](const sql::Expr& star) {
    std::vector<std::pair<sql::ExprPtr, std::string>> out;
    for (const Column& c : rel.columns) {
      auto ref = std::make_unique<sql::Expr>(sql::ExprKind::kColumnRef, star.position);
      ref->name = c.name;
      out.emplace_back(std::move(ref), c.name);
    }
    return out;
  };
  return bind_grouped_select(cols, s);
}

GroupedSelect bind_grouped_select(const GroupingColumns& columns, const sql::Select& s) {
  GroupedSelect g;
  GroupingBinder(columns, s, g).bind();
  return g;
}

}  // namespace tp
