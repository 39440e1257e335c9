#include "engine/storage/index_verify.h"

#include <optional>

#include "engine/core/heap_tuple.h"
#include "engine/core/tuple_format.h"
#include "engine/storage/index_build.h"
#include "engine/storage/pool_page_store.h"

namespace tp {

const char* heap_tuple_at(const char* page, OffsetNumber off, uint32_t tuple_size) {
  const PageHeader* h = page_header(page);
  // The line pointer array must itself lie inside the page header's bounds.
  if (off == 0 || h->lower < kPageHeaderSize || h->lower > kBlockSize ||
      off > page_max_offset(page))
    return nullptr;
  const ItemId* id = page_item_id(page, off);
  if (id->state != uint32_t(ItemState::kNormal)) return nullptr;
  if (id->len < tuple_size || uint32_t(id->off) < h->lower ||
      uint32_t(id->off) + id->len > kBlockSize)
    return nullptr;
  return page + id->off;
}

btree::VerifyReport verify_index(Storage& storage, const RelationEntry& table,
                                 const RelationEntry& index) {
  aio::IoFile& file = storage.file(index);
  PoolPageStore store(storage.pool(), file, nullptr, 0);
  HeapRowReader row(table.columns);
  aio::IoFile& heap = storage.file(table);
  // The page of the last row fetched: the key's by-reference values point into it
  // until the verifier asks for the next row.
  bufmgr::ReadGuard page;
  btree::HeapFetch fetch = [&](Tid tid) -> std::optional<btree::KeyValues> {
    if (tid.block >= table.pages || tid.offset == 0) return std::nullopt;
    page = bufmgr::ReadGuard();
    page = storage.pool().read_buffer(heap, tid.block).lock_shared();
    const char* tuple = heap_tuple_at(page.page(), tid.offset, kHeapTupleDataOffset);
    if (!tuple) return std::nullopt;
    btree::KeyValues key;
    try {
      row.load(tuple, page_item_id(page.page(), tid.offset)->len);
      for (int c : index.key_columns) {
        const std::optional<Datum> v = row.datum(size_t(c));
        if (v)
          key.push(*v);
        else
          key.push_null();
      }
    } catch (const Error&) {
      return std::nullopt;  // a damaged heap tuple: the verifier reports the entry
    }
    return key;
  };
  return btree::verify_btree(store, index_def(table, index), fetch);
}

}  // namespace tp
