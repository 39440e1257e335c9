#include "engine/session/row_source_aggregates.h"

#include <algorithm>
#include <optional>

#include "engine/core/error.h"

namespace tp {
namespace {

using sql::Expr;
using sql::ExprKind;

std::optional<scans::AggKind> aggregate_kind(const Expr& e) {
  if (e.kind != ExprKind::kFuncCall) return std::nullopt;
  if (e.name == "count") return e.star_arg ? scans::AggKind::kCountStar : scans::AggKind::kCount;
  if (e.name == "sum") return scans::AggKind::kSum;
  if (e.name == "avg") return scans::AggKind::kAvg;
  if (e.name == "min") return scans::AggKind::kMin;
  if (e.name == "max") return scans::AggKind::kMax;
  return std::nullopt;
}

const Expr* find_column(const Expr& e) {
  if (e.kind == ExprKind::kColumnRef || e.kind == ExprKind::kStar) return &e;
  for (const auto& a : e.args)
    if (const Expr* c = find_column(*a)) return c;
  return nullptr;
}

const Expr* find_aggregate(const Expr& e) {
  if (aggregate_kind(e)) return &e;
  for (const auto& a : e.args)
    if (const Expr* c = find_aggregate(*a)) return c;
  return nullptr;
}

Error ungrouped(const Expr& c, const std::string& qualifier) {
  std::string name = c.kind == ExprKind::kStar ? "*" : c.name;
  if (!qualifier.empty() && c.kind != ExprKind::kStar) name = qualifier + "." + name;
  return Error("column \"" + name +
               "\" must appear in the GROUP BY clause or be used in an aggregate function")
      .at_position(c.position)
      .with_sqlstate(sqlstate::kGroupingError);
}

}  // namespace

bool row_source_aggregates(const std::vector<const Expr*>& targets,
                           const std::vector<sql::OrderItem>& order_by,
                           const std::string& qualifier) {
  bool any = false;
  for (const Expr* t : targets) any = any || find_aggregate(*t) != nullptr;
  if (!any) return false;
  for (const Expr* t : targets) {
    if (aggregate_kind(*t)) {
      if (t->distinct)
        throw Error("aggregate(DISTINCT ...) over generate_series is not supported", "",
                    "Aggregates over a table take DISTINCT.")
            .at_position(t->position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      if (!t->star_arg && t->args.size() != 1)
        throw Error("function " + t->name + "() does not exist")
            .at_position(t->position)
            .with_sqlstate(sqlstate::kUndefinedFunction);
      for (const auto& a : t->args)
        if (const Expr* inner = find_aggregate(*a))
          throw Error("aggregate function calls cannot be nested")
              .at_position(inner->position)
              .with_sqlstate(sqlstate::kGroupingError);
      continue;
    }
    if (const Expr* inner = find_aggregate(*t))
      throw Error("an aggregate inside an expression over generate_series is not supported", "",
                  "Write the aggregate as a select-list item of its own.")
          .at_position(inner->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (const Expr* c = find_column(*t)) throw ungrouped(*c, qualifier);
  }
  for (const sql::OrderItem& o : order_by) {
    const Expr& key = *o.expr;
    if (key.kind == ExprKind::kIntConst) {
      if (key.ival < 1 || key.ival > int64_t(targets.size()))
        throw Error("ORDER BY position " + std::to_string(key.ival) + " is not in select list")
            .at_position(key.position)
            .with_sqlstate(sqlstate::kInvalidColumnReference);
    } else if (!aggregate_kind(key)) {
      if (const Expr* c = find_column(key)) throw ungrouped(*c, qualifier);
    }
  }
  return true;
}

RowSourceAggregator::RowSourceAggregator(std::vector<const Expr*> targets)
    : targets_(std::move(targets)),
      kinds_(targets_.size()),
      states_(targets_.size()),
      typed_(targets_.size(), false) {
  for (size_t i = 0; i < targets_.size(); ++i)
    if (auto k = aggregate_kind(*targets_[i]))
      kinds_[i] = output_aggregate(
          *k, *k == scans::AggKind::kCountStar ? ColumnType::kInt8 : ColumnType::kInt4);
}

void RowSourceAggregator::add(EvalContext& ec) {
  for (size_t i = 0; i < targets_.size(); ++i) {
    const Expr& t = *targets_[i];
    auto kind = aggregate_kind(t);
    if (!kind) continue;
    scans::AggState& st = states_[i];
    if (*kind == scans::AggKind::kCountStar) {
      ++st.count;
      continue;
    }
    Value v = evaluate(*t.args[0], ec);
    if (v.type == ValueType::kNull) continue;
    if (*kind != scans::AggKind::kCount) {
      if (v.type != ValueType::kInt4 && v.type != ValueType::kInt8)
        throw Error(t.name + "() over " + value_type_name(v.type) +
                    " values is not supported over generate_series")
            .at_position(t.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      // The first value's type is the input type (an int8 series makes sum numeric).
      if (!typed_[i]) {
        kinds_[i] = output_aggregate(
            *kind, v.type == ValueType::kInt8 ? ColumnType::kInt8 : ColumnType::kInt4);
        typed_[i] = true;
      }
      st.sum += v.i;
      st.min = st.count == 0 ? v.i : std::min(st.min, v.i);
      st.max = st.count == 0 ? v.i : std::max(st.max, v.i);
    }
    ++st.count;
  }
}

std::vector<Value> RowSourceAggregator::result(EvalContext& ec) const {
  std::vector<Value> row;
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (!aggregate_kind(*targets_[i])) {
      row.push_back(evaluate(*targets_[i], ec));
      continue;
    }
    const OutputAggregate& agg = kinds_[i];
    std::string text = format_aggregate(agg, states_[i]);
    if (text.empty()) {
      row.push_back(Value{});  // NULL: no input rows
    } else if (agg.type == OutputType::kNumeric) {
      row.push_back(Value{ValueType::kNumeric, 0, std::stod(text), text});
    } else {
      row.push_back(agg.type == OutputType::kInt4 ? Value::int4(std::stoll(text))
                                                  : Value::int8(std::stoll(text)));
    }
  }
  return row;
}

}  // namespace tp
