// The system views' rows (read_system_view) and the SELECT over them
// (select_from_view). See system_views.h for what each view reads and why that
// is safe without the statement lock.
#include "engine/session/system_views.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <unordered_map>

#include "aio/stats.h"
#include "engine/core/error.h"
#include "engine/session/catalog_views.h"
#include "engine/session/database.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

Value text_or_null(const std::string& s) {
  return s.empty() ? Value{} : Value::text(s);
}

Value fixed(double v, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  Value n = Value::numeric(v);
  n.s = buf;  // shown exactly as formatted
  return n;
}

// Relation names by relnumber, from a catalog that no commit changes under us.
std::unordered_map<uint32_t, std::string> relation_names(Database& db) {
  std::shared_ptr<const Catalog> catalog = db.data_dir().catalog_snapshot();
  std::unordered_map<uint32_t, std::string> names;
  for (const auto& e : catalog->relations) names[e.relnumber] = e.name;
  return names;
}

ViewRows pg_stat_activity(Database& db) {
  ViewRows v;
  v.columns = {"pid",         "application_name", "client_addr", "backend_start",
               "query_start", "wait_event_type",  "wait_event",  "state",
               "query",       "backend_type"};
  v.types = {ValueType::kInt4, ValueType::kText, ValueType::kText, ValueType::kText,
             ValueType::kText, ValueType::kText, ValueType::kText, ValueType::kText,
             ValueType::kText, ValueType::kText};
  for (const SessionActivity& a : db.sessions().snapshot()) {
    bool ran = a.query_start.time_since_epoch().count() != 0;
    v.rows.push_back({Value::int4(a.pid), Value::text(a.application_name),
                      text_or_null(a.client_addr), Value::text(timestamptz_text(a.backend_start)),
                      ran ? Value::text(timestamptz_text(a.query_start)) : Value{},
                      text_or_null(a.wait_event_type), text_or_null(a.wait_event),
                      Value::text(a.state), Value::text(a.query), Value::text("client backend")});
  }
  return v;
}

// What each live session holds that grows with its client's demands
// (engine/core/session_memory.h): tidepool's own view, in bytes.
ViewRows tidepool_session_memory(Database& db) {
  ViewRows v;
  v.columns = {"pid",         "state",     "messages_bytes", "statement_bytes", "executor_bytes",
               "total_bytes", "peak_bytes"};
  v.types = {ValueType::kInt4, ValueType::kText, ValueType::kInt8, ValueType::kInt8,
             ValueType::kInt8, ValueType::kInt8, ValueType::kInt8};
  for (const SessionActivity& a : db.sessions().snapshot())
    v.rows.push_back({Value::int4(a.pid), Value::text(a.state),
                      Value::int8(a.memory_bytes[int(MemoryPart::kMessages)]),
                      Value::int8(a.memory_bytes[int(MemoryPart::kStatement)]),
                      Value::int8(a.memory_bytes[int(MemoryPart::kExecutor)]),
                      Value::int8(a.memory_total), Value::int8(a.memory_peak)});
  return v;
}

ViewRows pg_aios(Database& db) {
  ViewRows v;
  v.columns = {"handle",   "generation",  "state",  "operation",
               "relation", "first_block", "blocks", "owner_thread"};
  v.types = {ValueType::kInt4, ValueType::kInt8, ValueType::kText, ValueType::kText,
             ValueType::kText, ValueType::kInt8, ValueType::kInt4, ValueType::kInt8};
  std::vector<aio::IoInFlightRow> ios = db.storage().io().in_flight();
  if (ios.empty()) return v;
  auto names = relation_names(db);
  for (const aio::IoInFlightRow& io : ios) {
    auto it = names.find(io.relnumber);
    bool defined = io.state != aio::IoState::kHandedOut;
    Value rel = !defined            ? Value{}
                : it != names.end() ? Value::text(it->second)
                                    : Value::text(std::to_string(io.relnumber));
    v.rows.push_back({Value::int4(io.handle_index), Value::int8(int64_t(io.generation)),
                      Value::text(aio::io_state_name(io.state)),
                      defined ? Value::text(aio::io_op_name(io.op)) : Value{}, rel,
                      defined ? Value::int8(io.first_block) : Value{},
                      defined ? Value::int4(io.nblocks) : Value{},
                      Value::int8(int64_t(io.owner_thread))});
  }
  return v;
}

ViewRows pg_stat_io() {
  ViewRows v;
  v.columns = {"method",      "context",      "reads",           "read_blocks", "read_bytes",
               "avg_read_kb", "writes",       "write_blocks",    "write_bytes", "fadvises",
               "waits",       "wait_time_ms", "submitted_inline"};
  v.types = {ValueType::kText, ValueType::kText,    ValueType::kInt8, ValueType::kInt8,
             ValueType::kInt8, ValueType::kNumeric, ValueType::kInt8, ValueType::kInt8,
             ValueType::kInt8, ValueType::kInt8,    ValueType::kInt8, ValueType::kNumeric,
             ValueType::kInt8};
  auto n = [](uint64_t x) { return Value::int8(int64_t(x)); };
  for (const aio::IoStatsRow& row : aio::io_stats_snapshot())
    v.rows.push_back(
        {Value::text(aio::io_method_name(row.method)),
         Value::text(aio::io_context_name(row.context)), n(row.reads), n(row.read_blocks),
         n(row.read_bytes), fixed(row.avg_read_size_bytes() / 1024.0, "%.1f"), n(row.writes),
         n(row.write_blocks), n(row.write_bytes), n(row.prefetch_advices), n(row.waits),
         fixed(double(row.wait_time_us) / 1000.0, "%.3f"), n(row.submitted_inline)});
  return v;
}

ViewRows pg_buffercache(Database& db) {
  ViewRows v;
  v.columns = {"bufferid", "relfilenode", "relation",         "relblocknumber",
               "isdirty",  "usagecount",  "pinning_backends", "io_in_progress"};
  v.types = {ValueType::kInt4, ValueType::kInt8, ValueType::kText, ValueType::kInt8,
             ValueType::kBool, ValueType::kInt4, ValueType::kInt4, ValueType::kBool};
  std::vector<bufmgr::BufferPool::BufferInfo> buffers = db.storage().pool().snapshot();
  auto names = relation_names(db);
  v.rows.reserve(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    const bufmgr::BufferPool::BufferInfo& info = buffers[b];
    std::vector<Value> row(v.columns.size());
    row[0] = Value::int4(int64_t(b) + 1);  // PostgreSQL numbers buffers from 1
    if (info.state != bufmgr::BufferState::kFree) {
      auto it = names.find(info.tag.relnumber);
      row[1] = Value::int8(info.tag.relnumber);
      row[2] = it != names.end() ? Value::text(it->second) : Value{};
      row[3] = Value::int8(info.tag.block);
      row[4] = Value::boolean(info.state == bufmgr::BufferState::kDirty);
      row[5] = Value::int4(info.usage);
      row[6] = Value::int4(info.refcount);
      row[7] = Value::boolean(info.state == bufmgr::BufferState::kReading);
    }
    v.rows.push_back(std::move(row));
  }
  return v;
}

bool is_aggregate(const sql::Expr& e) {
  static const char* const kAggregates[] = {"count", "sum", "avg", "min", "max"};
  if (e.kind == sql::ExprKind::kFuncCall)
    for (const char* name : kAggregates)
      if (e.name == name) return true;
  for (const auto& a : e.args)
    if (is_aggregate(*a)) return true;
  return false;
}

bool is_integer(ValueType t) {
  return t == ValueType::kInt4 || t == ValueType::kInt8 || t == ValueType::kBool;
}

// Orders two non-NULL sort keys of one column.
int compare_keys(const Value& a, const Value& b) {
  if (a.type == ValueType::kText && b.type == ValueType::kText) return a.s.compare(b.s);
  if (is_integer(a.type) && is_integer(b.type)) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  if (a.is_numeric_type() && b.is_numeric_type()) {
    double x = a.type == ValueType::kInt4 || a.type == ValueType::kInt8 ? double(a.i) : a.d;
    double y = b.type == ValueType::kInt4 || b.type == ValueType::kInt8 ? double(b.i) : b.d;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a.to_string().compare(b.to_string());
}

// One output row, with the sort keys that order it.
struct OutRow {
  std::vector<Value> values;
  std::vector<Value> keys;
};

// Sorts by the ORDER BY keys: NULLs last ascending, first descending (PostgreSQL's default).
void sort_rows(const sql::Select& s, std::vector<OutRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [&](const OutRow& x, const OutRow& y) {
    for (size_t k = 0; k < s.order_by.size(); ++k) {
      const Value &a = x.keys[k], &b = y.keys[k];
      bool an = a.type == ValueType::kNull, bn = b.type == ValueType::kNull;
      int c = an && bn ? 0 : an ? 1 : bn ? -1 : compare_keys(a, b);
      if (s.order_by[k].descending) c = -c;
      if (c != 0) return c < 0;
    }
    return false;
  });
}

// The targets of `s` over `view`: their names, and for each the view column it
// copies (`*` and plain column references) or -1 for an expression.
struct Projection {
  std::vector<std::string> names;
  std::vector<const sql::Expr*> exprs;  // null for a copied column
  std::vector<int> copied;
};

Projection project(const sql::Select& s, const ViewRows& view,
                   const std::function<int(const sql::Expr&)>& column_of) {
  Projection p;
  for (const auto& t : s.targets) {
    if (t.expr->kind == sql::ExprKind::kStar) {
      for (size_t c = 0; c < view.columns.size(); ++c) {
        p.names.push_back(view.columns[c]);
        p.exprs.push_back(nullptr);
        p.copied.push_back(int(c));
      }
      continue;
    }
    if (is_aggregate(*t.expr))
      throw Error("aggregates over system views are not supported", "",
                  "Select columns with WHERE, ORDER BY and LIMIT, e.g. SELECT pid, state FROM "
                  "pg_stat_activity WHERE state = 'active'.")
          .at_position(t.expr->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    bool plain = t.expr->kind == sql::ExprKind::kColumnRef;
    p.names.push_back(t.alias.empty() ? sql::default_column_name(*t.expr) : t.alias);
    p.exprs.push_back(plain ? nullptr : t.expr.get());
    p.copied.push_back(plain ? column_of(*t.expr) : -1);
  }
  return p;
}

// An ORDER BY key of one row: an output column by number or by name, or an
// expression over the view's row.
Value order_key(const sql::Expr& key, const Projection& p, const std::vector<Value>& out,
                const ViewRows& view, EvalContext& ec) {
  if (key.kind == sql::ExprKind::kIntConst) {
    if (key.ival < 1 || size_t(key.ival) > out.size())
      throw Error("ORDER BY position " + std::to_string(key.ival) + " is not in select list")
          .at_position(key.position)
          .with_sqlstate(sqlstate::kInvalidColumnReference);
    return out[size_t(key.ival - 1)];
  }
  if (key.kind == sql::ExprKind::kColumnRef &&
      std::find(view.columns.begin(), view.columns.end(), key.name) == view.columns.end())
    for (size_t i = 0; i < p.names.size(); ++i)
      if (p.names[i] == key.name) return out[i];
  return evaluate(key, ec);
}

}  // namespace

bool is_system_view(std::string_view name) {
  return name == "pg_stat_activity" || name == "pg_aios" || name == "pg_stat_io" ||
         name == "pg_buffercache" || name == "tidepool_session_memory" || is_catalog_view(name);
}

ViewRows read_system_view(std::string_view name, Database& db) {
  if (name == "pg_stat_activity") return pg_stat_activity(db);
  if (name == "pg_aios") return pg_aios(db);
  if (name == "pg_stat_io") return pg_stat_io();
  if (name == "pg_buffercache") return pg_buffercache(db);
  if (name == "tidepool_session_memory") return tidepool_session_memory(db);
  throw Error("relation \"" + std::string(name) + "\" is not a system view");
}

ResultSet select_from_view(const sql::Select& s, const ViewRows& view, EvalContext& functions) {
  const std::vector<Value>* row = nullptr;
  auto column_of = [&](const sql::Expr& e) -> int {
    auto it = std::find(view.columns.begin(), view.columns.end(), e.name);
    if (it == view.columns.end())
      throw Error("column \"" + e.name + "\" does not exist")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kUndefinedColumn);
    return int(it - view.columns.begin());
  };
  EvalContext ec = functions;
  ec.column = [&](const sql::Expr& e) { return (*row)[size_t(column_of(e))]; };
  // In WHERE a ::regclass / ::regtype is the OID it compares as; in the select list
  // it stays the name PostgreSQL prints.
  EvalContext where = ec;
  ec.oid_of_name = nullptr;
  Projection p = project(s, view, column_of);

  std::vector<OutRow> rows;
  for (const std::vector<Value>& r : view.rows) {
    row = &r;
    if (s.where) {
      Value ok = evaluate(*s.where, where);
      if (ok.type != ValueType::kBool && ok.type != ValueType::kNull)
        throw Error(std::string("argument of WHERE must be type boolean, not type ") +
                    value_type_name(ok.type))
            .with_sqlstate(sqlstate::kDatatypeMismatch);
      if (ok.type == ValueType::kNull || !ok.i) continue;
    }
    OutRow out;
    for (size_t i = 0; i < p.names.size(); ++i)
      out.values.push_back(p.exprs[i] ? evaluate(*p.exprs[i], ec) : r[size_t(p.copied[i])]);
    for (const auto& key : s.order_by)
      out.keys.push_back(order_key(*key.expr, p, out.values, view, ec));
    rows.push_back(std::move(out));
  }
  sort_rows(s, rows);
  if (s.distinct)
    throw Error("SELECT DISTINCT over a system view is not supported")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (s.offset)
    rows.erase(rows.begin(),
               rows.begin() + std::min<ptrdiff_t>(ptrdiff_t(rows.size()), ptrdiff_t(*s.offset)));
  if (s.limit && uint64_t(*s.limit) < rows.size()) rows.resize(size_t(*s.limit));

  ResultSet result;
  result.returns_rows = true;
  result.columns = p.names;
  for (size_t i = 0; i < p.names.size(); ++i) {
    ValueType t = ValueType::kText;
    if (p.copied[i] >= 0) {
      t = view.types[size_t(p.copied[i])];
    } else {
      for (const OutRow& r : rows)
        if (r.values[i].type != ValueType::kNull) {
          t = r.values[i].type;
          break;
        }
    }
    result.column_types.push_back(t);
    result.right_aligned.push_back(t != ValueType::kText && t != ValueType::kBool);
  }
  for (const OutRow& r : rows) {
    std::vector<std::string> text;
    std::vector<bool> null;
    for (const Value& v : r.values) {
      text.push_back(v.to_string());
      null.push_back(v.type == ValueType::kNull);
    }
    result.rows.push_back(std::move(text));
    result.nulls.push_back(std::move(null));
  }
  result.tag = "SELECT " + std::to_string(result.rows.size());
  return result;
}

std::string timestamptz_text(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto us = duration_cast<microseconds>(t.time_since_epoch()).count();
  time_t secs = time_t(us / 1000000);
  long frac = long(us % 1000000);
  if (frac < 0) {
    frac += 1000000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  std::string out(buf, size_t(n));
  if (frac != 0) {
    std::snprintf(buf, sizeof buf, ".%06ld", frac);
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "+00";
}

}  // namespace tp
