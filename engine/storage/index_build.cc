#include "engine/storage/index_build.h"

#include "engine/core/tuple_format.h"

#include <cstdio>

#include "engine/core/heap_tuple.h"
#include "engine/sql/lexer.h"
#include "engine/storage/cancel_points.h"
#include "engine/storage/pool_page_store.h"
#include "scans/heap_scan.h"

namespace tp {

btree::IndexDef index_def(const RelationEntry& table, const RelationEntry& index) {
  btree::IndexDef def;
  def.name = index.name;
  def.unique = index.unique;
  def.deduplicate = index.deduplicate_items.value_or(true);
  def.table = table.name;
  for (int c : index.key_columns) {
    const Column& col = table.columns[size_t(c)];
    def.columns.push_back({col.name, btree::key_type_of(col.type)});
  }
  return def;
}

namespace {

// PostgreSQL's makeObjectName: name1_name2_label in at most 63 bytes, cutting
// the longer of the two names first (never the label), so a generated name can
// be typed back (identifiers are truncated to 63 bytes).
std::string object_name(const std::string& name1, const std::string& name2,
                        const std::string& label) {
  size_t overhead = (name2.empty() ? 0 : 1) + label.size() + 1;
  size_t avail = sql::kMaxIdentifierBytes - overhead;
  size_t n1 = name1.size(), n2 = name2.size();
  while (n1 + n2 > avail) (n1 > n2 ? n1 : n2)--;
  std::string name = sql::clip_utf8(name1, n1);
  if (!name2.empty()) name += "_" + sql::clip_utf8(name2, n2);
  return name + "_" + label;
}

}  // namespace

std::string choose_index_name(const Catalog& catalog, const RelationEntry& table,
                              const std::vector<int>& columns, bool primary) {
  std::string columns_part;
  if (!primary)
    for (int c : columns)
      columns_part += (columns_part.empty() ? "" : "_") + table.columns[size_t(c)].name;
  const std::string label = primary ? "pkey" : "idx";
  std::string name = object_name(table.name, columns_part, label);
  for (int n = 1; catalog.find(name); ++n)
    name = object_name(table.name, columns_part, label + std::to_string(n));
  return name;
}

namespace {

// Reads the key columns of every live row of `table`, in physical order.
void scan_keys(Storage& storage, const RelationEntry& table, const std::vector<int>& key_columns,
               const bufmgr::ReadStreamConfig& stream,
               const std::function<void(const btree::KeyValues&, Tid)>& fn) {
  HeapRowReader row(table.columns);
  scans::HeapScan scan(storage.pool(), storage.file(table), BlockNumber(table.pages), stream);
  btree::KeyValues key;
  scan.for_each_page([&](BlockNumber block, const char* page) {
    check_cancel_at(CancelPoint::kIndexScan);
    OffsetNumber max = page_max_offset(page);
    for (OffsetNumber o = 1; o <= max; ++o) {
      const ItemId* id = page_item_id(page, o);
      if (id->state != uint32_t(ItemState::kNormal)) continue;
      row.load(page + id->off, id->len);
      key = btree::KeyValues();
      for (int c : key_columns) {
        // By-reference values point into the pinned page; the builder copies them.
        const std::optional<Datum> v = row.datum(size_t(c));
        if (v)
          key.push(*v);
        else
          key.push_null();
      }
      fn(key, Tid{block, o});
    }
  });
}

void print_build_progress(const std::string& name, const btree::BuildProgress& p) {
  if (p.phase == btree::BuildProgress::Phase::kDone) {
    std::fprintf(stderr, "\r\033[K");
    return;
  }
  std::fprintf(stderr, "\r\033[KCREATE INDEX %s: %s %llu / %llu tuples, %u pages", name.c_str(),
               btree::build_phase_name(p.phase), (unsigned long long)p.tuples_done,
               (unsigned long long)p.tuples_total, p.pages_written);
}

}  // namespace

btree::BuildStats build_index(Storage& storage, const RelationEntry& table,
                              const RelationEntry& index, const bufmgr::ReadStreamConfig& stream,
                              bool progress) {
  aio::IoFile& file = storage.file(index);
  PoolPageStore store(storage.pool(), file, nullptr, 0);
  btree::BTreeBuilder builder(store, index_def(table, index));
  builder.reserve(size_t(table.rows));
  scan_keys(storage, table, index.key_columns, stream,
            [&](const btree::KeyValues& key, Tid tid) { builder.add(key, tid); });
  bool show = progress && table.rows >= 1000000;
  btree::BuildStats stats = builder.finish(
      [&](const btree::BuildProgress& p) {
        if (show) print_build_progress(index.name, p);
      },
      check_build_cancel);
  // Durable before any commit can name it: TRUNCATE commits right after building
  // its empty indexes, and a crash then left a catalog pointing at a metapage
  // still in the pool (the reopen found block 0 damaged).
  storage.pool().flush_relation(file);
  return stats;
}

int index_height(Storage& storage, const RelationEntry& index) {
  PoolPageStore store(storage.pool(), storage.file(index), nullptr, 0);
  const btree::MetaInfo meta = btree::BTree::read_meta(store, index.name);
  return meta.root == kInvalidBlock ? 0 : int(meta.level);
}

}  // namespace tp
