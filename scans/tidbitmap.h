// TID bitmap: the set of heap tuples a bitmap index scan found, handed to the
// bitmap heap scan in ascending block order. scans/README.md is the design
// document (exact vs lossy pages, memory accounting, iteration).
//
//   TidBitmap bm(4 << 20);                 // work_mem 4 MB -> 65,536 entries
//   bm.add_tid({block, offset});            // from the index, any order
//   bm.intersect_with(other);               // BitmapAnd  (union_with: BitmapOr)
//   TidBitmapIterator it = bm.begin_iterate();   // freezes the bitmap
//   TbmPage page;
//   while (it.next(&page)) {
//     if (page.lossy) { /* read every tuple on page.block, recheck quals */ }
//     else            { /* read page.offsets; recheck quals if page.recheck */ }
//   }
//   // it.exact_pages_returned(), it.lossy_pages_returned() -> "Heap Blocks: exact=N lossy=M"
//
// Storage (all CRoaring): exact TIDs as 32-bit keys inside per-segment bitmaps
// (exact_tids_ below), plus page-level bitmaps of exact pages, lossy
// pages and exact pages needing a recheck. An "entry" is what PostgreSQL keeps
// in its hash table: one per exact page plus one per lossy chunk of 256 pages.
#pragma once

#include <cstdint>
#include <map>
#include <span>

#include <roaring/roaring.hh>

#include "engine/core/page.h"
#include "scans/tidbitmap_budget.h"

namespace tp {

// One page of the bitmap as the heap scan consumes it.
struct TbmPage {
  BlockNumber block = kInvalidBlock;
  bool lossy = false;                     // only the page is known: read every tuple and recheck
  bool recheck = false;                   // quals must be rechecked (always true when lossy)
  std::span<const OffsetNumber> offsets;  // exact pages: ascending, valid until next()
};

class TidBitmapIterator;

class TidBitmap {
 public:
  // Lifecycle: built (adds, unions, intersections), then iterated. A bitmap
  // that is being iterated no longer changes, so iterators can read it.
  enum class State : uint8_t {
    kBuilding,   // initial; add_*/union_with/intersect_with allowed
    kIterating,  // after begin_iterate(); read-only until destroyed
  };
  static const char* state_name(State s);

  // Contract: `budget_bytes` is the memory budget (work_mem in bytes); the
  // bitmap keeps at most tbm_max_entries(budget_bytes) entries by making pages
  // lossy, unless even a fully lossy bitmap exceeds it (then the budget is
  // raised, as PostgreSQL does, and over_budget() reports it).
  explicit TidBitmap(int64_t budget_bytes);
  TidBitmap(const TidBitmap&) = delete;
  TidBitmap& operator=(const TidBitmap&) = delete;
  // Not movable either: iterators and the segment cache point into it.

  // Adds one tuple. Contract: state kBuilding; 1 <= offset <= 291 (asserted).
  // A tuple on a lossy page is already covered and changes nothing.
  void add_tid(Tid tid);
  void add_tids(std::span<const Tid> tids);

  // Adds a whole page as lossy (PostgreSQL's tbm_add_page). State kBuilding.
  void add_lossy_page(BlockNumber block);

  // BitmapOr: this |= other. Exact|exact merges offsets; anything|lossy is lossy.
  void union_with(const TidBitmap& other);

  // BitmapAnd: this &= other, with PostgreSQL's rules for mixed pages:
  //   exact & exact -> offsets intersected (page dropped when none remain)
  //   exact & lossy -> this page's offsets kept, marked recheck
  //   lossy & exact -> stays lossy;  lossy & lossy -> lossy;  & absent -> dropped
  void intersect_with(const TidBitmap& other);

  bool empty() const { return exact_page_count_ == 0 && lossy_pages_.isEmpty(); }
  // Entries as PostgreSQL counts them: exact pages + lossy chunks.
  int64_t entries() const { return exact_page_count_ + lossy_chunk_count_; }
  int64_t max_entries() const { return max_entries_; }
  bool over_budget() const { return max_entries_ > initial_max_entries_; }
  int64_t exact_page_count() const { return exact_page_count_; }
  int64_t lossy_chunk_count() const { return lossy_chunk_count_; }
  int64_t lossy_page_count() const { return static_cast<int64_t>(lossy_pages_.cardinality()); }
  int64_t exact_tuple_count() const;
  bool page_is_lossy(BlockNumber block) const { return lossy_pages_.contains(block); }
  bool page_is_exact(BlockNumber block) const { return exact_pages_.contains(block); }
  bool contains(Tid tid) const;  // exactly present (lossy pages excluded)
  State state() const { return state_; }

  // Freezes the bitmap (state kIterating) and returns an iterator over its
  // pages in ascending block order. May be called more than once.
  TidBitmapIterator begin_iterate();

 private:
  friend class TidBitmapIterator;

  // Exact TIDs keyed (block << 9 | offset) as 64-bit numbers, split into 32-bit
  // Roaring bitmaps by the high bits (a segment covers 2^23 blocks, 64 GB).
  static constexpr uint32_t kOffsetBits = 9;
  static constexpr uint32_t kSegmentShift = 32 - kOffsetBits;
  static uint32_t segment_of(BlockNumber b) { return b >> kSegmentShift; }
  static uint32_t low_key(BlockNumber b, uint32_t off) {
    return ((b & ((1u << kSegmentShift) - 1)) << kOffsetBits) | off;
  }

  void set_state(State next);
  void require_building(const char* op) const;
  // Reads the exact offsets of `block` into `out` (ascending); returns the count.
  uint32_t read_offsets(BlockNumber block, OffsetNumber* out) const;
  void add_exact(BlockNumber block, const OffsetNumber* offs, uint32_t n, bool recheck);
  void remove_exact_page(BlockNumber block);
  // tbm_mark_page_lossy: moves `block` to its chunk; a chunk's first page can
  // never stay exact once the chunk exists.
  void mark_page_lossy(BlockNumber block);
  bool chunk_has_lossy(BlockNumber chunk_start) const;
  Roaring& segment(uint32_t seg);  // creates it if missing
  void lossify_if_needed();
  void lossify();
  void recount_chunks();

  State state_ = State::kBuilding;
  int64_t max_entries_;
  int64_t initial_max_entries_;
  int64_t exact_page_count_ = 0;
  int64_t lossy_chunk_count_ = 0;
  BlockNumber lossify_start_ = 0;           // next lossify pass starts here, wraps around
  std::map<uint32_t, Roaring> exact_tids_;  // segment -> low keys
  Roaring* last_segment_ = nullptr;         // cache for segment()
  uint32_t last_segment_id_ = 0;
  Roaring exact_pages_;
  Roaring recheck_pages_;  // subset of exact_pages_
  Roaring lossy_pages_;
  Roaring all_pages_;  // exact | lossy, built by begin_iterate()
};

// Walks a frozen TidBitmap. The bitmap must outlive the iterator.
class TidBitmapIterator {
 public:
  // Contract: fills `out` with the next page in ascending block order and
  // returns true, or returns false when every page was returned. out->offsets
  // points into this iterator and stays valid until the next call.
  bool next(TbmPage* out);
  int64_t exact_pages_returned() const { return exact_returned_; }
  int64_t lossy_pages_returned() const { return lossy_returned_; }

 private:
  friend class TidBitmap;
  explicit TidBitmapIterator(const TidBitmap* bitmap);

  const TidBitmap* bitmap_;
  roaring_uint32_iterator_t pos_;  // over bitmap_->all_pages_
  int64_t exact_returned_ = 0;
  int64_t lossy_returned_ = 0;
  OffsetNumber offsets_[kMaxHeapTuplesPerPage];
};

}  // namespace tp
