#include "engine/session/typed_row_source.h"

#include <algorithm>
#include <map>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/typed_expr.h"
#include "engine/core/value_arena.h"
#include "engine/session/series.h"
#include "engine/session/session.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

using sql::Expr;
using sql::ExprKind;

bool is_session_function(const std::string& name) {
  return name == "pg_cancel_backend" || name == "pg_terminate_backend" ||
         name == "pg_backend_pid" || name == "setseed" || name == "tp_verify" ||
         name == "pg_stat_reset_shared" || name == "pg_prewarm" || name == "pg_relation_size" ||
         name == "pg_table_size" || name == "pg_total_relation_size" || name == "pg_size_pretty" ||
         is_session_info_function(name);
}

bool needs_session_evaluator(const Expr& e) {
  if (e.kind == ExprKind::kFuncCall && is_session_function(e.name)) return true;
  if (e.kind == ExprKind::kCast && (e.name == "regclass" || e.name == "regtype")) return true;
  if (calls_aggregate(e)) return true;
  for (const auto& a : e.args)
    if (needs_session_evaluator(*a)) return true;
  return false;
}

// The expressions evaluated together: one VALUES row, or the select list. Slots hold
// the current values of the generate_series calls in them (FROM generate_series: slot
// 0 is its column).
struct Group {
  std::vector<TypedExpr> targets;
  std::vector<Series> series;     // slot k's series (select-list calls)
  std::vector<bool> series_null;  // a series over a NULL argument: no rows
  uint64_t rows() const {
    if (series.empty()) return 1;
    uint64_t n = 0;
    for (size_t k = 0; k < series.size(); ++k)
      if (!series_null[k]) n = std::max(n, series[k].count());
    return n;
  }
};

// random() is the one call a row source resolves beyond the built-in functions.
std::optional<TypedExpr> random_calls(const Expr& call) {
  if (is_random_call(call)) return random_call();
  return std::nullopt;
}

[[noreturn]] void no_column(const Expr& ref) {
  throw Error("column \"" + ref.name + "\" does not exist")
      .at_position(ref.position)
      .with_sqlstate(sqlstate::kUndefinedColumn);
}

}  // namespace

bool is_typed_row_source(const sql::Select& s) {
  for (const auto& t : s.targets)
    if (needs_session_evaluator(*t.expr)) return false;
  for (const auto& row : s.values)
    for (const auto& e : row)
      if (needs_session_evaluator(*e)) return false;
  if (s.where && needs_session_evaluator(*s.where)) return false;
  if (s.from)
    for (const auto& a : s.from->func_args)
      if (needs_session_evaluator(*a)) return false;
  return true;
}

struct TypedRowSource::Plan {
  RowSourceContext* ctx = nullptr;
  ValueArena arena;
  EvalState st;
  std::vector<Group> groups;
  // FROM generate_series(...): its series, order and WHERE.
  bool from_series = false;
  Series from;
  std::string from_column;
  SeriesOrder order;
  std::optional<TypedExpr> where;
  uint64_t limit = UINT64_MAX;

  // generate_series' arguments: constants of integer types, evaluated now.
  std::pair<Series, bool> series_of(const std::vector<sql::ExprPtr>& call_args, int position,
                                    const CallLookup& random_only) {
    bool any8 = false, null = false;
    std::vector<int64_t> ints;
    std::vector<TypedExpr> args;
    const ColumnLookup none = [](const Expr& ref) -> BoundColumnRef { no_column(ref); };
    for (const auto& a : call_args) {
      TypedExpr arg = bind_expr(*a, none, random_only);
      // An untyped literal or NULL reads as integer, as PostgreSQL resolves it.
      arg = read_unknown_as(std::move(arg), TypeId::kInt4, a->position);
      args.push_back(std::move(arg));
    }
    for (const TypedExpr& a : args)
      if (a.type == TypeId::kNumeric || a.type == TypeId::kTimestamp ||
          a.type == TypeId::kTimestamptz)
        throw Error("generate_series over " + format_type(a.type, -1) + " is not supported yet", "",
                    "tidepool's series are of integers.")
            .at_position(position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
    for (const TypedExpr& a : args)
      if (a.type != TypeId::kInt2 && a.type != TypeId::kInt4 && a.type != TypeId::kInt8) {
        std::string types;
        for (const TypedExpr& t : args)
          types += (types.empty() ? "" : ", ") +
                   (t.unknown_literal ? std::string("unknown") : format_type(t.type, -1));
        refuse_series_types(types, position);
      }
    for (const TypedExpr& a : args) {
      bool isnull = false;
      ints.push_back(evaluate(a, nullptr, nullptr, st, isnull));
      null |= isnull;
      any8 |= a.type == TypeId::kInt8;
    }
    // generate_series is strict: a NULL argument (even the step) gives no rows.
    if (null) return {make_series({1, 0}, any8, position), true};
    return {make_series(ints, any8, position), false};
  }

  // Binds one group's expressions; `columns` resolves FROM generate_series' column.
  Group bind_group(const std::vector<const Expr*>& exprs, const ColumnLookup& columns) {
    Group g;
    std::vector<const Expr*> calls;
    for (const Expr* e : exprs) find_series_calls(*e, calls);
    const CallLookup random_only = random_calls;
    std::map<const Expr*, uint32_t> slot_of;
    for (const Expr* c : calls) {
      auto [series, null] = series_of(c->args, c->position, random_only);
      slot_of[c] = uint32_t(g.series.size());
      g.series.push_back(series);
      g.series_null.push_back(null);
    }
    const CallLookup lookup = [&](const Expr& call) -> std::optional<TypedExpr> {
      auto it = slot_of.find(&call);
      if (it == slot_of.end()) return random_only(call);
      if (from_series)
        throw Error(
            "set-returning functions in the select list of a query with FROM are not "
            "supported")
            .at_position(call.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      return column_expr(it->second, g.series[it->second].int8 ? TypeId::kInt8 : TypeId::kInt4,
                         kNoTypmod, "generate_series");
    };
    for (const Expr* e : exprs) {
      if (e->kind == ExprKind::kStar) {
        if (!from_series)
          throw Error("SELECT * with no tables specified is not valid")
              .at_position(e->position)
              .with_sqlstate(sqlstate::kSyntaxError);
        g.targets.push_back(
            column_expr(0, from.int8 ? TypeId::kInt8 : TypeId::kInt4, kNoTypmod, from_column));
        continue;
      }
      g.targets.push_back(bind_expr(*e, columns, lookup));
    }
    return g;
  }
};

namespace {

// Output columns: INSERT's are its targets; a SELECT's untyped literals become text and
// each VALUES column takes its rows' common type.
void settle_types(std::vector<Group>& groups, const std::vector<Column>* assign,
                  const std::vector<const Expr*>& first_exprs) {
  const size_t width = groups.front().targets.size();
  for (size_t i = 0; i < width; ++i) {
    const int position = first_exprs[i]->position;
    if (assign) {
      const Column& c = (*assign)[i];
      for (Group& g : groups)
        g.targets[i] =
            assign_to_column(std::move(g.targets[i]), c.name, c.type, c.typmod, position);
      continue;
    }
    if (groups.size() == 1) {
      groups[0].targets[i] = finish_output(std::move(groups[0].targets[i]));
      continue;
    }
    std::vector<TypedExpr*> column;
    for (Group& g : groups) column.push_back(&g.targets[i]);
    coerce_to_common_type(column, "VALUES", position);
  }
}

}  // namespace

TypedRowSource::TypedRowSource(const sql::Select& s, RowSourceContext& ctx,
                               const std::vector<Column>* assign)
    : plan_(std::make_unique<Plan>()) {
  if (s.distinct || s.offset)
    throw Error(std::string(s.distinct ? "SELECT DISTINCT" : "OFFSET") +
                " is supported in queries over a table only")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  Plan& p = *plan_;
  p.ctx = &ctx;
  p.st = EvalState{&p.arena, timestamp_now(), ctx.random};
  p.limit = s.limit.value_or(UINT64_MAX);
  const ColumnLookup no_columns = [](const Expr& ref) -> BoundColumnRef { no_column(ref); };
  std::vector<const Expr*> first;
  if (!s.values.empty()) {
    for (const auto& row : s.values) {
      std::vector<const Expr*> exprs;
      for (const auto& e : row) exprs.push_back(e.get());
      if (first.empty()) first = exprs;
      p.groups.push_back(p.bind_group(exprs, no_columns));
    }
  } else {
    for (const auto& t : s.targets) first.push_back(t.expr.get());
    if (s.from) {
      const sql::FromItem& f = *s.from;
      p.from_series = true;
      const std::string col = p.from_column = series_column(f);
      const CallLookup random_only = random_calls;
      auto [series, null] = p.series_of(f.func_args, f.position, random_only);
      p.from = null ? Series{1, 0, 1, series.int8} : series;
      const ColumnLookup column = [&](const Expr& ref) -> BoundColumnRef {
        if (ref.name != col && ref.name != f.alias) no_column(ref);
        return {0, p.from.int8 ? TypeId::kInt8 : TypeId::kInt4, kNoTypmod, col};
      };
      p.groups.push_back(p.bind_group(first, column));
      if (s.where) p.where = bind_condition(*s.where, column, "WHERE", random_only);
      p.order = series_order(s, p.from, col);
    } else {
      if (!s.order_by.empty())
        throw Error("ORDER BY needs a FROM clause here")
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      p.groups.push_back(p.bind_group(first, no_columns));
      if (s.where) p.where = bind_condition(*s.where, no_columns, "WHERE");
    }
  }
  settle_types(p.groups, assign, first);
  const std::vector<std::string> names = row_source_columns(s);
  for (size_t i = 0; i < names.size(); ++i) {
    const TypedExpr& e = p.groups.front().targets[i];
    columns_.push_back(Column{names[i], e.type, e.typmod});
  }
}

TypedRowSource::~TypedRowSource() = default;

uint64_t TypedRowSource::size() const {
  const Plan& p = *plan_;
  if (p.where) return 0;
  uint64_t n = 0;
  if (p.from_series) {
    n = p.from.count();
  } else {
    for (const Group& g : p.groups) n += g.rows();
  }
  return std::min(n, p.limit);
}

void TypedRowSource::run(const Emit& emit) {
  Plan& p = *plan_;
  const size_t width = columns_.size();
  std::vector<Datum> out(width);
  const std::unique_ptr<bool[]> out_null = std::make_unique<bool[]>(width);
  uint64_t emitted = 0, looked_at = 0;
  auto produce = [&](const Group& g, const Datum* slots, const bool* slot_nulls) {
    p.arena.clear();
    for (size_t i = 0; i < width; ++i)
      out[i] = evaluate(g.targets[i], slots, slot_nulls, p.st, out_null[i]);
    emit(out.data(), out_null.get());
    ++emitted;
  };
  auto tick = [&](uint64_t total) {
    ++looked_at;
    if (p.ctx->tick && looked_at % RowSourceContext::kTickRows == 0) p.ctx->tick(looked_at, total);
  };
  if (p.from_series) {
    const uint64_t n = p.from.count();
    refuse_too_many(p.order.shuffle ? n : std::min(n, p.limit));
    std::vector<uint32_t> order;
    TrackedMemory order_memory(MemoryPart::kExecutor);
    if (p.order.shuffle) order = shuffled_positions(n, *p.ctx->random, order_memory);
    Datum slot = 0;
    for (uint64_t k = 0; k < n && emitted < p.limit; ++k) {
      slot = p.from.at(p.order.shuffle ? order[k] : p.order.reverse ? n - 1 - k : k);
      if (p.where) {
        p.arena.clear();
        if (!evaluate_qual(*p.where, &slot, nullptr, p.st)) {
          tick(n);
          continue;
        }
      }
      produce(p.groups[0], &slot, nullptr);
      tick(n);
    }
    return;
  }
  if (p.where && !evaluate_qual(*p.where, nullptr, nullptr, p.st)) return;
  for (const Group& g : p.groups) {
    const uint64_t rows = std::min(g.rows(), p.limit - emitted);
    refuse_too_many(rows);
    std::vector<Datum> slots(g.series.size());
    const std::unique_ptr<bool[]> slot_nulls = std::make_unique<bool[]>(g.series.size() + 1);
    for (uint64_t r = 0; r < rows; ++r) {
      for (size_t k = 0; k < g.series.size(); ++k) {
        slot_nulls[k] = g.series_null[k] || r >= g.series[k].count();
        slots[k] = slot_nulls[k] ? 0 : g.series[k].at(r);
      }
      produce(g, slots.data(), slot_nulls.get());
      tick(rows);
    }
  }
}

}  // namespace tp
