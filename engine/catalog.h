// The catalog: every relation (table or index) with its columns, storage
// file, size and statistics. It lives in one text file in the data directory,
// replaced atomically (write catalog.new, fsync, rename, fsync the directory),
// so a crash leaves either the old or the new catalog, never a mix.
//
// `version` increases with every committed statement; the statement journal
// records the version it started from, which is how recovery tells a
// committed statement from an interrupted one (engine/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/heap_tuple.h"

namespace tp {

enum class RelKind : char { Table = 'r', Index = 'i' };

struct RelationEntry {
  uint32_t oid = 0;
  std::string name;
  RelKind kind = RelKind::Table;
  uint32_t relnumber = 0;  // names the file base/<relnumber>
  std::vector<Column> columns;
  int fillfactor = 100;
  uint64_t pages = 0;  // committed size of the file in 8 kB blocks
  uint64_t rows = 0;   // exact live row count (tables) or index entries (indexes)
  // Indexes only.
  uint32_t table_oid = 0;
  std::vector<int> key_columns;  // positions in the table's columns
  bool unique = false;
  bool primary = false;
  // ANALYZE results, in the text form engine/stats defines; empty = never analyzed.
  std::string stats;

  bool is_table() const { return kind == RelKind::Table; }
};

struct Catalog {
  uint64_t version = 0;
  uint32_t next_oid = 16384;  // PostgreSQL's FirstNormalObjectId
  std::vector<RelationEntry> relations;

  RelationEntry* find(std::string_view name);
  const RelationEntry* find(std::string_view name) const;
  RelationEntry* find_oid(uint32_t oid);
  const RelationEntry* find_oid(uint32_t oid) const;
  // Indexes of a table, in creation order.
  std::vector<const RelationEntry*> indexes_of(uint32_t table_oid) const;
  uint32_t allocate_oid() { return next_oid++; }
  void remove(uint32_t oid);

  std::string serialize() const;
  // Throws tp::Error naming `origin` and the line when the text is damaged.
  static Catalog parse(const std::string& text, const std::string& origin);
};

}  // namespace tp
