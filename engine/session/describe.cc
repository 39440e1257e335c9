// Session::describe: Parse's analysis of a statement (the extended query protocol's
// Parse and Describe, SQL PREPARE). A query is planned as it would run, its
// parameters NULL, and stops where its rows would start: the header its RowSink would
// get is the description, and the parameters' types are what binding the query gave
// them (engine/sql/params.h). A statement that is not a query runs nothing.
#include <limits>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/value_arena.h"
#include "engine/session/session.h"
#include "engine/session/system_views.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/expr_ops.h"
#include "engine/sql/parser.h"

namespace tp {

namespace {

// Takes the header a query hands its sink before its first row, and ends the query.
class HeaderCatcher : public RowSink {
 public:
  explicit HeaderCatcher(ResultSet& header) : header_(header) {}
  void begin(const ResultSet& header) override {
    header_ = header;
    throw StatementDescribed{};
  }
  void row(const std::vector<std::string>&, const std::vector<bool>*) override {
    throw StatementDescribed{};
  }

 private:
  ResultSet& header_;
};

// Whether `text` is a query the planner plans (a SELECT from tables, or a set operation):
// what a plan cache keeps generic plans of. Its $n are of `types`.
bool is_query(const std::string& text, const std::vector<TypeId>& types) {
  std::vector<sql::ParamSlot> slots(types.size());
  for (size_t i = 0; i < types.size(); ++i) slots[i].type = types[i];
  sql::StatementParams params(std::move(slots), /*describing=*/true);
  sql::ScopedParams scope(&params);
  const sql::Statement st = sql::parse_statement(text, nullptr);
  const auto* s = std::get_if<sql::Select>(&st);
  return s != nullptr &&
         (s->set_operation || (s->from && !s->from->is_function && !is_system_view(*s->from)));
}

}  // namespace

StatementDescription Session::describe(std::string_view text,
                                       const std::vector<std::optional<TypeId>>& declared) {
  std::vector<sql::ParamSlot> slots(declared.size());
  for (size_t i = 0; i < declared.size(); ++i) slots[i].type = declared[i];
  sql::StatementParams params(std::move(slots), /*describing=*/true);
  StatementDescription d;
  HeaderCatcher catcher(d.header);
  struct Describing {
    bool& flag;
    explicit Describing(bool& f) : flag(f) { flag = true; }
    ~Describing() { flag = false; }
  } describing(describing_);
  try {
    ResultSet r = execute(text, &catcher, &params);
    d.returns_rows = r.returns_rows;
    if (r.returns_rows) {
      r.rows.clear();
      r.nulls.clear();
      d.header = std::move(r);
    }
  } catch (const StatementDescribed&) {
    d.returns_rows = true;
  }
  d.header.notices.clear();
  d.header.warnings.clear();
  for (size_t i = 0; i < params.slots().size(); ++i) {
    if (!params.slots()[i].type)
      throw Error("could not determine data type of parameter $" + std::to_string(i + 1))
          .with_sqlstate(sqlstate::kIndeterminateDatatype);
    d.param_types.push_back(*params.slots()[i].type);
  }
  return d;
}

std::shared_ptr<const PreparedStatement> Session::prepare(
    const std::string& name, std::string text, const std::vector<std::optional<TypeId>>& declared) {
  if (!name.empty() && prepared_.count(name) != 0)
    throw Error("prepared statement \"" + name + "\" already exists")
        .with_sqlstate(sqlstate::kDuplicatePreparedStatement);
  auto p = std::make_shared<PreparedStatement>();
  p->text = std::move(text);
  if (p->text.empty()) {
    p->description.param_types.reserve(declared.size());
    for (size_t i = 0; i < declared.size(); ++i)
      p->description.param_types.push_back(declared[i].value_or(TypeId::kText));
  } else {
    p->description = describe(p->text, declared);
    p->query = is_query(p->text, p->description.param_types);
  }
  prepared_[name] = p;
  return p;
}

std::shared_ptr<const PreparedStatement> Session::prepared(const std::string& name) const {
  auto it = prepared_.find(name);
  return it == prepared_.end() ? nullptr : it->second;
}

ResultSet Session::prepare_statement(const sql::PrepareStmt& p) {
  std::vector<std::optional<TypeId>> declared;
  for (const sql::TypeRef& t : p.types) declared.push_back(t.id);
  prepare(p.name, p.text, declared);
  ResultSet r;
  r.tag = "PREPARE";
  return r;
}

ResultSet Session::execute_prepared(const sql::ExecuteStmt& x) {
  std::shared_ptr<const PreparedStatement> ps = prepared(x.name);
  if (!ps)
    throw Error("prepared statement \"" + x.name + "\" does not exist")
        .with_sqlstate(sqlstate::kInvalidSqlStatementName);
  const std::vector<TypeId>& types = ps->description.param_types;
  if (x.args.size() != types.size())
    throw Error("wrong number of parameters for prepared statement \"" + x.name + "\"",
                "Expected " + std::to_string(types.size()) + " parameters but got " +
                    std::to_string(x.args.size()) + ".")
        .with_sqlstate(sqlstate::kSyntaxError);
  // Each value as the parameter's type, in an assignment's context (PostgreSQL's
  // EXECUTE coerces its expressions so), then as the text its $n stands for.
  std::vector<sql::ParamSlot> slots(types.size());
  const ColumnLookup no_columns = [](const sql::Expr& ref) -> BoundColumnRef {
    throw Error("column \"" + ref.name + "\" does not exist")
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  };
  for (size_t i = 0; i < types.size(); ++i) {
    TypedExpr e = expr::coerce(bind_expr(*x.args[i], no_columns), types[i], kNoTypmod,
                               expr::CoercionContext::kAssignment, x.args[i]->position);
    ValueArena arena;
    EvalState st{&arena, timestamp_now()};
    bool isnull = false;
    const Datum v = evaluate(e, nullptr, nullptr, st, isnull);
    slots[i].type = types[i];
    slots[i].isnull = isnull;
    if (!isnull) slots[i].text = datum_out(types[i], v);
  }
  sql::StatementParams params(std::move(slots), /*describing=*/false);
  try {
    return execute_prepared(*ps, x.explain, row_sink_, params);
  } catch (Error& e) {
    e.at_position(0);  // a place in the prepared text, not in this statement's
    throw;
  }
}

ResultSet Session::execute_prepared(const PreparedStatement& ps, std::string_view prefix,
                                    RowSink* sink, sql::StatementParams& params) {
  const std::string text = std::string(prefix) + ps.text;
  if (!ps.query || params.slots().empty()) return execute(text, sink, &params);
  PlanCacheStats& stats = ps.plan_cache;
  const PlanCacheMode mode = plan_cache_mode(settings_->get_enum("plan_cache_mode"));
  bool custom = choose_custom_plan(stats, mode);
  if (!custom && stats.generic_cost < 0) {
    stats.generic_cost = generic_plan_cost(ps, params);
    custom = choose_custom_plan(stats, mode);
  }
  params.set_generic(!custom);
  std::optional<ExternParamValues> values;
  if (!custom) values.emplace(params.slots(), timestamp_now());
  ExternParamScope extern_scope(values ? &*values : nullptr);
  struct Counting {
    Session& s;
    Counting(Session& session, PlanCacheStats* stats, GenericPlan* kept) : s(session) {
      s.plan_cache_ = stats;
      s.kept_generic_plan_ = kept;
    }
    ~Counting() {
      s.plan_cache_ = nullptr;
      s.kept_generic_plan_ = nullptr;
    }
  };
  if (custom || !prefix.empty()) {
    Counting counting(*this, &stats, nullptr);
    return execute(text, sink, &params);
  }
  // The generic plan's statement reads no value: parsed once, its tree kept when it can.
  if (!ps.generic_plan) {
    sql::ScopedParams scope(&params);
    auto kept = std::make_shared<GenericPlan>();
    kept->statement = sql::parse_statement(ps.text, nullptr);
    ps.generic_plan = std::move(kept);
  }
  std::shared_ptr<GenericPlan> kept = ps.generic_plan;  // lives through a DEALLOCATE inside
  Counting counting(*this, &stats, kept.get());
  return execute_statement(text, &kept->statement, sink, &params);
}

double Session::generic_plan_cost(const PreparedStatement& ps, const sql::StatementParams& params) {
  sql::StatementParams generic(params.slots(), /*describing=*/false);
  generic.set_generic(true);
  ExternParamValues values(params.slots(), timestamp_now());
  ExternParamScope extern_scope(&values);
  PlanCacheStats weighed;
  struct Costing {
    Session& s;
    Costing(Session& session, PlanCacheStats* stats) : s(session) {
      s.plan_cache_ = stats;
      s.costing_generic_ = true;
      s.describing_ = true;  // planned, not run: no trace, EXPLAIN ANALYZE runs nothing
    }
    ~Costing() {
      s.plan_cache_ = nullptr;
      s.costing_generic_ = false;
      s.describing_ = false;
    }
  } costing(*this, &weighed);
  ResultSet header;
  HeaderCatcher catcher(header);
  try {
    execute(ps.text, &catcher, &generic);
  } catch (const StatementDescribed&) {
  } catch (const Error&) {
    // What tidepool cannot plan generically yet (or a query planned by another route,
    // which counts nothing) keeps its custom plans; a real error shows when it runs.
  }
  return weighed.generic_cost < 0 ? std::numeric_limits<double>::infinity() : weighed.generic_cost;
}

bool Session::note_plan(const PlannedQuery& q, const sql::Select& s) {
  PlanCacheStats* stats = plan_cache_;
  if (stats == nullptr) return false;
  plan_cache_ = nullptr;  // the statement's own plan only, not a nested one's
  const double cpu_operator_cost = settings_->get_real("cpu_operator_cost");
  const sql::StatementParams* params = sql::current_params();
  if (params == nullptr || !params->generic()) {
    stats->custom_plan_cost(cached_plan_cost(q, s, cpu_operator_cost, true));
    return false;
  }
  if (!costing_generic_) return false;  // a generic plan's run: nothing more to count
  stats->generic_cost = cached_plan_cost(q, s, cpu_operator_cost, false);
  return true;
}

ResultSet Session::deallocate_statement(const sql::DeallocateStmt& d) {
  ResultSet r;
  if (d.discard) {
    if (in_block_)
      throw Error("DISCARD ALL cannot run inside a transaction block")
          .with_sqlstate(sqlstate::kActiveSqlTransaction);
    deallocate_all();
    reset(sql::ResetStmt{"all"});
    r.tag = "DISCARD ALL";
  } else if (d.name.empty()) {
    deallocate_all();
    r.tag = "DEALLOCATE ALL";
  } else {
    if (!prepared(d.name))
      throw Error("prepared statement \"" + d.name + "\" does not exist")
          .with_sqlstate(sqlstate::kInvalidSqlStatementName);
    deallocate(d.name);
    r.tag = "DEALLOCATE";
  }
  return r;
}

ResultSet Session::describe_run(sql::Statement& st) {
  if (auto* e = std::get_if<std::unique_ptr<sql::Explain>>(&st)) {
    // EXPLAIN ANALYZE would run its query: planning it tells its parameters' types,
    // and its rows are the plan's lines either way.
    (*e)->options.analyze = false;
    (*e)->options.timing = true;
    return run(st);
  }
  if (const auto* ins = std::get_if<sql::Insert>(&st)) {
    describe_insert(*ins);
    return {};
  }
  if (std::holds_alternative<sql::Select>(st) || std::holds_alternative<sql::ShowStmt>(st))
    return run(st);
  return {};  // a command or a write: nothing to plan, no rows
}

}  // namespace tp
