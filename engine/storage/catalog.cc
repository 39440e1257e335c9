#include "engine/storage/catalog.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "engine/btree/btree_page.h"
#include "engine/core/error.h"
#include "engine/storage/catalog_format.h"
#include "engine/storage/table_stats.h"

namespace tp {

RelationEntry* Catalog::find(std::string_view name) {
  for (auto& r : relations)
    if (r.name == name) return &r;
  return nullptr;
}
const RelationEntry* Catalog::find(std::string_view name) const {
  return const_cast<Catalog*>(this)->find(name);
}
RelationEntry* Catalog::find_oid(uint32_t oid) {
  for (auto& r : relations)
    if (r.oid == oid) return &r;
  return nullptr;
}
const RelationEntry* Catalog::find_oid(uint32_t oid) const {
  return const_cast<Catalog*>(this)->find_oid(oid);
}

std::vector<const RelationEntry*> Catalog::indexes_of(uint32_t table_oid) const {
  std::vector<const RelationEntry*> out;
  for (auto& r : relations)
    if (r.kind == RelKind::kIndex && r.table_oid == table_oid) out.push_back(&r);
  return out;
}

void Catalog::remove(uint32_t oid) {
  relations.erase(std::remove_if(relations.begin(), relations.end(),
                                 [&](const RelationEntry& r) { return r.oid == oid; }),
                  relations.end());
}

std::string Catalog::serialize() const {
  return catalog_format::to_json(*this);
}

Catalog Catalog::parse(const std::string& text, const std::string& origin) {
  Catalog cat = catalog_format::is_text_v1(text) ? catalog_format::from_text_v1(text, origin)
                                                 : catalog_format::from_json(text, origin);
  catalog_format::validate(cat, origin);
  return cat;
}

namespace catalog_format {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not a valid one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = byte(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 > 0x8F))
    return 0;
  return len;
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  return buf;
}

std::string relation_label(size_t index, const RelationEntry& r) {
  return "relation " + std::to_string(index + 1) + " (\"" + printable(r.name) + "\")";
}

void validate_name(const std::string& name, const std::string& what, const std::string& origin) {
  if (name.empty()) throw damaged(origin, what + " is empty");
  if (name.find('\0') != std::string::npos)
    throw damaged(origin, what + " \"" + printable(name) + "\" contains a zero byte");
  // UTF-8 is not required here: JSON strings are UTF-8 by the parser's own
  // check, and a version-1 catalog may hold any bytes an older lexer took (it
  // opens; a commit fails naming such a name until that relation is dropped).
}

void validate_relation(const Catalog& cat, size_t index, const std::string& origin) {
  const RelationEntry& r = cat.relations[index];
  const std::string label = relation_label(index, r);
  auto bad = [&](const std::string& why) { return damaged(origin, label + ": " + why); };
  validate_name(r.name, "the name of relation " + std::to_string(index + 1), origin);
  if (r.oid == 0) throw bad("oid 0 is not a valid oid");
  if (r.relnumber == 0) throw bad("relnumber 0 is not a valid file number");
  if (r.oid >= cat.next_oid || r.relnumber >= cat.next_oid)
    throw bad("oid " + std::to_string(r.oid) + " / relnumber " + std::to_string(r.relnumber) +
              " not below next_oid " + std::to_string(cat.next_oid));
  if (r.fillfactor < 10 || r.fillfactor > 100)
    throw bad("fillfactor " + std::to_string(r.fillfactor) + " is outside 10..100");
  if (r.parallel_workers < -1 || r.parallel_workers > 1024 ||
      (!r.is_table() && r.parallel_workers != -1))
    throw bad("parallel_workers " + std::to_string(r.parallel_workers) +
              " is outside 0..1024 or set on an index");
  if (r.all_visible > uint64_t(kInvalidBlock) || (!r.is_table() && r.all_visible != 0))
    throw bad("relallvisible " + std::to_string(r.all_visible) +
              " exceeds the largest file or is set on an index");
  if (r.pages > uint64_t(kInvalidBlock))
    throw bad("pages " + std::to_string(r.pages) + " exceeds the largest file (" +
              std::to_string(kInvalidBlock) + " blocks)");
  if (r.is_table()) {
    if (r.columns.empty()) throw bad("a table has no columns");
    std::set<std::string> seen;
    for (const Column& c : r.columns) {
      validate_name(c.name, label + ": a column name", origin);
      if (!seen.insert(c.name).second)
        throw bad("column \"" + printable(c.name) + "\" appears twice");
    }
    if (r.table_oid != 0 || !r.key_columns.empty() || r.unique || r.primary)
      throw bad("a table carries index fields");
    if (!r.stats.empty()) {
      try {
        (void)stats_from_catalog(r.stats);
      } catch (const Error& e) {
        throw bad(std::string("statistics: ") + e.what());
      }
    }
    return;
  }
  if (!r.columns.empty()) throw bad("an index lists columns of its own");
  if (!r.stats.empty()) throw bad("an index carries statistics");
  const RelationEntry* table = cat.find_oid(r.table_oid);
  if (!table || !table->is_table())
    throw bad("table_oid " + std::to_string(r.table_oid) + " is not a table of this catalog");
  if (r.key_columns.empty() || r.key_columns.size() > size_t(btree::kMaxKeyColumns))
    throw bad(std::to_string(r.key_columns.size()) + " key columns (an index has 1 to " +
              std::to_string(btree::kMaxKeyColumns) + ")");
  for (int k : r.key_columns)
    if (k < 0 || size_t(k) >= table->columns.size())
      throw bad("key column " + std::to_string(k) + " is out of range (table \"" +
                printable(table->name) + "\" has " + std::to_string(table->columns.size()) +
                " columns)");
  if (r.primary && !r.unique) throw bad("a primary key index that is not unique");
}

}  // namespace

Error damaged(const std::string& origin, const std::string& why) {
  return Error("catalog file \"" + origin + "\" is damaged: " + why, "",
               "The data directory cannot be opened until the catalog is repaired or restored "
               "from a backup.")
      .with_sqlstate(sqlstate::kDataCorrupted);
}

std::string utf8_problem(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len = utf8_sequence_length(s, i);
    if (len == 0)
      return "invalid byte " + hex_byte(static_cast<unsigned char>(s[i])) + " at byte " +
             std::to_string(i + 1);
    i += len;
  }
  return "";
}

std::string printable(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = utf8_sequence_length(s, i);
    if (len == 0 || c < 0x20 || c == 0x7F) {
      out += hex_byte(c);
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

void validate(const Catalog& cat, const std::string& origin) {
  std::unordered_map<std::string, size_t> names;
  std::unordered_map<uint32_t, size_t> oids, relnumbers;
  auto duplicate = [&](size_t i, size_t first, const std::string& what) {
    return damaged(origin, relation_label(i, cat.relations[i]) + " has the same " + what + " as " +
                               relation_label(first, cat.relations[first]));
  };
  for (size_t i = 0; i < cat.relations.size(); ++i) {
    const RelationEntry& r = cat.relations[i];
    if (auto [it, fresh] = names.emplace(r.name, i); !fresh) throw duplicate(i, it->second, "name");
    if (auto [it, fresh] = oids.emplace(r.oid, i); !fresh) throw duplicate(i, it->second, "oid");
    if (auto [it, fresh] = relnumbers.emplace(r.relnumber, i); !fresh)
      throw duplicate(i, it->second, "relnumber");
  }
  for (size_t i = 0; i < cat.relations.size(); ++i) validate_relation(cat, i, origin);
}

}  // namespace catalog_format
}  // namespace tp
