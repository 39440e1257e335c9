// libFuzzer target `page`: corrupted 8 kB pages. A valid two-level B-tree
// (metapage, root, leaves) and a heap page of its rows are built once; each
// input is a list of patches applied to copies of them:
//   byte 0           flags (bit 0: recompute the checksums after patching)
//   then records     [page index][offset: 2 bytes LE][length][bytes...]
//                    page index modulo (B-tree pages + 1); the last is the heap page
// Then: the checksum check (page_verify) on every page, the heap page's line
// pointers and tuples decoded through heap_tuple_at, and the B-tree verifier run
// over the damaged index with a heap cross-check. The verifier must report
// damage, never crash or throw; the reader must never leave the page.
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "engine/btree/btree_build.h"
#include "engine/btree/btree_verify.h"
#include "engine/btree/mem_page_store.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"
#include "engine/storage/index_build.h"
#include "engine/storage/index_verify.h"

namespace {

using namespace tp;

constexpr int kEntries = 2000;  // six leaf pages under a root
constexpr int kRowsPerBlock = 150;

// The indexed value of the row at entry i; block 0's rows are on the heap page.
int64_t key_of(int i) {
  return (int64_t(i) * 37) % 1500;
}
Tid tid_of(int i) {
  return Tid{BlockNumber(i / kRowsPerBlock), OffsetNumber(i % kRowsPerBlock + 1)};
}

const std::vector<Column>& heap_columns() {
  static const std::vector<Column> columns{{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}};
  return columns;
}

btree::IndexDef index_definition() {
  return btree::IndexDef{"fuzz_idx", {{"a", btree::KeyType::kInt4}}, false};
}

// The pristine pages: the index's blocks, then the heap page.
const std::vector<std::vector<char>>& pristine() {
  static const std::vector<std::vector<char>> pages = [] {
    std::vector<std::vector<char>> out;
    std::vector<std::pair<btree::KeyValues, Tid>> entries;
    HeapTupleLayout layout(heap_columns());
    std::vector<char> heap(kBlockSize);
    page_init(heap.data(), 0);
    alignas(8) char tuple[64];
    for (int i = 0; i < kEntries; ++i) {
      if (tid_of(i).block == 0) {
        int64_t values[2] = {key_of(i), i};
        layout.form(values, tid_of(i), tuple);
        if (page_add_item(heap.data(), tuple, layout.tuple_size()) != tid_of(i).offset)
          __builtin_trap();
      }
      btree::KeyValues key;
      key.push(key_of(i));
      entries.push_back({key, tid_of(i)});
    }
    btree::MemPageStore store("fuzz_idx");
    btree::build_index(store, index_definition(), entries);
    for (BlockNumber b = 0; b < store.nblocks(); ++b) {
      std::vector<char> page(store.raw_page(b), store.raw_page(b) + kBlockSize);
      page_set_checksum(page.data(), b);
      out.push_back(std::move(page));
    }
    page_set_checksum(heap.data(), 0);
    out.push_back(std::move(heap));
    return out;
  }();
  return pages;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::vector<char>> pages = pristine();
  const size_t index_pages = pages.size() - 1;
  std::vector<char>& heap = pages.back();
  const bool fix_checksums = size > 0 && (data[0] & 1);
  size_t at = 1;
  while (at + 4 <= size) {
    size_t page = data[at] % pages.size();
    size_t offset = (size_t(data[at + 1]) | (size_t(data[at + 2]) << 8)) % kBlockSize;
    size_t len = data[at + 3];
    at += 4;
    len = std::min({len, size - at, kBlockSize - offset});
    std::memcpy(pages[page].data() + offset, data + at, len);
    at += len;
  }
  // The raw input as one page, as a read from a damaged file would hand it over.
  std::vector<char> raw(kBlockSize, 0);
  std::memcpy(raw.data(), data, std::min<size_t>(size, kBlockSize));
  page_verify(raw.data(), 0);
  page_is_new(raw.data());

  for (size_t b = 0; b < pages.size(); ++b) {
    BlockNumber block = b < index_pages ? BlockNumber(b) : 0;
    if (fix_checksums && !page_is_new(pages[b].data())) page_set_checksum(pages[b].data(), block);
    page_verify(pages[b].data(), block);
  }

  HeapTupleLayout layout(heap_columns());
  volatile uint64_t sum = 0;  // keeps the decoded values alive (wraps freely)
  for (uint32_t off = 0; off <= kMaxHeapTuplesPerPage + 1; ++off)
    if (const char* tuple = heap_tuple_at(heap.data(), OffsetNumber(off), layout.tuple_size()))
      sum = sum + uint64_t(layout.get(tuple, 0)) + uint64_t(layout.get(tuple, 1));

  btree::MemPageStore store("fuzz_idx");
  for (size_t b = 0; b < index_pages; ++b) {
    btree::PageGuard g = store.extend();
    g.mark_dirty();
    std::memcpy(g.data_for_write(), pages[b].data(), kBlockSize);
  }
  btree::HeapFetch fetch = [&](Tid tid) -> std::optional<btree::KeyValues> {
    btree::KeyValues key;
    if (tid.block != 0) {  // rows of other blocks come from the model
      int64_t i = int64_t(tid.block) * kRowsPerBlock + tid.offset - 1;
      if (tid.offset == 0 || tid.offset > kRowsPerBlock || i >= kEntries) return std::nullopt;
      key.push(key_of(int(i)));
      return key;
    }
    const char* tuple = heap_tuple_at(heap.data(), tid.offset, layout.tuple_size());
    if (!tuple) return std::nullopt;
    key.push(layout.get(tuple, 0));
    return key;
  };
  btree::VerifyReport report = btree::verify_btree(store, index_definition(), fetch);
  if (size == 0 && !report.ok) __builtin_trap();  // the pristine index must verify
  return 0;
}
