#include "engine/session/session.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "aio/stats.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/session/layer_settings.h"
#include "engine/session/query.h"
#include "engine/session/row_source.h"
#include "engine/sql/parser.h"
#include "engine/storage/heap_loader.h"
#include "engine/storage/index_build.h"
#include "engine/storage/index_maintenance.h"
#include "engine/storage/index_verify.h"

namespace tp {
namespace {

using Clock = std::chrono::steady_clock;

std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}

Error relation_missing(const std::string& name, int position = 0) {
  return Error("relation " + quoted(name) + " does not exist").at_position(position);
}

// A progress line on stderr ("\r...") while a long load runs.
class LoadProgress {
 public:
  LoadProgress(bool enabled, std::string what)
      : enabled_(enabled), what_(std::move(what)), start_(Clock::now()), last_(start_) {}
  ~LoadProgress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  // `bytes`: what has been written to the table's file so far.
  void update(uint64_t rows, uint64_t total, uint64_t bytes) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double mbps = secs > 0 ? double(bytes) / secs / 1e6 : 0;
    double eta = rows > 0 && total > rows ? secs * double(total - rows) / double(rows) : 0;
    std::fprintf(stderr, "\r\033[K%s: %llu / %llu rows, %.0f MB/s, ETA %.0f s", what_.c_str(),
                 (unsigned long long)rows, (unsigned long long)total, mbps, eta);
    shown_ = true;
  }

 private:
  bool enabled_;
  std::string what_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

}  // namespace

Session::Session(const SessionOptions& options) : options_(options) {
  dir_ = std::make_unique<DataDir>(options.data_dir,
                                   DataDirOptions{.create_if_missing = options.create_data_dir});
  settings_.load_conf_file(dir_->conf_path());
  for (const std::string& s : options.settings) settings_.set_from_assignment(s);
  storage_ = std::make_unique<Storage>(*dir_, storage_config(settings_));
  for (const char* name : {"io_method", "io_workers", "io_direct"})
    settings_.on_apply(
        name, [this](const std::string&) { storage_->set_io_config(io_config(settings_)); });
  settings_.on_apply("shared_buffers", [this](const std::string&) {
    storage_->set_shared_buffers(int(settings_.get_int("shared_buffers")));
  });
  random_.seed_with(uint64_t(settings_.get_int("random_seed")));
  settings_.on_apply("random_seed", [this](const std::string&) {
    random_.seed_with(uint64_t(settings_.get_int("random_seed")));
  });
}

Session::~Session() {
  storage_.reset();  // flushes and closes files before the data directory unlocks
}

ResultSet Session::execute(std::string_view text) {
  std::vector<std::string> parse_notices;  // identifier truncation
  sql::Statement st = sql::parse_statement(text, &parse_notices);
  cancel_requested().store(false);  // a Ctrl-C between statements cancels nothing
  ResultSet r = run(st);
  r.notices.insert(r.notices.begin(), parse_notices.begin(), parse_notices.end());
  return r;
}

ResultSet Session::run(sql::Statement& st) {
  return std::visit(
      [&](auto& s) -> ResultSet {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, sql::CreateTable>)
          return create_table(s);
        else if constexpr (std::is_same_v<T, sql::DropTable>)
          return drop_table(s);
        else if constexpr (std::is_same_v<T, sql::Truncate>)
          return truncate(s);
        else if constexpr (std::is_same_v<T, sql::Insert>)
          return insert(s);
        else if constexpr (std::is_same_v<T, sql::Select>)
          return select(s);
        else if constexpr (std::is_same_v<T, sql::SetStmt>)
          return set(s);
        else if constexpr (std::is_same_v<T, sql::ShowStmt>)
          return show(s);
        else if constexpr (std::is_same_v<T, sql::ResetStmt>)
          return reset(s);
        else if constexpr (std::is_same_v<T, sql::CreateIndex>)
          return create_index(s);
        else if constexpr (std::is_same_v<T, sql::DropIndex>)
          return drop_index(s);
        else if constexpr (std::is_same_v<T, sql::Analyze>)
          return query_analyze(*this, s);
        else
          return query_explain(*this, *s);
      },
      st);
}

template <typename F>
ResultSet Session::atomically(F&& body) {
  try {
    return body();
  } catch (...) {
    // Cached pages of this statement's files may be newer than what restore()
    // puts back: drop them all before the files are rewound.
    storage_->forget_all();
    dir_->restore();
    throw;
  }
}

// Commits `next`; then the files it no longer names are garbage: their pages
// leave the pool and the files go. A crash before the unlink is cleaned up at
// the next open (DataDir::restore).
void Session::commit_and_remove(Catalog next, const std::vector<uint32_t>& garbage) {
  dir_->commit(std::move(next));
  for (uint32_t f : garbage) {
    storage_->forget(f);
    ::unlink(dir_->relation_path(f).c_str());
  }
}

ResultSet Session::create_table(const sql::CreateTable& ct) {
  if (dir_->catalog().find(ct.name)) {
    if (ct.if_not_exists) {
      ResultSet r;
      r.notices.push_back("relation " + quoted(ct.name) + " already exists, skipping");
      r.tag = "CREATE TABLE";
      return r;
    }
    throw Error("relation " + quoted(ct.name) + " already exists").at_position(ct.name_position);
  }
  if (ct.columns.empty()) throw Error("a table needs at least one column");
  // PostgreSQL's MaxHeapAttributeNumber; the statistics format holds no more.
  if (ct.columns.size() > 1600) throw Error("tables can have at most 1600 columns");
  std::set<std::string> seen;
  for (const auto& c : ct.columns)
    if (!seen.insert(c.name).second)
      throw Error("column " + quoted(c.name) + " specified more than once").at_position(c.position);
  for (const auto& k : ct.primary_key)
    if (!seen.count(k))
      throw Error("column " + quoted(k) + " named in key does not exist")
          .at_position(ct.primary_key_position);
  return atomically([&] {
    Catalog next = dir_->catalog();
    RelationEntry rel;
    rel.oid = next.allocate_oid();
    rel.relnumber = rel.oid;
    rel.name = ct.name;
    rel.kind = RelKind::Table;
    rel.fillfactor = ct.fillfactor.value_or(100);
    for (const auto& c : ct.columns)
      rel.columns.push_back({c.name, c.type == "bigint" ? ColumnType::Int8 : ColumnType::Int4});
    storage_->create_file(rel);
    next.relations.push_back(rel);
    if (!ct.primary_key.empty()) {
      std::vector<int> keys;
      for (const auto& k : ct.primary_key)
        for (size_t c = 0; c < rel.columns.size(); ++c)
          if (rel.columns[c].name == k) keys.push_back(int(c));
      add_index(next, next.relations.back(), "", keys, true, true);
    }
    dir_->sync_base_directory();
    dir_->commit(std::move(next));
    ResultSet r;
    r.tag = "CREATE TABLE";
    return r;
  });
}

ResultSet Session::drop_table(const sql::DropTable& dt) {
  ResultSet r;
  r.tag = "DROP TABLE";
  Catalog next = dir_->catalog();
  std::vector<uint32_t> files;
  for (const auto& name : dt.names) {
    RelationEntry* rel = next.find(name);
    if (!rel || !rel->is_table()) {
      if (rel)
        throw Error(quoted(name) + " is not a table", "", "Use DROP INDEX to remove an index.");
      if (dt.if_exists) {
        r.notices.push_back("table " + quoted(name) + " does not exist, skipping");
        continue;
      }
      throw Error("table " + quoted(name) + " does not exist");
    }
    // Collect oids first: remove() shifts the entries behind the removed one,
    // so pointers from indexes_of() name the wrong relation after the first.
    std::vector<uint32_t> oids{rel->oid};
    for (const RelationEntry* idx : next.indexes_of(rel->oid)) oids.push_back(idx->oid);
    for (uint32_t oid : oids) {
      files.push_back(next.find_oid(oid)->relnumber);
      next.remove(oid);
    }
  }
  if (files.empty()) return r;
  return atomically([&] {
    commit_and_remove(std::move(next), files);
    return r;
  });
}

ResultSet Session::truncate(const sql::Truncate& t) {
  Catalog next = dir_->catalog();
  std::vector<uint32_t> old_files;
  for (const auto& name : t.names) {
    RelationEntry* rel = next.find(name);
    if (!rel) throw relation_missing(name);
    if (!rel->is_table()) throw Error(quoted(name) + " is not a table");
  }
  return atomically([&] {
    // Like PostgreSQL: new, empty files under new relnumbers; the old ones go at commit.
    for (const auto& name : t.names) {
      RelationEntry* rel = next.find(name);
      std::vector<RelationEntry*> rels{rel};
      for (auto& r : next.relations)
        if (r.kind == RelKind::Index && r.table_oid == rel->oid) rels.push_back(&r);
      for (RelationEntry* r : rels) {
        old_files.push_back(r->relnumber);
        r->relnumber = next.allocate_oid();
        r->pages = 0;
        r->rows = 0;
        storage_->create_file(*r);
        if (r->kind == RelKind::Index)
          r->pages = build_index(*storage_, *rel, *r, stream_config(settings_), false).pages;
      }
    }
    dir_->sync_base_directory();
    commit_and_remove(std::move(next), old_files);
    ResultSet r;
    r.tag = "TRUNCATE TABLE";
    return r;
  });
}

ResultSet Session::insert(const sql::Insert& ins) {
  const RelationEntry* found = dir_->catalog().find(ins.table);
  if (!found) throw relation_missing(ins.table, ins.table_position);
  if (!found->is_table())
    throw Error("cannot insert into " + quoted(ins.table) + ": it is an index");
  if (ins.source.from && !ins.source.from->is_function)
    throw Error(
        "INSERT ... SELECT reads generate_series(...) or VALUES; reading another table "
        "is not supported")
        .at_position(ins.source.from->position);
  const RelationEntry table = *found;
  // Map source columns to table columns.
  std::vector<int> target(table.columns.size(), -1);
  size_t source_width =
      ins.source.values.empty() ? ins.source.targets.size() : ins.source.values.front().size();
  if (ins.columns.empty()) {
    if (source_width > table.columns.size())
      throw Error("INSERT has more expressions than target columns");
    for (size_t i = 0; i < source_width; ++i) target[i] = int(i);
  } else {
    if (source_width > ins.columns.size())
      throw Error("INSERT has more expressions than target columns");
    if (source_width < ins.columns.size())
      throw Error("INSERT has more target columns than expressions");
    for (size_t i = 0; i < ins.columns.size(); ++i) {
      int pos = -1;
      for (size_t c = 0; c < table.columns.size(); ++c)
        if (table.columns[c].name == ins.columns[i]) pos = int(c);
      if (pos < 0)
        throw Error("column " + quoted(ins.columns[i]) + " of relation " + quoted(table.name) +
                    " does not exist");
      if (target[size_t(pos)] >= 0)
        throw Error("column " + quoted(ins.columns[i]) + " specified more than once");
      target[size_t(pos)] = int(i);
    }
  }
  for (size_t c = 0; c < table.columns.size(); ++c)
    if (target[c] < 0)
      throw Error("null value in column " + quoted(table.columns[c].name) + " of relation " +
                      quoted(table.name) + " violates not-null constraint",
                  "", "tidepool columns hold no NULLs: give every column a value.");

  return atomically([&] {
    RowSourceContext ctx;
    ctx.random = &random_;
    ctx.session_function = [this](const sql::Expr& e, const std::vector<Value>& args) {
      return session_function(e, args);
    };
    uint64_t total = options_.progress ? row_source_size(ins.source, ctx) : 0;
    LoadProgress progress(options_.progress && total >= 1000000, "INSERT INTO " + table.name);
    Catalog next = dir_->catalog();
    HeapLoader loader(*dir_, *storage_, table);
    IndexMaintainer indexes(*storage_, *dir_, next, table);
    ctx.tick = [&](uint64_t rows, uint64_t) {
      check_for_interrupts();
      progress.update(rows, total, loader.bytes_written());
    };
    std::vector<int64_t> values(table.columns.size());
    produce_rows(ins.source, ctx, [&](const std::vector<Value>& row) {
      for (size_t c = 0; c < values.size(); ++c)
        values[c] =
            value_to_column(row[size_t(target[c])], table.columns[c].type, table.columns[c].name);
      indexes.add(values.data(), loader.add(values.data()));
    });
    check_for_interrupts();
    uint64_t pages = loader.finish();
    std::vector<uint32_t> garbage = indexes.finish();
    RelationEntry* rel = next.find_oid(table.oid);
    rel->pages = pages;
    rel->rows += loader.rows_added();
    commit_and_remove(std::move(next), garbage);
    ResultSet r;
    r.tag = "INSERT 0 " + std::to_string(loader.rows_added());
    return r;
  });
}

Value Session::session_function(const sql::Expr& e, const std::vector<Value>& args) {
  if (e.name == "setseed") {
    if (args.size() != 1 || !args[0].is_numeric_type())
      throw Error("function setseed takes one double precision argument").at_position(e.position);
    double seed = args[0].type == ValueType::Int4 || args[0].type == ValueType::Int8
                      ? double(args[0].i)
                      : args[0].d;
    if (seed < -1 || seed > 1 || std::isnan(seed))
      throw Error("setseed parameter " + Value::float8(seed).to_string() +
                  " is out of allowed range [-1,1]")
          .at_position(e.position);
    uint64_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    random_.seed_with(bits);
    return Value::text("");
  }
  if (e.name == "tp_verify") {
    if (args.size() != 1 || args[0].type != ValueType::Text)
      throw Error("function tp_verify takes one index name").at_position(e.position);
    const RelationEntry* idx = dir_->catalog().find(args[0].s);
    if (!idx) throw relation_missing(args[0].s, e.args[0]->position);
    if (idx->kind != RelKind::Index)
      throw Error("\"" + idx->name + "\" is not an index").at_position(e.args[0]->position);
    const RelationEntry* table = dir_->catalog().find_oid(idx->table_oid);
    btree::VerifyReport report = verify_index(*storage_, *table, *idx);
    if (!report.ok) throw Error(report.message);
    return Value::text("index \"" + idx->name +
                       "\" is valid: " + std::to_string(report.pages_checked) + " pages, " +
                       std::to_string(report.leaf_items_checked) + " entries checked");
  }
  if (e.name == "pg_stat_reset_shared") {
    if (args.size() != 1 || args[0].type != ValueType::Text || args[0].s != "io")
      throw Error("pg_stat_reset_shared takes 'io' (the only shared statistics tidepool keeps)")
          .at_position(e.position);
    aio::io_stats_reset();
    return Value::text("");
  }
  if (e.name == "pg_relation_size" || e.name == "pg_table_size" ||
      e.name == "pg_total_relation_size") {
    if (args.size() != 1 || args[0].type != ValueType::Text)
      throw Error("function " + e.name + " takes one relation name").at_position(e.position);
    const RelationEntry* rel = dir_->catalog().find(args[0].s);
    if (!rel) throw relation_missing(args[0].s, e.args[0]->position);
    uint64_t pages = rel->pages;
    if (e.name == "pg_total_relation_size" && rel->is_table())
      for (const RelationEntry* idx : dir_->catalog().indexes_of(rel->oid)) pages += idx->pages;
    return Value::int8(int64_t(pages * kBlockSize));
  }
  throw Error("function " + e.name + "() does not exist").at_position(e.position);
}

ResultSet Session::select(const sql::Select& s) {
  if (s.from && !s.from->is_function) {
    if (s.from->name == "pg_aios" || s.from->name == "pg_stat_io") return system_view(s);
    return query_select(*this, s);
  }
  ResultSet r;
  r.returns_rows = true;
  r.columns = row_source_columns(s);
  RowSourceContext ctx;
  ctx.random = &random_;
  ctx.session_function = [this](const sql::Expr& e, const std::vector<Value>& args) {
    return session_function(e, args);
  };
  ctx.tick = [](uint64_t, uint64_t) { check_for_interrupts(); };
  bool first = true;
  produce_rows(s, ctx, [&](const std::vector<Value>& row) {
    if (first) {
      for (const Value& v : row) r.right_aligned.push_back(v.is_numeric_type());
      first = false;
    }
    std::vector<std::string> out;
    for (const Value& v : row) out.push_back(v.to_string());
    r.rows.push_back(std::move(out));
  });
  if (first) r.right_aligned.assign(r.columns.size(), false);
  r.tag = "SELECT " + std::to_string(r.rows.size());
  return r;
}

RelationEntry& Session::add_index(Catalog& next, RelationEntry table, std::string name,
                                  const std::vector<int>& columns, bool unique, bool primary) {
  RelationEntry idx;
  idx.oid = next.allocate_oid();
  idx.relnumber = idx.oid;
  idx.kind = RelKind::Index;
  idx.name = name.empty() ? choose_index_name(next, table, columns, primary) : name;
  idx.table_oid = table.oid;
  idx.key_columns = columns;
  idx.unique = unique || primary;
  idx.primary = primary;
  idx.rows = table.rows;
  storage_->create_file(idx);
  btree::BuildStats stats =
      build_index(*storage_, table, idx, stream_config(settings_), options_.progress);
  storage_->flush(idx);
  idx.pages = stats.pages;
  next.relations.push_back(idx);
  return next.relations.back();
}

ResultSet Session::create_index(const sql::CreateIndex& ci) {
  const RelationEntry* table = dir_->catalog().find(ci.table);
  if (!table) throw relation_missing(ci.table);
  if (!table->is_table()) throw Error("\"" + ci.table + "\" is not a table");
  if (!ci.name.empty() && dir_->catalog().find(ci.name)) {
    if (ci.if_not_exists) {
      ResultSet r;
      r.notices.push_back("relation \"" + ci.name + "\" already exists, skipping");
      r.tag = "CREATE INDEX";
      return r;
    }
    throw Error("relation \"" + ci.name + "\" already exists");
  }
  std::vector<int> columns;
  for (const auto& name : ci.columns) {
    int pos = -1;
    for (size_t c = 0; c < table->columns.size(); ++c)
      if (table->columns[c].name == name) pos = int(c);
    if (pos < 0) throw Error("column \"" + name + "\" does not exist");
    columns.push_back(pos);
  }
  if (columns.size() > size_t(btree::kMaxKeyColumns))
    throw Error("cannot use more than " + std::to_string(btree::kMaxKeyColumns) +
                " columns in an index");
  return atomically([&] {
    Catalog next = dir_->catalog();
    add_index(next, *next.find_oid(table->oid), ci.name, columns, ci.unique, false);
    dir_->sync_base_directory();
    dir_->commit(std::move(next));
    ResultSet r;
    r.tag = "CREATE INDEX";
    return r;
  });
}

ResultSet Session::drop_index(const sql::DropIndex& di) {
  ResultSet r;
  r.tag = "DROP INDEX";
  Catalog next = dir_->catalog();
  std::vector<uint32_t> files;
  for (const auto& name : di.names) {
    RelationEntry* idx = next.find(name);
    if (!idx || idx->kind != RelKind::Index) {
      if (idx)
        throw Error("\"" + name + "\" is not an index", "", "Use DROP TABLE to remove a table.");
      if (di.if_exists) {
        r.notices.push_back("index \"" + name + "\" does not exist, skipping");
        continue;
      }
      throw Error("index \"" + name + "\" does not exist");
    }
    if (idx->primary)
      throw Error("cannot drop index " + name + " because constraint " + name + " on table " +
                      next.find_oid(idx->table_oid)->name + " requires it",
                  "", "Drop the table instead.");
    files.push_back(idx->relnumber);
    next.remove(idx->oid);
  }
  if (files.empty()) return r;
  return atomically([&] {
    commit_and_remove(std::move(next), files);
    return r;
  });
}

int Session::index_height(const RelationEntry& index) {
  return tp::index_height(*storage_, *dir_->catalog().find_oid(index.table_oid), index);
}

PlanContext Session::plan_context() {
  return PlanContext{dir_->catalog(), *dir_, *storage_, planner_settings(settings_)};
}

// pg_aios (I/Os in flight now) and pg_stat_io (cumulative I/O counters per
// method and context), in the spirit of PostgreSQL's views of the same names.
ResultSet Session::system_view(const sql::Select& s) {
  bool star = s.targets.size() == 1 && s.targets[0].expr->kind == sql::ExprKind::Star;
  if (!star || s.where || !s.order_by.empty())
    throw Error("system views take SELECT * FROM " + s.from->name + " only");
  ResultSet r;
  r.returns_rows = true;
  if (s.from->name == "pg_aios") {
    r.columns = {"handle",   "generation",  "state",  "operation",
                 "relation", "first_block", "blocks", "owner_thread"};
    r.right_aligned = {true, true, false, false, false, true, true, true};
    for (const aio::IoInFlightRow& io : storage_->io().in_flight()) {
      std::string rel = std::to_string(io.relnumber);
      for (const auto& e : dir_->catalog().relations)
        if (e.relnumber == io.relnumber) rel = e.name;
      r.rows.push_back({std::to_string(io.handle_index), std::to_string(io.generation),
                        aio::io_state_name(io.state), aio::io_op_name(io.op), rel,
                        std::to_string(io.first_block), std::to_string(io.nblocks),
                        std::to_string(io.owner_thread)});
    }
  } else {
    r.columns = {"method",      "context",     "reads",  "read_blocks",
                 "read_bytes",  "avg_read_kb", "writes", "write_blocks",
                 "write_bytes", "fadvises",    "waits",  "wait_time_ms"};
    r.right_aligned = {false, false, true, true, true, true, true, true, true, true, true, true};
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
  r.tag = "SELECT " + std::to_string(r.rows.size());
  return r;
}

ResultSet Session::set(const sql::SetStmt& s) {
  if (s.to_default) {
    settings_.reset(s.name);
  } else {
    try {
      settings_.set(s.name, s.value);
    } catch (Error& e) {
      throw e.at_position(0);
    }
  }
  ResultSet r;
  r.tag = "SET";
  return r;
}

ResultSet Session::show(const sql::ShowStmt& s) {
  ResultSet r;
  r.returns_rows = true;
  if (s.name == "all") {
    r.columns = {"name", "setting", "description"};
    r.right_aligned = {false, false, false};
    for (const SettingDef& d : Settings::definitions())
      r.rows.push_back({d.name, settings_.show(d.name), d.description});
  } else {
    r.columns = {s.name};
    r.right_aligned = {false};
    r.rows.push_back({settings_.show(s.name)});
  }
  r.tag = "SHOW";
  return r;
}

ResultSet Session::reset(const sql::ResetStmt& s) {
  settings_.reset(s.name);
  ResultSet r;
  r.tag = "RESET";
  return r;
}

}  // namespace tp
