#include "engine/session/catalog_views.h"

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/types.h"

namespace tp {
namespace {

constexpr int64_t kPgCatalogOid = 11;
constexpr int64_t kPublicOid = 2200;
constexpr int64_t kBootstrapSuperuserOid = 10;
constexpr int64_t kHeapAmOid = 2;
constexpr int64_t kBtreeAmOid = 403;
constexpr int64_t kDatabaseOid = 16384;

Value oid(int64_t v) {
  return Value::int8(v);
}

ViewRows pg_namespace() {
  ViewRows v;
  v.columns = {"oid", "nspname", "nspowner"};
  v.types = {ValueType::kInt8, ValueType::kText, ValueType::kInt8};
  v.rows.push_back({oid(kPgCatalogOid), Value::text("pg_catalog"), oid(kBootstrapSuperuserOid)});
  v.rows.push_back({oid(kPublicOid), Value::text("public"), oid(kBootstrapSuperuserOid)});
  return v;
}

ViewRows pg_database(const std::string& database) {
  ViewRows v;
  v.columns = {"oid",        "datname",  "datdba",       "encoding",
               "datcollate", "datctype", "datallowconn", "datconnlimit"};
  v.types = {ValueType::kInt8, ValueType::kText, ValueType::kInt8, ValueType::kInt4,
             ValueType::kText, ValueType::kText, ValueType::kBool, ValueType::kInt4};
  v.rows.push_back({oid(kDatabaseOid), Value::text(database), oid(kBootstrapSuperuserOid),
                    Value::int4(6) /* UTF8 */, Value::text("C"), Value::text("C"),
                    Value::boolean(true), Value::int4(-1)});
  return v;
}

ViewRows pg_class(const Catalog& catalog) {
  ViewRows v;
  v.columns = {"oid",         "relname",     "relnamespace",   "reltype",   "relowner",
               "relam",       "relfilenode", "relpages",       "reltuples", "relallvisible",
               "relhasindex", "relisshared", "relpersistence", "relkind",   "relnatts"};
  v.types = {ValueType::kInt8,   ValueType::kText, ValueType::kInt8, ValueType::kInt8,
             ValueType::kInt8,   ValueType::kInt8, ValueType::kInt8, ValueType::kInt4,
             ValueType::kFloat8, ValueType::kInt4, ValueType::kBool, ValueType::kBool,
             ValueType::kText,   ValueType::kText, ValueType::kInt4};
  for (const RelationEntry& r : catalog.relations) {
    const bool table = r.is_table();
    // reltuples: -1 for a table never analyzed (PostgreSQL 14 on), else its live rows.
    const double tuples = table && r.stats.empty() ? -1.0 : double(r.rows);
    const int natts = table ? int(r.columns.size()) : int(r.key_columns.size());
    v.rows.push_back(
        {oid(r.oid), Value::text(r.name), oid(kPublicOid), oid(0), oid(kBootstrapSuperuserOid),
         oid(table ? kHeapAmOid : kBtreeAmOid), oid(r.relnumber), Value::int4(int64_t(r.pages)),
         Value::float8(tuples), Value::int4(int64_t(r.all_visible)),
         Value::boolean(table && !catalog.indexes_of(r.oid).empty()), Value::boolean(false),
         Value::text("p"), Value::text(table ? "r" : "i"), Value::int4(natts)});
  }
  return v;
}

ViewRows pg_attribute(const Catalog& catalog) {
  ViewRows v;
  v.columns = {"attrelid",  "attname",  "atttypid",   "attlen",      "attnum",
               "atttypmod", "attbyval", "attnotnull", "attisdropped"};
  v.types = {ValueType::kInt8, ValueType::kText, ValueType::kInt8,
             ValueType::kInt4, ValueType::kInt4, ValueType::kInt4,
             ValueType::kBool, ValueType::kBool, ValueType::kBool};
  auto add = [&](const RelationEntry& r, const Column& c, int attnum) {
    const TypeInfo& t = type_info(c.type);
    v.rows.push_back({oid(r.oid), Value::text(c.name), oid(int64_t(c.type)), Value::int4(t.len),
                      Value::int4(attnum), Value::int4(c.typmod), Value::boolean(t.byval),
                      Value::boolean(c.not_null), Value::boolean(false)});
  };
  for (const RelationEntry& r : catalog.relations) {
    if (r.is_table()) {
      for (size_t i = 0; i < r.columns.size(); ++i) add(r, r.columns[i], int(i) + 1);
      continue;
    }
    const RelationEntry* table = catalog.find_oid(r.table_oid);
    if (table == nullptr) continue;
    for (size_t i = 0; i < r.key_columns.size(); ++i) {
      Column c = table->columns[size_t(r.key_columns[i])];
      c.not_null = false;  // an index's attribute is never NOT NULL itself
      add(r, c, int(i) + 1);
    }
  }
  return v;
}

ViewRows pg_index(const Catalog& catalog) {
  ViewRows v;
  v.columns = {"indexrelid",  "indrelid",     "indnatts",   "indnkeyatts",
               "indisunique", "indisprimary", "indisvalid", "indkey"};
  v.types = {ValueType::kInt8, ValueType::kInt8, ValueType::kInt4, ValueType::kInt4,
             ValueType::kBool, ValueType::kBool, ValueType::kBool, ValueType::kText};
  for (const RelationEntry& r : catalog.relations) {
    if (r.is_table()) continue;
    std::string indkey;  // int2vector's text: the table's attnums, space-separated
    for (int c : r.key_columns) indkey += (indkey.empty() ? "" : " ") + std::to_string(c + 1);
    const int n = int(r.key_columns.size());
    v.rows.push_back({oid(r.oid), oid(r.table_oid), Value::int4(n), Value::int4(n),
                      Value::boolean(r.unique), Value::boolean(r.primary), Value::boolean(true),
                      Value::text(indkey)});
  }
  return v;
}

ViewRows pg_type() {
  ViewRows v;
  v.columns = {"oid", "typname", "typnamespace", "typlen", "typbyval", "typtype", "typalign"};
  v.types = {ValueType::kInt8, ValueType::kText, ValueType::kInt8, ValueType::kInt4,
             ValueType::kBool, ValueType::kText, ValueType::kText};
  for (TypeId id :
       {TypeId::kBool, TypeId::kInt8, TypeId::kInt2, TypeId::kInt4, TypeId::kText, TypeId::kFloat4,
        TypeId::kFloat8, TypeId::kBpchar, TypeId::kVarchar, TypeId::kDate, TypeId::kTimestamp,
        TypeId::kTimestamptz, TypeId::kInterval, TypeId::kNumeric}) {
    const TypeInfo& t = type_info(id);
    const char* align = t.align == 8 ? "d" : t.align == 4 ? "i" : t.align == 2 ? "s" : "c";
    v.rows.push_back({oid(int64_t(id)), Value::text(std::string(t.pg_name)), oid(kPgCatalogOid),
                      Value::int4(t.len), Value::boolean(t.byval), Value::text("b"),
                      Value::text(align)});
  }
  return v;
}

// A setting's value as pg_settings.setting shows it: a number in the setting's unit,
// on / off, or the text.
std::string setting_text(const Settings& s, const SettingDef& d) {
  switch (d.type) {
    case SettingType::kBool:
      return s.get_bool(d.name) ? "on" : "off";
    case SettingType::kInt:
      return std::to_string(s.get_int(d.name));
    case SettingType::kReal: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", s.get_real(d.name));
      return buf;
    }
    case SettingType::kEnum:
    case SettingType::kText:
      return s.get_enum(d.name);
  }
  return "";
}

ViewRows pg_settings(const Settings& settings) {
  ViewRows v;
  v.columns = {"name",    "setting", "unit",    "category", "short_desc", "context",
               "vartype", "min_val", "max_val", "enumvals", "boot_val",   "reset_val"};
  v.types.assign(v.columns.size(), ValueType::kText);
  const Settings defaults;
  for (const SettingDef& d : Settings::definitions()) {
    const char* unit = d.unit == SettingUnit::kKb       ? "kB"
                       : d.unit == SettingUnit::kBlocks ? "8kB"
                       : d.unit == SettingUnit::kMs     ? "ms"
                                                        : nullptr;
    const char* vartype = d.type == SettingType::kBool   ? "bool"
                          : d.type == SettingType::kInt  ? "integer"
                          : d.type == SettingType::kReal ? "real"
                          : d.type == SettingType::kEnum ? "enum"
                                                         : "string";
    const bool numeric = d.type == SettingType::kInt || d.type == SettingType::kReal;
    auto bound = [&](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, d.type == SettingType::kInt ? "%.0f" : "%g", x);
      return Value::text(buf);
    };
    std::string choices;
    for (const std::string& c : d.choices) choices += (choices.empty() ? "" : ",") + c;
    const std::string boot = setting_text(defaults, d);
    v.rows.push_back(
        {Value::text(d.name), Value::text(setting_text(settings, d)),
         unit ? Value::text(unit) : Value{}, Value::text(d.group), Value::text(d.description),
         Value::text(d.scope == SettingScope::kDatabase ? "superuser" : "user"),
         Value::text(vartype), numeric ? bound(d.min) : Value{}, numeric ? bound(d.max) : Value{},
         d.type == SettingType::kEnum ? Value::text("{" + choices + "}") : Value{},
         Value::text(boot), Value::text(boot)});
  }
  return v;
}

}  // namespace

bool is_catalog_view(std::string_view name) {
  return name == "pg_namespace" || name == "pg_database" || name == "pg_class" ||
         name == "pg_attribute" || name == "pg_index" || name == "pg_type" || name == "pg_settings";
}

ViewRows read_catalog_view(std::string_view name, const Catalog& catalog, const Settings& settings,
                           const std::string& database) {
  if (name == "pg_namespace") return pg_namespace();
  if (name == "pg_database") return pg_database(database);
  if (name == "pg_class") return pg_class(catalog);
  if (name == "pg_attribute") return pg_attribute(catalog);
  if (name == "pg_index") return pg_index(catalog);
  if (name == "pg_type") return pg_type();
  if (name == "pg_settings") return pg_settings(settings);
  throw Error("relation \"" + std::string(name) + "\" is not a catalog view")
      .with_sqlstate(sqlstate::kInternalError);
}

}  // namespace tp
