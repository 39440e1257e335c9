#include "engine/plan/distinct_clause.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/order_by.h"
#include "engine/plan/select_list.h"
#include "engine/sql/identifier.h"
#include "scans/sort_limit_agg.h"

namespace tp {

DistinctClause bind_distinct_clause(const RelationEntry& rel, const std::vector<int>& columns,
                                    const std::vector<std::shared_ptr<TypedExpr>>& exprs,
                                    const std::vector<int>& slot_columns,
                                    const std::vector<std::pair<int, bool>>& order_keys,
                                    const std::string& order_text,
                                    const std::vector<int>& order_columns,
                                    const std::vector<int>& fixed) {
  DistinctClause d{order_keys, order_text, order_columns, "", {}, {}, 0};
  std::vector<int> seen = fixed, unclaimed = order_columns;
  for (const auto& [c, desc] : order_keys) seen.push_back(c);
  auto name = [&](int c) { return sql::quote_identifier(rel.columns[size_t(c)].name); };
  const auto estimate = [&](int c) {
    if (std::find(d.estimate_vars.begin(), d.estimate_vars.end(), c) == d.estimate_vars.end())
      d.estimate_vars.push_back(c);
  };
  for (size_t i = 0; i < columns.size(); ++i) {
    int c = columns[i];
    std::string key_name;
    if (c < 0) {
      // A computed entry, computed_key(i): an earlier entry printed the same stands for
      // it; the first one's Vars estimate the groups.
      const std::string text = deparse(*exprs[i]);
      size_t first = 0;
      while (columns[first] >= 0 || deparse(*exprs[first]) != text) ++first;
      c = computed_key(first);
      if (first == i) {
        d.exprs.push_back(exprs[i]);
        if (exprs[i]->type == TypeId::kBool)
          ++d.boolean_exprs;
        else
          for (int slot : expr_columns(*exprs[i])) estimate(slot_columns[size_t(slot)]);
      }
      key_name = "(" + text + ")";
    } else {
      key_name = name(c);
    }
    // An ORDER BY column stands for the first select-list entry that is that column.
    auto claimed = std::find(unclaimed.begin(), unclaimed.end(), c);
    if (claimed != unclaimed.end())
      unclaimed.erase(claimed);
    else
      d.group.push_back(c);
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    if (c < 0 && exprs[i]->is_const()) continue;  // in the Group Key, but no pathkey
    d.keys.push_back({c, false});
    d.key_text += (d.key_text.empty() ? "" : ", ") + key_name;
  }
  for (int c : d.group)
    d.group_text += (d.group_text.empty() ? "" : ", ") +
                    (c >= 0 ? name(c) : deparse(*exprs[computed_index(c)]));
  return d;
}

DistinctQuery distinct_limits(const PlannerSettings& settings, const sql::Select& s,
                              std::optional<int64_t> limit_tuples) {
  DistinctQuery dq;
  if (s.limit) dq.limit_count = double(*s.limit);
  dq.offset = double(s.offset.value_or(0));
  dq.limit_tuples = limit_tuples ? double(*limit_tuples) : -1;
  dq.enable_sort = settings.enable_sort;
  dq.enable_hashagg = settings.enable_hashagg;
  return dq;
}

std::string deparse_aggregate_expr(const sql::Expr& e, const std::vector<size_t>* params,
                                   size_t* next) {
  check_stack_depth();
  switch (e.kind) {
    case sql::ExprKind::kFuncCall: {
      const size_t k = next ? (*next)++ : 0;
      if (params) return "$" + std::to_string((*params)[k]);
      std::string args = e.star_arg ? "*" : e.distinct ? "DISTINCT " : "";
      for (size_t i = 0; i < e.args.size(); ++i)
        args += (i ? ", " : "") + deparse_aggregate_expr(*e.args[i], params, next);
      return e.name + "(" + args + ")";
    }
    case sql::ExprKind::kColumnRef:
      return sql::quote_identifier(e.name);
    case sql::ExprKind::kIntConst:
      return std::to_string(e.ival);
    case sql::ExprKind::kNumConst:
      return e.sval;
    case sql::ExprKind::kStrConst:
      return "'" + e.sval + "'::text";
    case sql::ExprKind::kUnary:
      if (e.name == "+") return deparse_aggregate_expr(*e.args[0], params, next);
      return "(" + e.name + " " + deparse_aggregate_expr(*e.args[0], params, next) + ")";
    case sql::ExprKind::kBinary: {
      // In order: `next` counts the aggregates left to right.
      const std::string left = deparse_aggregate_expr(*e.args[0], params, next);
      const std::string right = deparse_aggregate_expr(*e.args[1], params, next);
      return "(" + left + " " + e.name + " " + right + ")";
    }
    default:
      return "?";
  }
}

namespace {

// The operators of a select-list expression over aggregates (arithmetic, negation).
int operator_count(const sql::Expr& e) {
  check_stack_depth();
  if (e.kind == sql::ExprKind::kFuncCall) return 0;
  const bool op =
      e.kind == sql::ExprKind::kBinary || (e.kind == sql::ExprKind::kUnary && e.name != "+");
  int n = op ? 1 : 0;
  for (const auto& a : e.args) n += operator_count(*a);
  return n;
}

}  // namespace

std::unique_ptr<scans::ExecNode> distinct_over_aggregate(const PlannerSettings& settings,
                                                         const sql::Select& s,
                                                         std::optional<int64_t> limit_tuples,
                                                         std::unique_ptr<scans::ExecNode> aggregate,
                                                         PathCost& path,
                                                         scans::InitPlanResultNode*& init_plans) {
  init_plans = dynamic_cast<scans::InitPlanResultNode*>(aggregate.get());
  // The InitPlans' values are PostgreSQL's Params $n.
  const std::vector<size_t>* params = init_plans ? &init_plans->outputs() : nullptr;
  size_t next = 0;
  DistinctQuery dq = distinct_limits(settings, s, limit_tuples);
  DistinctNodeSpec spec;
  std::vector<std::string> keys;
  for (const sql::Target& t : s.targets) {
    // A Sort Key names the Aggregate's output column, which PostgreSQL parenthesizes; a
    // Group Key prints the expression itself.
    const std::string expr = deparse_aggregate_expr(*t.expr, params, &next);
    const std::string key = "(" + expr + ")";
    spec.group_text += (spec.group_text.empty() ? "" : ", ") + expr;
    dq.hash_output_cost += settings.costs.cpu_operator_cost * operator_count(*t.expr);
    // Equal expressions are one sort key (one equivalence class).
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    spec.key_text += (spec.key_text.empty() ? "" : ", ") + key;
  }
  dq.unique_columns = keys.size();
  dq.group_columns = s.targets.size();
  dq.width = spec.width = aggregate->estimate.width;
  spec.one_row = true;
  const DistinctChoice c = choose_distinct(settings.costs, dq, {{{{path, false}}, 0, 1}});
  path = c.distinct;
  return build_distinct(std::move(aggregate), c, spec);
}

}  // namespace tp
