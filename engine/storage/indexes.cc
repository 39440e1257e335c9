#include "engine/storage/indexes.h"

#include <unistd.h>

#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/interrupts.h"
#include "engine/sql/lexer.h"
#include "scans/heap_scan.h"

namespace tp {

namespace {

std::function<void(CancelPoint)>& cancel_point_observer() {
  static std::function<void(CancelPoint)> observer;
  return observer;
}

// The builder's interrupt callback: its sort and load phases poll here.
void check_build_cancel(btree::BuildProgress::Phase phase) {
  check_cancel_at(phase == btree::BuildProgress::Phase::Sorting ? CancelPoint::IndexSort
                                                                : CancelPoint::IndexLoad);
}

}  // namespace

void check_cancel_at(CancelPoint point) {
  if (cancel_point_observer()) cancel_point_observer()(point);
  check_for_interrupts();
}

void set_cancel_point_observer(std::function<void(CancelPoint)> observer) {
  cancel_point_observer() = std::move(observer);
}

btree::IndexDef index_def(const RelationEntry& table, const RelationEntry& index) {
  btree::IndexDef def;
  def.name = index.name;
  def.unique = index.unique;
  for (int c : index.key_columns) {
    const Column& col = table.columns[size_t(c)];
    def.columns.push_back(
        {col.name, col.type == ColumnType::Int4 ? btree::KeyType::Int4 : btree::KeyType::Int8});
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
  HeapTupleLayout layout(table.columns);
  scans::HeapScan scan(storage.pool(), storage.file(table), BlockNumber(table.pages), stream);
  btree::KeyValues key;
  scan.for_each_page([&](BlockNumber block, const char* page) {
    check_cancel_at(CancelPoint::IndexScan);
    OffsetNumber max = page_max_offset(page);
    for (OffsetNumber o = 1; o <= max; ++o) {
      if (page_item_id(page, o)->state != uint32_t(ItemState::Normal)) continue;
      const char* tuple = page_item(page, o);
      key.n = 0;
      for (int c : key_columns) key.push(layout.get(tuple, size_t(c)));
      fn(key, Tid{block, o});
    }
  });
}

void print_build_progress(const std::string& name, const btree::BuildProgress& p) {
  if (p.phase == btree::BuildProgress::Phase::Done) {
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

struct IndexMaintainer::Target {
  RelationEntry* entry;  // in next_
  btree::IndexDef def;
  uint32_t old_relnumber = 0;
  // Bulk path (the index was empty).
  std::unique_ptr<PoolPageStore> store;
  std::unique_ptr<btree::BTreeBuilder> builder;
  // Retail path.
  std::unique_ptr<btree::BTree> tree;
  uint64_t added = 0;
};

IndexMaintainer::IndexMaintainer(Storage& storage, DataDir& dir, Catalog& next,
                                 const RelationEntry& table)
    : storage_(storage), dir_(dir), next_(next) {
  for (auto& r : next_.relations) {
    if (r.kind != RelKind::Index || r.table_oid != table.oid) continue;
    auto t = std::make_unique<Target>();
    t->entry = &r;
    t->def = index_def(table, r);
    if (r.rows == 0) {
      // Empty: build a fresh file at the end.
      t->old_relnumber = r.relnumber;
      r.relnumber = next_.allocate_oid();
      aio::IoFile& file = storage_.create_file(r);
      t->store = std::make_unique<PoolPageStore>(storage_.pool(), file, nullptr, 0);
      t->builder = std::make_unique<btree::BTreeBuilder>(*t->store, t->def);
    } else {
      aio::IoFile& file = storage_.file(r);
      t->store =
          std::make_unique<PoolPageStore>(storage_.pool(), file, &dir_, BlockNumber(r.pages));
      t->tree = std::make_unique<btree::BTree>(btree::BTree::open(*t->store, t->def));
    }
    targets_.push_back(std::move(t));
  }
  if (!targets_.empty()) dir_.sync_base_directory();
}

IndexMaintainer::~IndexMaintainer() = default;

void IndexMaintainer::add(const int64_t* values, Tid tid) {
  for (auto& t : targets_) {
    btree::KeyValues key;
    for (int c : t->entry->key_columns) key.push(values[c]);
    if (t->builder)
      t->builder->add(key, tid);
    else
      t->tree->insert(key, tid);
    ++t->added;
  }
}

std::vector<uint32_t> IndexMaintainer::finish() {
  std::vector<uint32_t> garbage;
  for (auto& t : targets_) {
    if (t->builder) {
      try {
        t->builder->finish({}, check_build_cancel);
      } catch (const Error& e) {
        // Seen from INSERT, a duplicate is a unique violation, as PostgreSQL reports it.
        std::string detail = e.detail();
        size_t at = detail.rfind(" is duplicated.");
        if (at == std::string::npos) throw;
        throw Error("duplicate key value violates unique constraint \"" + t->def.name + "\"",
                    detail.substr(0, at) + " already exists.");
      }
      garbage.push_back(t->old_relnumber);
    }
    aio::IoFile& file = storage_.file(*t->entry);
    storage_.pool().flush_relation(file);
    t->entry->pages = file.size_blocks();
    t->entry->rows += t->added;
  }
  return garbage;
}

const char* heap_tuple_at(const char* page, OffsetNumber off, uint32_t tuple_size) {
  const PageHeader* h = page_header(page);
  // The line pointer array must itself lie inside the page header's bounds.
  if (off == 0 || h->lower < kPageHeaderSize || h->lower > kBlockSize ||
      off > page_max_offset(page))
    return nullptr;
  const ItemId* id = page_item_id(page, off);
  if (id->state != uint32_t(ItemState::Normal)) return nullptr;
  if (id->len < tuple_size || uint32_t(id->off) < h->lower ||
      uint32_t(id->off) + id->len > kBlockSize)
    return nullptr;
  return page + id->off;
}

btree::VerifyReport verify_index(Storage& storage, const RelationEntry& table,
                                 const RelationEntry& index) {
  aio::IoFile& file = storage.file(index);
  PoolPageStore store(storage.pool(), file, nullptr, 0);
  HeapTupleLayout layout(table.columns);
  aio::IoFile& heap = storage.file(table);
  btree::HeapFetch fetch = [&](Tid tid) -> std::optional<btree::KeyValues> {
    if (tid.block >= table.pages || tid.offset == 0) return std::nullopt;
    bufmgr::ReadGuard page = storage.pool().read_buffer(heap, tid.block).lock_shared();
    const char* tuple = heap_tuple_at(page.page(), tid.offset, layout.tuple_size());
    if (!tuple) return std::nullopt;
    btree::KeyValues key;
    for (int c : index.key_columns) key.push(layout.get(tuple, size_t(c)));
    return key;
  };
  return btree::verify_btree(store, index_def(table, index), fetch);
}

int index_height(Storage& storage, const RelationEntry& table, const RelationEntry& index) {
  PoolPageStore store(storage.pool(), storage.file(index), nullptr, 0);
  btree::BTree tree = btree::BTree::open(store, index_def(table, index));
  btree::MetaInfo meta = tree.meta();
  return meta.root == kInvalidBlock ? 0 : int(meta.level);
}

}  // namespace tp
