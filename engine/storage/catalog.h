// The catalog: every relation (table or index) with its columns, storage
// file, size and statistics. It lives in one JSON file in the data directory
// (format in engine/storage/README.md "Catalog"), replaced atomically (write
// catalog.new, fsync, rename, fsync the directory), so a crash leaves either
// the old or the new catalog, never a mix.
//
// `version` increases with every committed statement; the statement journal
// records the version it started from, which is how recovery tells a
// committed statement from an interrupted one (engine/storage/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/heap_tuple.h"

namespace tp {

enum class RelKind : char { kTable = 'r', kIndex = 'i' };

struct RelationEntry {
  uint32_t oid = 0;
  std::string name;
  RelKind kind = RelKind::kTable;
  uint32_t relnumber = 0;  // names the file base/<relnumber>
  std::vector<Column> columns;
  int fillfactor = 100;
  // Tables: the parallel_workers storage option (ALTER TABLE ... SET), the
  // workers a parallel scan of the table plans for; -1 = unset (the planner
  // decides from the table's size).
  int parallel_workers = -1;
  uint64_t pages = 0;  // committed size of the file in 8 kB blocks
  uint64_t rows = 0;   // exact live row count (tables) or index entries (indexes)
  // Tables: PostgreSQL's pg_class.relallvisible, the pages the visibility map
  // marked all-visible when VACUUM, ANALYZE or CREATE INDEX last counted them
  // (stale after an INSERT, as PostgreSQL's). Absent in older catalogs: 0.
  uint64_t all_visible = 0;
  // Indexes only.
  uint32_t table_oid = 0;
  std::vector<int> key_columns;  // positions in the table's columns
  bool unique = false;
  bool primary = false;
  // The deduplicate_items storage option as given in CREATE INDEX ... WITH;
  // unset means on (PostgreSQL's default). Whether an index's file really
  // deduplicates is its metapage's flag (never for a unique index).
  std::optional<bool> deduplicate_items;
  // ANALYZE results, in the text form engine/stats defines; empty = never analyzed.
  std::string stats;

  bool is_table() const { return kind == RelKind::kTable; }
};

// Format version written in the catalog's "format_version". Version 1 is the
// earlier line-oriented text file ("tidepool-catalog 1"), still read so that
// existing data directories open; it is rewritten as JSON at the next commit.
inline constexpr int kCatalogFormatVersion = 2;

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

  // The catalog as JSON. Throws tp::Error (and writes nothing) when a name is
  // not valid UTF-8: a catalog that cannot be read back is never produced.
  std::string serialize() const;
  // Reads either format (JSON, or the version-1 text) and validates every
  // field: types, ranges, references, uniqueness. Throws tp::Error
  // `catalog file "<origin>" is damaged: ...` naming the problem (and the
  // line and column of a JSON syntax error); never crashes on any input.
  static Catalog parse(const std::string& text, const std::string& origin);
};

}  // namespace tp
