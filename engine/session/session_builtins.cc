// What a session offers beyond tables: SELECT over the system views
// (system_views.h: pg_stat_activity, pg_aios, pg_stat_io, pg_buffercache),
// which statements take only the watch lock, and the functions with
// effects beyond their row (pg_cancel_backend, pg_terminate_backend,
// pg_backend_pid, setseed, tp_verify, pg_stat_reset_shared, pg_prewarm, the
// relation-size functions).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "aio/stats.h"
#include "engine/core/error.h"
#include "engine/session/catalog_views.h"
#include "engine/session/layer_settings.h"
#include "engine/session/prewarm.h"
#include "engine/session/session.h"
#include "engine/session/session_names.h"
#include "engine/session/system_views.h"
#include "engine/storage/index_verify.h"

namespace tp {
namespace {

// Functions that read or change only what is safe from any thread at any time
// (the registry, this session's own state): a SELECT calling no others over a
// system view, or without FROM, takes only the database lock in watch mode.
bool is_lock_free_function(const std::string& name) {
  return name == "pg_cancel_backend" || name == "pg_terminate_backend" ||
         name == "pg_backend_pid" || name == "random" || name == "abs" ||
         name == "pg_size_pretty" || is_session_info_function(name);
}

// version() as drivers parse it: PostgreSQL's form, the release the server reports
// (server_version), and what answers.
constexpr const char* kVersion =
    "PostgreSQL 15.0 (tidepool) on x86_64-pc-linux-gnu, a storage engine for studying reads, "
    "64-bit";

bool calls_only_lock_free_functions(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kFuncCall && !is_lock_free_function(e.name)) return false;
  for (const auto& a : e.args)
    if (!calls_only_lock_free_functions(*a)) return false;
  return true;
}

// pg_cancel_backend / pg_terminate_backend: PostgreSQL's answer for a pid that is
// no session is false and a warning, not an error.
Value signal_backend(const sql::Expr& e, const std::vector<Value>& args, SessionRegistry& sessions,
                     std::vector<std::string>& warnings) {
  bool integer =
      args.size() == 1 && (args[0].type == ValueType::kInt4 || args[0].type == ValueType::kInt8);
  if (args.size() == 1 && args[0].type == ValueType::kNull) return {};
  if (!integer)
    throw Error("function " + e.name + "(" +
                    (args.empty() ? std::string() : value_type_name(args[0].type)) +
                    (args.size() > 1 ? ", ..." : "") + ") does not exist",
                "", e.name + " takes one integer: the pid of a row of pg_stat_activity.")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
  int64_t pid = args[0].i;
  bool in_range = pid > 0 && pid <= INT32_MAX;
  bool done = in_range && (e.name == "pg_cancel_backend" ? sessions.cancel(int(pid))
                                                         : sessions.terminate(int(pid)));
  if (!done)
    warnings.push_back("PID " + std::to_string(pid) + " is not a PostgreSQL backend process");
  return Value::boolean(done);
}

}  // namespace

bool Session::needs_statement_lock(const sql::Statement& st) {
  const auto* s = std::get_if<sql::Select>(&st);
  if (s == nullptr || !s->values.empty() || s->set_operation) return true;
  if (s->from && !is_system_view(*s->from)) return true;
  for (const auto& t : s->targets)
    if (!calls_only_lock_free_functions(*t.expr)) return true;
  if (s->where && !calls_only_lock_free_functions(*s->where)) return true;
  for (const auto& o : s->order_by)
    if (!calls_only_lock_free_functions(*o.expr)) return true;
  return false;
}

ResultSet Session::system_view(const sql::Select& s) {
  ViewRows view = is_catalog_view(s.from->name)
                      ? read_catalog_view(s.from->name, catalog(), *settings_, database_name_)
                      : read_system_view(s.from->name, *db_);
  EvalContext ec;
  ec.random = &random_;
  ec.session_function = [this](const sql::Expr& e, const std::vector<Value>& args) {
    return session_function(e, args);
  };
  // `WHERE oid = 't'::regclass` compares OIDs, as in PostgreSQL.
  ec.oid_of_name = [this](const sql::Expr& cast, const Value& v) {
    if (v.type == ValueType::kNull) return v;
    if (cast.name == "regtype") return Value::int8(regtype_of(v));
    if (v.type == ValueType::kInt4 || v.type == ValueType::kInt8) return Value::int8(v.i);
    std::string name = v.type == ValueType::kText ? v.s : v.to_string();
    if (name.rfind("public.", 0) == 0) name.erase(0, 7);
    const RelationEntry* rel = catalog().find(name);
    if (!rel) throw relation_missing(name, cast.args[0]->position);
    return Value::int8(int64_t(rel->oid));
  };
  warnings_.clear();
  ResultSet r = select_from_view(s, view, ec);
  r.warnings = std::move(warnings_);
  warnings_.clear();
  return r;
}

Value Session::session_info(const sql::Expr& e, const std::vector<Value>& args) {
  if (e.name == "current_setting") {
    // current_setting(name [, missing_ok]): SHOW's text; NULL for an unknown name when
    // missing_ok is true.
    const bool two = args.size() == 2 && args[1].type == ValueType::kBool;
    if ((args.size() != 1 && !two) || args[0].type != ValueType::kText)
      throw Error("function current_setting takes a setting's name and, optionally, missing_ok")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    try {
      return Value::text(settings_->show(args[0].s));
    } catch (const Error& err) {
      if (two && args[1].i != 0 && err.sqlstate() == sqlstate::kUndefinedObject) return {};
      throw;
    }
  }
  if (!args.empty())
    throw Error("function " + e.name + " takes no arguments")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
  if (e.name == "version") return Value::text(kVersion);
  if (e.name == "current_schema") return Value::text("public");
  if (e.name == "current_database" || e.name == "current_catalog")
    return Value::text(database_name_);
  return Value::text(user_name_);  // current_user, session_user, user
}

Value Session::session_function(const sql::Expr& e, const std::vector<Value>& args) {
  if (is_session_info_function(e.name)) return session_info(e, args);
  if (e.name == "pg_cancel_backend" || e.name == "pg_terminate_backend")
    return signal_backend(e, args, db_->sessions(), warnings_);
  if (e.name == "pg_backend_pid") {
    if (!args.empty())
      throw Error("function pg_backend_pid takes no arguments")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    return Value::int4(activity_->pid);
  }
  if (e.name == "setseed") {
    if (args.size() != 1 || !args[0].is_numeric_type())
      throw Error("function setseed takes one double precision argument")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    double seed = args[0].type == ValueType::kInt4 || args[0].type == ValueType::kInt8
                      ? double(args[0].i)
                      : args[0].d;
    if (seed < -1 || seed > 1 || std::isnan(seed))
      throw Error("setseed parameter " + Value::float8(seed).to_string() +
                  " is out of allowed range [-1,1]")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kNumericValueOutOfRange);
    uint64_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    random_.seed_with(bits);
    return Value::text("");
  }
  if (e.name == "tp_verify") {
    if (args.size() != 1 || args[0].type != ValueType::kText)
      throw Error("function tp_verify takes one index name")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    const RelationEntry* idx = catalog().find(args[0].s);
    if (!idx) throw relation_missing(args[0].s, e.args[0]->position);
    if (idx->kind != RelKind::kIndex)
      throw Error("\"" + idx->name + "\" is not an index")
          .at_position(e.args[0]->position)
          .with_sqlstate(sqlstate::kWrongObjectType);
    const RelationEntry* table = catalog().find_oid(idx->table_oid);
    btree::VerifyReport report = verify_index(storage(), *table, *idx);
    if (!report.ok) throw Error(report.message).with_sqlstate(sqlstate::kIndexCorrupted);
    return Value::text("index \"" + idx->name +
                       "\" is valid: " + std::to_string(report.pages_checked) + " pages, " +
                       std::to_string(report.leaf_items_checked) + " entries checked");
  }
  if (e.name == "pg_stat_reset_shared") {
    if (args.size() != 1 || args[0].type != ValueType::kText || args[0].s != "io")
      throw Error("pg_stat_reset_shared takes 'io' (the only shared statistics tidepool keeps)")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    aio::io_stats_reset();
    return Value::text("");
  }
  if (e.name == "pg_prewarm")
    return prewarm_relation(catalog(), storage(), stream_config(*settings_), e, args);
  if (e.name == "pg_relation_size" || e.name == "pg_table_size" ||
      e.name == "pg_total_relation_size") {
    if (args.size() != 1 || args[0].type != ValueType::kText)
      throw Error("function " + e.name + " takes one relation name")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedFunction);
    const RelationEntry* rel = catalog().find(args[0].s);
    if (!rel) throw relation_missing(args[0].s, e.args[0]->position);
    uint64_t pages = rel->pages;
    if (e.name == "pg_total_relation_size" && rel->is_table())
      for (const RelationEntry* idx : catalog().indexes_of(rel->oid)) pages += idx->pages;
    return Value::int8(int64_t(pages * kBlockSize));
  }
  throw Error("function " + e.name + "() does not exist")
      .at_position(e.position)
      .with_sqlstate(sqlstate::kUndefinedFunction);
}

}  // namespace tp
