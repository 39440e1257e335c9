#include "engine/session/query.h"

#include <algorithm>
#include <chrono>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/plan/planner.h"
#include "engine/plan/result_plan.h"
#include "engine/session/analyze.h"
#include "engine/session/explain.h"
#include "engine/session/system_views.h"
#include "engine/session/trace_file.h"

namespace tp {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Runs a planned query, handing each output row (as text, with its NULL flags or null
// when it has none) to `emit`.
template <typename Emit>
void run_plan(PlannedQuery& q, Emit&& emit) {
  q.root->open();
  std::vector<std::string> row;
  std::vector<bool> nulls;
  while (const scans::RowBatch* b = q.root->next()) {
    if (q.aggregate) {
      row.clear();
      nulls.clear();
      const auto& results = q.aggregate->results();
      auto add = [&](size_t i) {
        row.push_back(format_aggregate(q.aggregates[i], results[i]));
        nulls.push_back(aggregate_is_null(q.aggregates[i], results[i]));
      };
      if (q.output_exprs.empty()) {
        for (size_t i = 0; i < q.aggregates.size(); ++i) add(i);
      } else {
        for (const AggregateExpr& e : q.output_exprs) {
          if (e.kind == AggregateExpr::Kind::kAggregate) {
            add(e.aggregate);
            continue;
          }
          std::optional<int64_t> v = evaluate_aggregate_expr(e, q.aggregates, results);
          row.push_back(v ? std::to_string(*v) : "");
          nulls.push_back(!v);
        }
      }
      const bool any_null = std::find(nulls.begin(), nulls.end(), true) != nulls.end();
      emit(row, any_null ? &nulls : nullptr);
      continue;
    }
    const size_t width = q.output_slots.size();
    row.resize(width);
    nulls.assign(width, false);
    for (uint32_t i = 0; i < b->count; ++i) {
      const Datum* r = b->row(i);
      bool any_null = false;
      for (size_t c = 0; c < width; ++c) {
        const uint32_t slot = q.output_slots[c];
        std::string& text = row[c];
        text.clear();
        nulls[c] = b->is_null(i, slot);
        if (nulls[c]) {
          any_null = true;
          continue;
        }
        append_datum_out(q.output_columns[c].type, r[slot], text);
      }
      emit(row, any_null ? &nulls : nullptr);
    }
  }
  q.root->shutdown();  // parallel workers end and their figures reach EXPLAIN
}

// EXPLAIN ANALYZE: runs the plan to its end and discards the rows unformatted, as
// PostgreSQL does, so the times measure the plan and not text conversion.
void drain_plan(PlannedQuery& q) {
  q.root->open();
  while (q.root->next() != nullptr) {
  }
  q.root->shutdown();
}

void set_timing(scans::ExecNode& n, bool timing) {
  n.instr.timing = timing;
  for (const scans::ExecNode* c : n.children())
    set_timing(const_cast<scans::ExecNode&>(*c), timing);
}

}  // namespace

ResultSet query_select(Session& session, const sql::Select& s) {
  PlanContext ctx = session.plan_context();
  // A prepared query's generic plan runs its kept tree again while the catalog and the
  // settings it was made under stand (engine/session/plan_cache.h).
  GenericPlan* kept = session.kept_generic_plan();
  const uint64_t catalog_version = session.catalog().version;
  const uint64_t settings_changes = Settings::changes();
  const uint64_t storage_generation = ctx.storage.generation();
  if (kept && kept->plan &&
      (kept->catalog_version != catalog_version || kept->settings_changes != settings_changes ||
       kept->storage_generation != storage_generation))
    kept->plan.reset();
  std::optional<PlannedQuery> fresh;
  if (!kept || !kept->plan) {
    fresh.emplace(plan_select(ctx, s));
    if (session.note_plan(*fresh, s)) throw StatementDescribed{};
  }
  if (!fresh) ++kept->reruns;
  PlannedQuery& q = fresh ? *fresh : *kept->plan;
  set_extern_keys(q);
  bufmgr::BufferPool& pool = ctx.storage.pool();
  const uint32_t pins_before = pool.my_pin_count();
  const int streams_before = pool.my_pins().open_streams;
  struct KeepOrDrop {
    GenericPlan* kept;
    std::optional<PlannedQuery>& fresh;
    bool ran = false;
    ~KeepOrDrop() {
      if (kept == nullptr) return;
      if (!ran) {
        kept->plan.reset();  // a run that failed part-way: its tree starts nothing again
      } else if (fresh && plan_can_run_again(*fresh)) {
        kept->plan = std::move(fresh);
      }
    }
  } keep_or_drop{kept, fresh};
  ResultSet r;
  r.returns_rows = true;
  r.columns = q.column_names;
  for (OutputType t : q.output_types)
    r.column_types.push_back(t == OutputType::kInt4   ? ValueType::kInt4
                             : t == OutputType::kInt8 ? ValueType::kInt8
                                                      : ValueType::kNumeric);
  r.column_type_ids = q.output_columns;
  // An empty string is a value, not NULL, in a column of a string type.
  for (size_t c = 0; c < q.output_columns.size(); ++c)
    if (!type_is_numeric(q.output_columns[c].type)) r.column_types[c] = ValueType::kText;
  r.right_aligned.assign(r.columns.size(), true);  // psql right-aligns numbers
  for (size_t c = 0; c < q.output_columns.size(); ++c)
    r.right_aligned[c] = type_is_numeric(q.output_columns[c].type);
  if (RowSink* sink = session.row_sink()) {
    session.begin_streaming(r);
    run_plan(q, [&](const std::vector<std::string>& row, const std::vector<bool>* nulls) {
      sink->row(row, nulls);
      ++r.streamed_rows;
    });
  } else {
    run_plan(q, [&](const std::vector<std::string>& row, const std::vector<bool>* nulls) {
      if (nulls || !r.nulls.empty()) {
        r.nulls.resize(r.rows.size(), std::vector<bool>(row.size(), false));
        r.nulls.push_back(nulls ? *nulls : std::vector<bool>(row.size(), false));
      }
      r.rows.push_back(row);
    });
  }
  r.tag = "SELECT " + std::to_string(r.streamed ? r.streamed_rows : r.rows.size());
  // A tree that still pins a buffer (a scan a Limit stopped) or holds a read stream is
  // not kept: it would hold them between statements.
  keep_or_drop.ran =
      pool.my_pin_count() == pins_before && pool.my_pins().open_streams == streams_before;
  if (keep_or_drop.ran && kept) {
    kept->catalog_version = catalog_version;
    kept->settings_changes = settings_changes;
    kept->storage_generation = storage_generation;
  }
  return r;
}

ResultSet query_explain(Session& session, const sql::Explain& explain) {
  const auto* select = std::get_if<sql::Select>(&explain.statement);
  if (!select || (select->from && select->from->is_function))
    throw Error("EXPLAIN takes SELECT ... FROM a table or without FROM")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (select->from && is_system_view(*select->from))
    throw Error("EXPLAIN of a system view is not supported")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (explain.options.verbose)
    throw Error("EXPLAIN option VERBOSE is not supported")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  Clock::time_point start = Clock::now();
  const bufmgr::BufferUsage before_planning = bufmgr::thread_buffer_usage();
  PlanContext ctx = session.plan_context();
  PlannedQuery q =
      select->from || select->set_operation ? plan_select(ctx, *select) : plan_result(ctx, *select);
  if (session.note_plan(q, *select)) throw StatementDescribed{};
  set_extern_keys(q);
  ExplainRun run;
  run.planning_buffers = bufmgr::thread_buffer_usage() - before_planning;
  run.options = &explain.options;
  run.prefix = {q.upper_prefix_table, q.upper_prefix_columns};
  run.track_io_timing = session.settings().get_bool("track_io_timing");
  if (ctx.settings.costs.prefetch.enabled)
    run.cost_model = describe_cost_model(ctx.settings.costs.prefetch);
  run.planning_ms = ms_since(start);
  if (explain.options.analyze) {
    set_timing(*q.root, explain.options.timing);
    Clock::time_point exec = Clock::now();
    drain_plan(q);
    run.execution_ms = ms_since(exec);
    if (IoTrace* trace = current_io_trace())
      run.io_trace = trace_summary_line(*trace, session.settings().get_text("io_trace"));
  }
  ResultSet r;
  r.returns_rows = true;
  r.columns = {"QUERY PLAN"};
  r.right_aligned = {false};
  r.column_types = {ValueType::kText};
  for (std::string& line : explain_lines(*q.root, run)) r.rows.push_back({std::move(line)});
  r.tag = "EXPLAIN";
  return r;
}

ResultSet query_analyze(Session& session, const sql::Analyze& analyze) {
  return run_analyze(session, analyze);
}

}  // namespace tp
