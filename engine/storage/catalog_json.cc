// The catalog as JSON (format version 2), with nlohmann-json: strings round-trip
// byte for byte, and a syntax error comes back with its line and column.
//
//   {
//    "format": "tidepool-catalog",
//    "format_version": 2,
//    "version": 12,
//    "next_oid": 16390,
//    "relations": [
//     {"oid": 16384, "name": "t", "kind": "table", "relnumber": 16384,
//      "fillfactor": 10, "pages": 45455, "rows": 1000000,
//      "columns": [{"name": "a", "type": "int4"},           (pg_type names)
//                  {"name": "f", "type": "bpchar", "typmod": 88, "not_null": true}, ...],
//                  "stats": "...",
//      "parallel_workers": 8,                         (optional: only when set)
//      "relallvisible": 45455},                       (optional: only when not 0)
//     {"oid": 16385, "name": "t_a_idx", "kind": "index", "relnumber": 16385,
//      "fillfactor": 100, "pages": 2745, "rows": 1000000,
//      "table_oid": 16384, "key_columns": [0], "unique": false, "primary": false,
//      "deduplicate_items": false}                      (optional: only when set)
//    ]
//   }
//
// Reading is strict: every key must be known and of its type, integers must fit
// their field, a key may not appear twice in one object.
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "engine/storage/catalog_format.h"

namespace tp::catalog_format {
namespace {

using Json = nlohmann::ordered_json;

const char* kFormatName = "tidepool-catalog";

// The keys of one JSON object, read one by one; finish() rejects any key that
// was not read (a misspelt or unknown field is damage, not something to skip).
class Fields {
 public:
  Fields(const Json& j, std::string where, const std::string& origin)
      : j_(j), where_(std::move(where)), origin_(origin) {
    if (!j.is_object()) throw fail("is not a JSON object");
  }

  const Json* optional(const char* key) {
    auto it = j_.find(key);
    if (it == j_.end()) return nullptr;
    read_.insert(key);
    return &*it;
  }
  const Json& required(const char* key) {
    const Json* v = optional(key);
    if (!v) throw fail(std::string("has no \"") + key + "\"");
    return *v;
  }
  uint64_t unsigned_int(const char* key, uint64_t min, uint64_t max) {
    const Json& v = required(key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() < min || v.get<uint64_t>() > max)
      throw fail(std::string("\"") + key + "\" is " + v.dump() + ", not an integer from " +
                 std::to_string(min) + " to " + std::to_string(max));
    return v.get<uint64_t>();
  }
  std::string string(const char* key) {
    const Json& v = required(key);
    if (!v.is_string()) throw fail(std::string("\"") + key + "\" is not a string");
    return v.get<std::string>();
  }
  bool boolean(const char* key) {
    const Json& v = required(key);
    if (!v.is_boolean()) throw fail(std::string("\"") + key + "\" is not true or false");
    return v.get<bool>();
  }
  const Json& array(const char* key) {
    const Json& v = required(key);
    if (!v.is_array()) throw fail(std::string("\"") + key + "\" is not an array");
    return v;
  }
  void finish() {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!read_.count(it.key()))
        throw fail("has an unknown field \"" + printable(it.key()) + "\"");
  }
  Error fail(const std::string& why) const { return damaged(origin_, where_ + " " + why); }

 private:
  const Json& j_;
  std::string where_;
  const std::string& origin_;
  std::set<std::string> read_;
};

constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();

Column read_column(const Json& j, const std::string& where, const std::string& origin) {
  Fields f(j, where, origin);
  Column c;
  c.name = f.string("name");
  std::string type = f.string("type");
  std::optional<TypeId> id = type_of_pg_name(type);
  if (!id) throw f.fail("has an unknown column type \"" + printable(type) + "\"");
  c.type = *id;
  if (f.optional("typmod")) {
    if (!type_takes_typmod(c.type))
      throw f.fail("has a type modifier for type \"" + printable(type) + "\", which takes none");
    c.typmod = int32_t(f.unsigned_int("typmod", 0, uint64_t(std::numeric_limits<int32_t>::max())));
  }
  if (f.optional("not_null")) c.not_null = f.boolean("not_null");
  f.finish();
  return c;
}

RelationEntry read_relation(const Json& j, size_t index, const std::string& origin) {
  const std::string where = "relation " + std::to_string(index + 1);
  Fields f(j, where, origin);
  RelationEntry r;
  r.oid = uint32_t(f.unsigned_int("oid", 1, kU32));
  r.name = f.string("name");
  std::string kind = f.string("kind");
  if (kind != "table" && kind != "index")
    throw f.fail("has an unknown kind \"" + printable(kind) + "\"");
  r.kind = kind == "table" ? RelKind::kTable : RelKind::kIndex;
  r.relnumber = uint32_t(f.unsigned_int("relnumber", 1, kU32));
  r.fillfactor = int(f.unsigned_int("fillfactor", 10, 100));
  r.pages = f.unsigned_int("pages", 0, kU32);
  r.rows = f.unsigned_int("rows", 0, kU64);
  if (r.is_table()) {
    const Json& cols = f.array("columns");
    for (size_t i = 0; i < cols.size(); ++i)
      r.columns.push_back(read_column(cols[i], where + " column " + std::to_string(i + 1), origin));
    if (f.optional("stats")) r.stats = f.string("stats");
    // Absent in catalogs written before the option existed: unset.
    if (f.optional("parallel_workers"))
      r.parallel_workers = int(f.unsigned_int("parallel_workers", 0, 1024));
    // Absent in catalogs written before the visibility map existed, and when 0.
    if (f.optional("relallvisible")) r.all_visible = f.unsigned_int("relallvisible", 0, kU32);
  } else {
    r.table_oid = uint32_t(f.unsigned_int("table_oid", 1, kU32));
    for (const Json& k : f.array("key_columns")) {
      if (!k.is_number_unsigned() || k.get<uint64_t>() > uint64_t(std::numeric_limits<int>::max()))
        throw f.fail("has a key column " + k.dump() + " that is not a column position");
      r.key_columns.push_back(int(k.get<uint64_t>()));
    }
    r.unique = f.boolean("unique");
    r.primary = f.boolean("primary");
    // Absent when the option was not given (and in catalogs written before it existed).
    if (f.optional("deduplicate_items")) r.deduplicate_items = f.boolean("deduplicate_items");
  }
  f.finish();
  return r;
}

// nlohmann keeps the last of two equal keys in an object; a catalog with one is
// damaged, so the parse callback records every object's keys.
class DuplicateKeyCheck {
 public:
  bool operator()(int depth, nlohmann::json::parse_event_t event, Json& parsed) {
    using E = nlohmann::json::parse_event_t;
    size_t d = size_t(depth);
    if (event == E::object_start) {
      if (keys_.size() <= d) keys_.resize(d + 1);
      keys_[d].clear();
    } else if (event == E::key && d > 0 && d <= keys_.size()) {
      if (!keys_[d - 1].insert(parsed.get<std::string>()).second)
        duplicate_ = parsed.get<std::string>();
    }
    return true;
  }
  const std::string& duplicate() const { return duplicate_; }

 private:
  std::vector<std::set<std::string>> keys_;
  std::string duplicate_;
};

}  // namespace

std::string to_json(const Catalog& cat) {
  auto check_name = [](const std::string& name, const std::string& what) {
    if (std::string why = utf8_problem(name); !why.empty())
      throw Error("cannot write the catalog: " + what + " \"" + printable(name) +
                  "\" is not valid UTF-8 (" + why + ")")
          .with_sqlstate(sqlstate::kCharacterNotInRepertoire);
  };
  Json root;
  root["format"] = kFormatName;
  root["format_version"] = kCatalogFormatVersion;
  root["version"] = cat.version;
  root["next_oid"] = cat.next_oid;
  Json rels = Json::array();
  for (const RelationEntry& r : cat.relations) {
    check_name(r.name, "relation name");
    Json j;
    j["oid"] = r.oid;
    j["name"] = r.name;
    j["kind"] = r.is_table() ? "table" : "index";
    j["relnumber"] = r.relnumber;
    j["fillfactor"] = r.fillfactor;
    j["pages"] = r.pages;
    j["rows"] = r.rows;
    if (r.is_table()) {
      Json cols = Json::array();
      for (const Column& c : r.columns) {
        check_name(c.name, "column name");
        Json col = {{"name", c.name}, {"type", std::string(type_info(c.type).pg_name)}};
        if (c.typmod != kNoTypmod) col["typmod"] = c.typmod;
        if (c.not_null) col["not_null"] = true;
        cols.push_back(std::move(col));
      }
      j["columns"] = std::move(cols);
      if (!r.stats.empty()) j["stats"] = r.stats;
      if (r.parallel_workers >= 0) j["parallel_workers"] = r.parallel_workers;
      if (r.all_visible > 0) j["relallvisible"] = r.all_visible;
    } else {
      j["table_oid"] = r.table_oid;
      j["key_columns"] = r.key_columns;
      j["unique"] = r.unique;
      j["primary"] = r.primary;
      if (r.deduplicate_items) j["deduplicate_items"] = *r.deduplicate_items;
    }
    rels.push_back(std::move(j));
  }
  root["relations"] = std::move(rels);
  try {
    return root.dump(1) + "\n";
  } catch (const nlohmann::json::exception& e) {
    // Only invalid UTF-8 can fail here (in the statistics text, say).
    throw Error(std::string("cannot write the catalog: ") + e.what())
        .with_sqlstate(sqlstate::kCharacterNotInRepertoire);
  }
}

Catalog from_json(const std::string& text, const std::string& origin) {
  Json root;
  DuplicateKeyCheck dup;
  try {
    root = Json::parse(text, std::ref(dup));
  } catch (const nlohmann::json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
    // a number too large for a double (1e400) is an out_of_range error, not a parse_error.
    std::string what = e.what();
    size_t start = what.find("] ");
    throw damaged(origin, start == std::string::npos ? what : what.substr(start + 2));
  }
  if (!dup.duplicate().empty())
    throw damaged(origin,
                  "the key \"" + printable(dup.duplicate()) + "\" appears twice in one object");
  Fields f(root, "the top-level value", origin);
  if (f.string("format") != kFormatName)
    throw f.fail("does not say \"format\": \"tidepool-catalog\"");
  uint64_t version = f.unsigned_int("format_version", 0, kU32);
  if (version != uint64_t(kCatalogFormatVersion))
    throw damaged(origin, "format_version " + std::to_string(version) +
                              " is not one this tidepool reads (" +
                              std::to_string(kCatalogFormatVersion) + ")");
  Catalog cat;
  cat.version = f.unsigned_int("version", 0, kU64);
  cat.next_oid = uint32_t(f.unsigned_int("next_oid", 1, kU32));
  const Json& rels = f.array("relations");
  for (size_t i = 0; i < rels.size(); ++i)
    cat.relations.push_back(read_relation(rels[i], i, origin));
  f.finish();
  return cat;
}

}  // namespace tp::catalog_format
