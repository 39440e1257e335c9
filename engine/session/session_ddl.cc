// Session's DDL: CREATE/DROP/ALTER TABLE, TRUNCATE, CREATE/DROP INDEX. Each builds
// the next catalog, creates or fills files, and commits in one step (see
// DataDir's all-or-nothing rule); the files a commit no longer names go after it.
#include <algorithm>
#include <set>

#include "engine/core/error.h"
#include "engine/plan/where_clause.h"
#include "engine/session/layer_settings.h"
#include "engine/session/session.h"
#include "engine/session/session_names.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"
#include "engine/sql/reloptions.h"
#include "engine/storage/index_build.h"
#include "engine/storage/table_stats.h"

namespace tp {

namespace {

// What PostgreSQL's index build writes into the table's pg_class row (index_update_stats):
// the live rows it scanned and the table's pages, so a never-analyzed table is estimated
// from them from then on. An empty table that never had counts keeps none (PostgreSQL's
// "reltuples -1" hack: a PRIMARY KEY of CREATE TABLE must not make the table look vacuumed).
// relallvisible comes from the visibility map's count, as PostgreSQL's does.
void record_table_counts(RelationEntry& table, BlockNumber all_visible) {
  TableStats st = table.stats.empty() ? TableStats{} : stats_from_catalog(table.stats);
  if (table.rows == 0 && (table.stats.empty() || st.reltuples < 0)) return;
  st.reltuples = double(table.rows);
  st.relpages = double(table.pages);
  table.stats = stats_to_catalog(st);
  table.all_visible = all_visible;
}

// The column types tables hold so far. The others parse, with PostgreSQL's checks of
// their modifiers, and are refused by name.
// A column definition's type as stored: any type tidepool stores, with its typmod.
Column stored_column(const sql::ColumnDef& c) {
  return {c.name, c.type.id, c.type.typmod, c.not_null || c.primary_key};
}

}  // namespace

ResultSet Session::create_table(const sql::CreateTable& ct) {
  if (catalog().find(ct.name)) {
    if (ct.if_not_exists) {
      ResultSet r;
      r.notices.push_back("relation " + quoted(ct.name) + " already exists, skipping");
      r.tag = "CREATE TABLE";
      return r;
    }
    throw Error("relation " + quoted(ct.name) + " already exists")
        .at_position(ct.name_position)
        .with_sqlstate(sqlstate::kDuplicateTable);
  }
  if (ct.columns.empty())
    throw Error("a table needs at least one column")
        .with_sqlstate(sqlstate::kInvalidTableDefinition);
  // PostgreSQL's MaxHeapAttributeNumber; the statistics format holds no more.
  if (ct.columns.size() > 1600)
    throw Error("tables can have at most 1600 columns").with_sqlstate(sqlstate::kTooManyColumns);
  std::set<std::string> seen;
  for (const auto& c : ct.columns)
    if (!seen.insert(c.name).second)
      throw Error("column " + quoted(c.name) + " specified more than once")
          .at_position(c.position)
          .with_sqlstate(sqlstate::kDuplicateColumn);
  for (const auto& k : ct.primary_key)
    if (!seen.count(k))
      throw Error("column " + quoted(k) + " named in key does not exist")
          .at_position(ct.primary_key_position)
          .with_sqlstate(sqlstate::kUndefinedColumn);
  return atomically([&] {
    Catalog next = catalog();
    RelationEntry rel;
    rel.oid = next.allocate_oid();
    rel.relnumber = rel.oid;
    rel.name = ct.name;
    rel.kind = RelKind::kTable;
    rel.fillfactor = ct.fillfactor.value_or(100);
    rel.parallel_workers = ct.parallel_workers.value_or(-1);
    for (const auto& c : ct.columns) rel.columns.push_back(stored_column(c));
    for (Column& c : rel.columns)  // a primary key's columns are NOT NULL
      if (std::find(ct.primary_key.begin(), ct.primary_key.end(), c.name) != ct.primary_key.end())
        c.not_null = true;
    storage().create_file(rel);
    next.relations.push_back(rel);
    if (!ct.primary_key.empty()) {
      std::vector<int> keys;
      for (const auto& k : ct.primary_key)
        for (size_t c = 0; c < rel.columns.size(); ++c)
          if (rel.columns[c].name == k) keys.push_back(int(c));
      add_index(next, next.relations.back(), "", keys, true, true);
    }
    data_dir().sync_base_directory();
    commit_catalog(std::move(next));
    ResultSet r;
    r.tag = "CREATE TABLE";
    return r;
  });
}

ResultSet Session::drop_table(const sql::DropTable& dt) {
  ResultSet r;
  r.tag = "DROP TABLE";
  Catalog next = catalog();
  std::vector<uint32_t> files;
  for (const auto& name : dt.names) {
    RelationEntry* rel = next.find(name);
    if (!rel || !rel->is_table()) {
      if (rel)
        throw Error(quoted(name) + " is not a table", "", "Use DROP INDEX to remove an index.")
            .with_sqlstate(sqlstate::kWrongObjectType);
      if (dt.if_exists) {
        r.notices.push_back("table " + quoted(name) + " does not exist, skipping");
        continue;
      }
      throw Error("table " + quoted(name) + " does not exist")
          .with_sqlstate(sqlstate::kUndefinedTable);
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
    commit_catalog(std::move(next), files);
    return r;
  });
}

// ALTER TABLE ... SET / RESET (storage options): only the catalog changes, committed as
// every other DDL (a crash leaves the old or the new entry). fillfactor applies to the
// rows inserted from then on, as in PostgreSQL.
ResultSet Session::alter_table(const sql::AlterTable& at) {
  ResultSet r;
  r.tag = "ALTER TABLE";
  Catalog next = catalog();
  RelationEntry* rel = next.find(at.name);
  if (!rel) {
    if (at.if_exists) {
      r.notices.push_back("relation " + quoted(at.name) + " does not exist, skipping");
      return r;
    }
    throw relation_missing(at.name, at.name_position);
  }
  if (!at.add_primary_key.empty()) return add_primary_key(at, *rel);
  if (at.reset) {
    sql::check_reset_options(at.options);
    for (const sql::RelOption& o : at.options) {
      if (!rel->is_table()) continue;
      if (o.name == "parallel_workers") rel->parallel_workers = -1;
      if (o.name == "fillfactor") rel->fillfactor = 100;
    }
  } else if (!rel->is_table()) {
    sql::index_options(at.options);  // an unknown or misspelt option is named first
    throw Error("cannot change the options of index " + quoted(at.name), "",
                "An index's deduplicate_items is fixed when it is built: drop it and create it "
                "again WITH (deduplicate_items = ...).")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  } else {
    sql::TableOptions o = sql::table_options(at.options);
    if (o.fillfactor) rel->fillfactor = *o.fillfactor;
    if (o.parallel_workers) rel->parallel_workers = *o.parallel_workers;
  }
  return atomically([&] {
    commit_catalog(std::move(next));
    return r;
  });
}

ResultSet Session::truncate(const sql::Truncate& t) {
  Catalog next = catalog();
  std::vector<uint32_t> old_files;
  for (const auto& name : t.names) {
    RelationEntry* rel = next.find(name);
    if (!rel) throw relation_missing(name);
    if (!rel->is_table())
      throw Error(quoted(name) + " is not a table").with_sqlstate(sqlstate::kWrongObjectType);
  }
  return atomically([&] {
    // Like PostgreSQL: new, empty files under new relnumbers; the old ones go at commit.
    for (const auto& name : t.names) {
      RelationEntry* rel = next.find(name);
      std::vector<RelationEntry*> rels{rel};
      for (auto& r : next.relations)
        if (r.kind == RelKind::kIndex && r.table_oid == rel->oid) rels.push_back(&r);
      // PostgreSQL keeps the columns' statistics but forgets the counts (reltuples -1):
      // the empty table is estimated as never vacuumed until ANALYZE or an index build.
      if (!rel->stats.empty()) {
        TableStats st = stats_from_catalog(rel->stats);
        st.reltuples = -1;
        st.relpages = 0;
        rel->stats = stats_to_catalog(st);
      }
      rel->all_visible = 0;  // the new file has no visibility map
      for (RelationEntry* r : rels) {
        old_files.push_back(r->relnumber);
        r->relnumber = next.allocate_oid();
        r->pages = 0;
        r->rows = 0;
        storage().create_file(*r);
        if (r->kind == RelKind::kIndex)
          r->pages = build_index(storage(), *rel, *r, stream_config(*settings_), false).pages;
      }
    }
    data_dir().sync_base_directory();
    commit_catalog(std::move(next), old_files);
    ResultSet r;
    r.tag = "TRUNCATE TABLE";
    return r;
  });
}

// ALTER TABLE ... ADD PRIMARY KEY: a unique index named <table>_pkey (or the
// constraint's name) over columns that become NOT NULL, as PostgreSQL's; a NULL
// already in one of them is 23502, a duplicate key the index build's 23505.
ResultSet Session::add_primary_key(const sql::AlterTable& at, const RelationEntry& table) {
  if (!table.is_table())
    throw Error(quoted(at.name) + " is not a table").with_sqlstate(sqlstate::kWrongObjectType);
  for (const RelationEntry* idx : catalog().indexes_of(table.oid))
    if (idx->primary)
      throw Error("multiple primary keys for table " + quoted(table.name) + " are not allowed")
          .at_position(at.add_position)
          .with_sqlstate(sqlstate::kInvalidTableDefinition);
  if (!at.constraint_name.empty() && catalog().find(at.constraint_name))
    throw Error("relation " + quoted(at.constraint_name) + " already exists")
        .with_sqlstate(sqlstate::kDuplicateTable);
  std::vector<int> keys;
  for (const std::string& name : at.add_primary_key) {
    auto it = std::find_if(table.columns.begin(), table.columns.end(),
                           [&](const Column& c) { return c.name == name; });
    if (it == table.columns.end())
      throw Error("column " + quoted(name) + " of relation " + quoted(table.name) +
                  " does not exist")
          .with_sqlstate(sqlstate::kUndefinedColumn);
    const int c = int(it - table.columns.begin());
    if (std::find(keys.begin(), keys.end(), c) != keys.end())
      throw Error("column " + quoted(name) + " appears twice in primary key constraint")
          .with_sqlstate(sqlstate::kDuplicateColumn);
    keys.push_back(c);
  }
  // PostgreSQL names the first column holding a NULL; so does this. The probes' rows
  // come back here, not to the client.
  RowSink* const sink = row_sink_;
  row_sink_ = nullptr;
  struct PutBack {
    RowSink*& slot;
    RowSink* value;
    ~PutBack() { slot = value; }
  } put_back{row_sink_, sink};
  for (int c : keys) {
    const sql::Statement probe = sql::parse_statement(
        "SELECT 1 FROM " + sql::quote_identifier(table.name) + " WHERE " +
            sql::quote_identifier(table.columns[size_t(c)].name) + " IS NULL LIMIT 1",
        nullptr);
    if (!select(std::get<sql::Select>(probe)).rows.empty())
      throw Error("column " + quoted(table.columns[size_t(c)].name) + " of relation " +
                  quoted(table.name) + " contains null values")
          .with_sqlstate(sqlstate::kNotNullViolation);
  }
  return atomically([&] {
    Catalog next = catalog();
    RelationEntry& rel = *next.find_oid(table.oid);
    for (int c : keys) rel.columns[size_t(c)].not_null = true;
    add_index(next, rel, at.constraint_name, keys, true, true);
    data_dir().sync_base_directory();
    commit_catalog(std::move(next));
    ResultSet r;
    r.tag = "ALTER TABLE";
    return r;
  });
}

RelationEntry& Session::add_index(Catalog& next, RelationEntry table, std::string name,
                                  const std::vector<int>& columns, bool unique, bool primary,
                                  std::optional<bool> deduplicate_items) {
  if (columns.size() > size_t(btree::kMaxKeyColumns))
    throw Error("cannot use more than " + std::to_string(btree::kMaxKeyColumns) +
                " columns in an index")
        .with_sqlstate(sqlstate::kTooManyColumns);
  RelationEntry idx;
  idx.oid = next.allocate_oid();
  idx.relnumber = idx.oid;
  idx.kind = RelKind::kIndex;
  idx.name = name.empty() ? choose_index_name(next, table, columns, primary) : name;
  idx.table_oid = table.oid;
  idx.key_columns = columns;
  idx.unique = unique || primary;
  idx.primary = primary;
  idx.deduplicate_items = deduplicate_items;
  idx.rows = table.rows;
  storage().create_file(idx);
  btree::BuildStats stats =
      build_index(storage(), table, idx, stream_config(*settings_), db_->options().progress);
  storage().flush(idx);
  idx.pages = stats.pages;
  next.relations.push_back(idx);
  record_table_counts(*next.find_oid(table.oid),
                      storage().visibility_map(table)->count_all_visible());
  return next.relations.back();
}

ResultSet Session::create_index(const sql::CreateIndex& ci) {
  const RelationEntry* table = catalog().find(ci.table);
  if (!table) throw relation_missing(ci.table);
  if (!table->is_table())
    throw Error("\"" + ci.table + "\" is not a table").with_sqlstate(sqlstate::kWrongObjectType);
  if (!ci.name.empty() && catalog().find(ci.name)) {
    if (ci.if_not_exists) {
      ResultSet r;
      r.notices.push_back("relation \"" + ci.name + "\" already exists, skipping");
      r.tag = "CREATE INDEX";
      return r;
    }
    throw Error("relation \"" + ci.name + "\" already exists")
        .with_sqlstate(sqlstate::kDuplicateTable);
  }
  std::vector<int> columns;
  for (const auto& name : ci.columns) {
    int pos = -1;
    for (size_t c = 0; c < table->columns.size(); ++c)
      if (table->columns[c].name == name) pos = int(c);
    if (pos < 0)
      throw Error("column \"" + name + "\" does not exist")
          .with_sqlstate(sqlstate::kUndefinedColumn);
    columns.push_back(pos);
  }
  return atomically([&] {
    Catalog next = catalog();
    add_index(next, *next.find_oid(table->oid), ci.name, columns, ci.unique, false,
              ci.deduplicate_items);
    data_dir().sync_base_directory();
    commit_catalog(std::move(next));
    ResultSet r;
    r.tag = "CREATE INDEX";
    return r;
  });
}

ResultSet Session::drop_index(const sql::DropIndex& di) {
  ResultSet r;
  r.tag = "DROP INDEX";
  Catalog next = catalog();
  std::vector<uint32_t> files;
  for (const auto& name : di.names) {
    RelationEntry* idx = next.find(name);
    if (!idx || idx->kind != RelKind::kIndex) {
      if (idx)
        throw Error("\"" + name + "\" is not an index", "", "Use DROP TABLE to remove a table.")
            .with_sqlstate(sqlstate::kWrongObjectType);
      if (di.if_exists) {
        r.notices.push_back("index \"" + name + "\" does not exist, skipping");
        continue;
      }
      throw Error("index \"" + name + "\" does not exist")
          .with_sqlstate(sqlstate::kUndefinedObject);
    }
    if (idx->primary)
      throw Error("cannot drop index " + name + " because constraint " + name + " on table " +
                      next.find_oid(idx->table_oid)->name + " requires it",
                  "", "Drop the table instead.")
          .with_sqlstate(sqlstate::kDependentObjectsStillExist);
    files.push_back(idx->relnumber);
    next.remove(idx->oid);
  }
  if (files.empty()) return r;
  return atomically([&] {
    commit_catalog(std::move(next), files);
    return r;
  });
}

}  // namespace tp
