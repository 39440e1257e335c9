// What a session offers beyond tables: the system views pg_aios (I/Os in
// flight now) and pg_stat_io (cumulative I/O counters per method and context),
// in the spirit of PostgreSQL's views of the same names, and the functions with
// effects beyond their row (setseed, tp_verify, pg_stat_reset_shared, the
// relation-size functions).
#include <cmath>
#include <cstdio>
#include <cstring>

#include "aio/stats.h"
#include "engine/core/error.h"
#include "engine/session/session.h"
#include "engine/session/session_names.h"
#include "engine/storage/index_verify.h"

namespace tp {
namespace {

void add_pg_aios(ResultSet& r, Storage& storage, const Catalog& catalog) {
  r.columns = {"handle",   "generation",  "state",  "operation",
               "relation", "first_block", "blocks", "owner_thread"};
  r.right_aligned = {true, true, false, false, false, true, true, true};
  r.column_types = {ValueType::kInt4, ValueType::kInt8, ValueType::kText, ValueType::kText,
                    ValueType::kText, ValueType::kInt8, ValueType::kInt4, ValueType::kInt8};
  for (const aio::IoInFlightRow& io : storage.io().in_flight()) {
    std::string rel = std::to_string(io.relnumber);
    for (const auto& e : catalog.relations)
      if (e.relnumber == io.relnumber) rel = e.name;
    r.rows.push_back({std::to_string(io.handle_index), std::to_string(io.generation),
                      aio::io_state_name(io.state), aio::io_op_name(io.op), rel,
                      std::to_string(io.first_block), std::to_string(io.nblocks),
                      std::to_string(io.owner_thread)});
  }
}

void add_pg_stat_io(ResultSet& r) {
  r.columns = {"method",      "context",     "reads",  "read_blocks",
               "read_bytes",  "avg_read_kb", "writes", "write_blocks",
               "write_bytes", "fadvises",    "waits",  "wait_time_ms"};
  r.right_aligned = {false, false, true, true, true, true, true, true, true, true, true, true};
  r.column_types.assign(r.columns.size(), ValueType::kInt8);
  r.column_types[0] = r.column_types[1] = ValueType::kText;
  r.column_types[5] = r.column_types[11] = ValueType::kNumeric;
  char buf[32];
  for (const aio::IoStatsRow& row : aio::io_stats_snapshot()) {
    std::snprintf(buf, sizeof buf, "%.1f", row.avg_read_size_bytes() / 1024.0);
    std::string avg = buf;
    std::snprintf(buf, sizeof buf, "%.3f", double(row.wait_time_us) / 1000.0);
    r.rows.push_back({aio::io_method_name(row.method), aio::io_context_name(row.context),
                      std::to_string(row.reads), std::to_string(row.read_blocks),
                      std::to_string(row.read_bytes), avg, std::to_string(row.writes),
                      std::to_string(row.write_blocks), std::to_string(row.write_bytes),
                      std::to_string(row.prefetch_advices), std::to_string(row.waits), buf});
  }
}

}  // namespace

bool Session::needs_statement_lock(const sql::Statement& st) {
  const auto* s = std::get_if<sql::Select>(&st);
  if (s == nullptr || !s->from || s->from->is_function) return true;
  return !(s->from->name == "pg_aios" || s->from->name == "pg_stat_io");
}

ResultSet Session::system_view(const sql::Select& s) {
  bool star = s.targets.size() == 1 && s.targets[0].expr->kind == sql::ExprKind::kStar;
  if (!star || s.where || !s.order_by.empty())
    throw Error("system views take SELECT * FROM " + s.from->name + " only")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  ResultSet r;
  r.returns_rows = true;
  if (s.from->name == "pg_aios")
    add_pg_aios(r, storage(), *data_dir().catalog_snapshot());
  else
    add_pg_stat_io(r);
  r.tag = "SELECT " + std::to_string(r.rows.size());
  return r;
}

Value Session::session_function(const sql::Expr& e, const std::vector<Value>& args) {
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
