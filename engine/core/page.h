// PostgreSQL-shaped 8 kB pages: the layout every relation file uses.
//
//  0        24                 pd_lower          pd_upper       pd_special   8192
//  +--------+------------------+-----------------+---------------+------------+
//  | header | line pointers -> |   free space    | <- tuples     |  special   |
//  +--------+------------------+-----------------+---------------+------------+
//
// Line pointers (4 bytes) grow up from the header, tuples (8-byte aligned) grow
// down from pd_special. Offsets within a page are 1-based (OffsetNumber), as in
// PostgreSQL. engine/core/README.md draws the layout in more detail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/core/block.h"

namespace tp {

inline constexpr uint32_t kPageHeaderSize = 24;
inline constexpr uint32_t kItemIdSize = 4;
inline constexpr uint32_t kMaxAlign = 8;
// Most heap tuples a page holds: (8192 - 24) / (24 + 4) (defined once here for
// the heap and the TID bitmap).
inline constexpr uint32_t kMaxHeapTuplesPerPage = 291;

constexpr uint32_t maxalign(uint32_t len) {
  return (len + kMaxAlign - 1) & ~(kMaxAlign - 1);
}

struct PageHeader {
  uint64_t lsn;       // unused by tidepool (no WAL), kept for layout
  uint16_t checksum;  // set on write, verified on read from disk
  uint16_t flags;
  uint16_t lower;         // end of the line pointer array
  uint16_t upper;         // start of tuple space
  uint16_t special;       // start of special space (kBlockSize when none)
  uint16_t size_version;  // page size | layout version
  uint32_t prune_xid;
};
static_assert(sizeof(PageHeader) == kPageHeaderSize);

enum class ItemState : uint32_t { kUnused = 0, kNormal = 1, kRedirect = 2, kDead = 3 };

// 15-bit offset, 2-bit state, 15-bit length: PostgreSQL's ItemIdData.
struct ItemId {
  uint32_t off : 15;
  uint32_t state : 2;
  uint32_t len : 15;
};
static_assert(sizeof(ItemId) == kItemIdSize);

inline constexpr uint16_t kPageLayoutVersion = 4;

inline PageHeader* page_header(char* page) {
  return reinterpret_cast<PageHeader*>(page);
}
inline const PageHeader* page_header(const char* page) {
  return reinterpret_cast<const PageHeader*>(page);
}

// Formats an empty page with `special_size` bytes (maxaligned) of special space.
void page_init(char* page, uint32_t special_size);

// True for a page that was never initialised (all zero): valid, holds nothing.
bool page_is_new(const char* page);

// Number of line pointers on the page (the highest OffsetNumber in use).
inline OffsetNumber page_max_offset(const char* page) {
  const PageHeader* h = page_header(page);
  return h->lower <= kPageHeaderSize ? 0 : (h->lower - kPageHeaderSize) / kItemIdSize;
}

// Free space as an inserter sees it: room for one more line pointer is reserved.
inline uint32_t page_free_space(const char* page) {
  const PageHeader* h = page_header(page);
  int space = int(h->upper) - int(h->lower) - int(kItemIdSize);
  return space < 0 ? 0 : uint32_t(space);
}

inline ItemId* page_item_id(char* page, OffsetNumber off) {
  return reinterpret_cast<ItemId*>(page + kPageHeaderSize) + (off - 1);
}
inline const ItemId* page_item_id(const char* page, OffsetNumber off) {
  return reinterpret_cast<const ItemId*>(page + kPageHeaderSize) + (off - 1);
}
inline char* page_item(char* page, OffsetNumber off) {
  return page + page_item_id(page, off)->off;
}
inline const char* page_item(const char* page, OffsetNumber off) {
  return page + page_item_id(page, off)->off;
}
inline char* page_special(char* page) {
  return page + page_header(page)->special;
}
inline const char* page_special(const char* page) {
  return page + page_header(page)->special;
}

// Appends an item (copied, placed maxaligned below pd_upper) with a new line
// pointer at the end of the array. Returns its OffsetNumber, or 0 if it does
// not fit. Does not apply fillfactor: callers decide whether the page may take it.
OffsetNumber page_add_item(char* page, const void* item, uint32_t len);

// Inserts an item at `off` (1..max+1), shifting later line pointers up by one.
// Returns false if it does not fit. Used by the B-tree to keep items sorted.
bool page_insert_item_at(char* page, OffsetNumber off, const void* item, uint32_t len);

// Checksums: 16 bits, never 0 for a written page, mixing in the block number so
// a page written at the wrong place is caught too.
uint16_t page_compute_checksum(const char* page, BlockNumber block);
void page_set_checksum(char* page, BlockNumber block);
// True if the page is new (all zero) or its checksum and header are sane.
bool page_verify(const char* page, BlockNumber block);

}  // namespace tp
