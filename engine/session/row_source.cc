#include "engine/session/row_source.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/session_memory.h"
#include "engine/session/row_source_aggregates.h"
#include "engine/session/series.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

using sql::Expr;
using sql::ExprKind;

// A series from evaluated arguments, which must be integers.
Series value_series(const std::vector<Value>& args, int position) {
  bool any8 = false;
  std::vector<int64_t> ints;
  for (const Value& v : args) {
    if (v.type != ValueType::kInt4 && v.type != ValueType::kInt8)
      refuse_series_types(std::string(value_type_name(v.type)) + ", ...", position);
    any8 |= v.type == ValueType::kInt8;
    ints.push_back(v.i);
  }
  return make_series(ints, any8, position);
}

Value series_value(const Series& s, uint64_t k) {
  return s.int8 ? Value::int8(s.at(k)) : Value::int4(s.at(k));
}

// Evaluates `targets` once per row of the lockstep expansion of the
// generate_series calls they contain (PostgreSQL 10+ semantics: as many rows
// as the longest series; we refuse the NULL padding since columns hold no NULLs),
// at most `limit` rows.
void expand_targets(const std::vector<const Expr*>& targets, RowSourceContext& ctx,
                    const std::function<void(const std::vector<Value>&)>& emit,
                    uint64_t* count_only, uint64_t limit = UINT64_MAX) {
  std::vector<const Expr*> calls;
  for (const Expr* t : targets) find_series_calls(*t, calls);
  std::map<const Expr*, Series> series;
  std::map<const Expr*, Value> current;
  EvalContext ec;
  ec.random = ctx.random;
  ec.session_function = [&](const Expr& e, const std::vector<Value>& args) -> Value {
    auto it = current.find(&e);
    if (it != current.end()) return it->second;
    if (ctx.session_function) return ctx.session_function(e, args);
    throw Error("function " + e.name + "() does not exist")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
  };
  uint64_t rows = calls.empty() ? 1 : 0;
  for (const Expr* c : calls) {
    std::vector<Value> args;
    for (auto& a : c->args) args.push_back(evaluate(*a, ec));
    Series s = value_series(args, c->position);
    series[c] = s;
    rows = std::max(rows, s.count());
  }
  for (auto& [c, s] : series)
    if (s.count() != rows)
      throw Error("generate_series calls in one row have different lengths", "",
                  "tidepool columns hold no NULLs, so every series must have the same length.")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (count_only) {
    *count_only = rows;
    return;
  }
  rows = std::min(rows, limit);
  refuse_too_many(rows);
  std::vector<Value> row(targets.size());
  for (uint64_t r = 0; r < rows; ++r) {
    for (auto& [c, s] : series) current[c] = series_value(s, r);
    for (size_t i = 0; i < targets.size(); ++i) row[i] = evaluate(*targets[i], ec);
    emit(row);
    if (ctx.tick && (r + 1) % RowSourceContext::kTickRows == 0) ctx.tick(r + 1, rows);
  }
}

}  // namespace

std::vector<std::string> row_source_columns(const sql::Select& s) {
  std::vector<std::string> names;
  if (!s.values.empty()) {
    for (size_t i = 0; i < s.values.front().size(); ++i)
      names.push_back("column" + std::to_string(i + 1));
    return names;
  }
  for (const auto& t : s.targets) {
    if (t.expr->kind == ExprKind::kStar) {
      if (s.from && s.from->is_function) {
        names.push_back(!s.from->column_aliases.empty() ? s.from->column_aliases[0]
                        : !s.from->alias.empty()        ? s.from->alias
                                                        : s.from->name);
        continue;
      }
    }
    names.push_back(t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias);
  }
  return names;
}

namespace {

using EmitFn = std::function<void(const std::vector<Value>&)>;

// VALUES (...), (...): each row's targets, expanded (set-returning calls multiply rows).
void run_values(const sql::Select& s, RowSourceContext& ctx, const EmitFn& emit,
                uint64_t* count_only) {
  if (count_only) *count_only = 0;
  for (const auto& row : s.values) {
    std::vector<const Expr*> targets;
    for (auto& e : row) targets.push_back(e.get());
    uint64_t n = 0;
    expand_targets(targets, ctx, emit, count_only ? &n : nullptr);
    if (count_only) *count_only += n;
  }
}

// SELECT without FROM.
void run_targets(const sql::Select& s, RowSourceContext& ctx, const EmitFn& emit,
                 uint64_t* count_only) {
  if (s.where || !s.order_by.empty())
    throw Error("WHERE and ORDER BY need a FROM clause here")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  std::vector<const Expr*> targets;
  for (auto& t : s.targets) targets.push_back(t.expr.get());
  uint64_t limit = s.limit.value_or(UINT64_MAX);
  if (row_source_aggregates(targets, s.order_by, "")) {
    // One input row, as FROM-less SELECT has.
    std::vector<const Expr*> calls;
    for (const Expr* t : targets) find_series_calls(*t, calls);
    if (!calls.empty())
      throw Error("aggregate function calls cannot contain set-returning function calls", "",
                  "You might be able to move the set-returning function into a LATERAL FROM "
                  "item.")
          .at_position(calls[0]->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (count_only) {
      *count_only = std::min<uint64_t>(1, limit);
      return;
    }
    EvalContext ec;
    ec.random = ctx.random;
    ec.session_function = ctx.session_function;
    RowSourceAggregator agg(targets);
    agg.add(ec);
    if (limit > 0) emit(agg.result(ec));
    return;
  }
  expand_targets(targets, ctx, emit, count_only, limit);
  if (count_only) *count_only = std::min(*count_only, limit);
}

bool passes_where(const sql::Select& s, EvalContext& ec) {
  if (!s.where) return true;
  Value ok = evaluate(*s.where, ec);
  if (ok.type != ValueType::kBool && ok.type != ValueType::kNull)
    throw Error(std::string("argument of WHERE must be type boolean, not type ") +
                value_type_name(ok.type))
        .with_sqlstate(sqlstate::kDatatypeMismatch);
  return ok.type != ValueType::kNull && ok.i;
}

// FROM generate_series(...) [WHERE] [ORDER BY] [LIMIT].
void run_series(const sql::Select& s, RowSourceContext& ctx, const EmitFn& emit,
                uint64_t* count_only) {
  const sql::FromItem& f = *s.from;
  std::string col = series_column(f);
  EvalContext ec;
  ec.random = ctx.random;
  ec.session_function = ctx.session_function;
  std::vector<Value> args;
  for (auto& a : f.func_args) args.push_back(evaluate(*a, ec));
  Series series = value_series(args, f.position);
  uint64_t n = series.count();
  uint64_t limit = s.limit.value_or(UINT64_MAX);
  std::vector<const Expr*> targets;
  for (auto& t : s.targets) targets.push_back(t.expr.get());
  Value current;
  ec.column = [&](const Expr& e) -> Value {
    if (e.name == col || e.name == f.alias) return current;
    throw Error("column \"" + e.name + "\" does not exist")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  };
  if (row_source_aggregates(targets, s.order_by, f.alias.empty() ? f.name : f.alias)) {
    if (count_only) {
      *count_only = std::min<uint64_t>(1, limit);
      return;
    }
    RowSourceAggregator agg(targets);
    for (uint64_t k = 0; k < n; ++k) {
      if (ctx.tick && k != 0 && k % RowSourceContext::kTickRows == 0) ctx.tick(k, n);
      current = series_value(series, k);
      if (passes_where(s, ec)) agg.add(ec);
    }
    if (limit > 0) emit(agg.result(ec));
    return;
  }
  SeriesOrder how = series_order(s, series, col);
  if (count_only) {
    *count_only = s.where ? 0 : std::min(n, limit);
    return;
  }
  // Only a shuffle numbers every row up front; a scan in order stops at the LIMIT.
  refuse_too_many(how.shuffle ? n : std::min(n, limit));

  std::vector<uint32_t> order;
  TrackedMemory order_memory(MemoryPart::kExecutor);
  if (how.shuffle) order = shuffled_positions(n, *ctx.random, order_memory);
  std::vector<Value> row(targets.size());
  uint64_t emitted = 0;
  for (uint64_t k = 0; k < n && emitted < limit; ++k) {
    // Before the WHERE test: a series that WHERE filters away is cancellable too.
    if (ctx.tick && k != 0 && k % RowSourceContext::kTickRows == 0) ctx.tick(k, n);
    current = series_value(series, how.shuffle ? order[k] : how.reverse ? n - 1 - k : k);
    if (!passes_where(s, ec)) continue;
    for (size_t i = 0; i < targets.size(); ++i)
      row[i] = targets[i]->kind == ExprKind::kStar ? current : evaluate(*targets[i], ec);
    emit(row);
    ++emitted;
  }
}

void run_source(const sql::Select& s, RowSourceContext& ctx, const EmitFn& emit,
                uint64_t* count_only) {
  // Only the planner's queries over tables have these; here they would be ignored.
  if (s.distinct || s.offset)
    throw Error(std::string(s.distinct ? "SELECT DISTINCT" : "OFFSET") +
                " is supported in queries over a table only")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (!s.values.empty()) return run_values(s, ctx, emit, count_only);
  if (!s.from) return run_targets(s, ctx, emit, count_only);
  if (!s.from->is_function)
    throw Error("internal: table sources are read by the executor").at_position(s.from->position);
  run_series(s, ctx, emit, count_only);
}

}  // namespace

uint64_t row_source_size(const sql::Select& s, RowSourceContext& ctx) {
  uint64_t n = 0;
  run_source(s, ctx, {}, &n);
  return n;
}

void produce_rows(const sql::Select& s, RowSourceContext& ctx,
                  const std::function<void(const std::vector<Value>&)>& emit) {
  run_source(s, ctx, emit, nullptr);
}

}  // namespace tp
