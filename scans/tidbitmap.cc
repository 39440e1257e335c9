#include "scans/tidbitmap.h"

#include <algorithm>
#include <vector>

#include "engine/core/error.h"

namespace tp {

const char* TidBitmap::state_name(State s) {
  switch (s) {
    case State::kBuilding:
      return "building";
    case State::kIterating:
      return "iterating";
  }
  return "?";
}

void TidBitmap::set_state(State next) {
  // The only legal move is building -> iterating (and iterating -> iterating
  // for a second iterator); nothing returns a frozen bitmap to building.
  TP_ASSERT(next == State::kIterating);
  state_ = next;
}

void TidBitmap::require_building(const char* op) const {
  if (state_ != State::kBuilding) {
    std::fprintf(stderr, "tidbitmap: %s on a bitmap that is %s\n", op, state_name(state_));
    TP_ASSERT(state_ == State::kBuilding);
  }
}

TidBitmap::TidBitmap(int64_t budget_bytes)
    : max_entries_(tbm_max_entries(static_cast<double>(budget_bytes))),
      initial_max_entries_(max_entries_) {}

int64_t TidBitmap::exact_tuple_count() const {
  uint64_t n = 0;
  for (const auto& [segment, keys] : exact_tids_) n += keys.cardinality();
  return static_cast<int64_t>(n);
}

bool TidBitmap::contains(Tid tid) const {
  auto it = exact_tids_.find(segment_of(tid.block));
  return it != exact_tids_.end() && it->second.contains(low_key(tid.block, tid.offset));
}

uint32_t TidBitmap::read_offsets(BlockNumber block, OffsetNumber* out) const {
  auto seg = exact_tids_.find(segment_of(block));
  if (seg == exact_tids_.end()) return 0;
  const uint32_t first = low_key(block, 0);
  const uint64_t limit = uint64_t{first} + (1u << kOffsetBits);  // 2^32 for the last block
  roaring_uint32_iterator_t it;
  roaring_init_iterator(&seg->second.roaring, &it);
  roaring_move_uint32_iterator_equalorlarger(&it, first);
  uint32_t n = 0;
  while (it.has_value && it.current_value < limit) {
    TP_ASSERT(n < kMaxHeapTuplesPerPage);
    out[n++] = static_cast<OffsetNumber>(it.current_value - first);
    roaring_advance_uint32_iterator(&it);
  }
  return n;
}

Roaring& TidBitmap::segment(uint32_t seg) {
  // Almost every bitmap has one segment: remember it (map nodes never move).
  if (last_segment_ == nullptr || last_segment_id_ != seg) {
    last_segment_ = &exact_tids_[seg];
    last_segment_id_ = seg;
  }
  return *last_segment_;
}

bool TidBitmap::chunk_has_lossy(BlockNumber chunk_start) const {
  return roaring_bitmap_range_cardinality(&lossy_pages_.roaring, chunk_start,
                                          uint64_t{chunk_start} + kTbmPagesPerChunk) > 0;
}

void TidBitmap::add_exact(BlockNumber block, const OffsetNumber* offs, uint32_t n, bool recheck) {
  if (lossy_chunk_count_ > 0 && lossy_pages_.contains(block)) return;  // already covered
  if (block % kTbmPagesPerChunk == 0 && lossy_chunk_count_ > 0 && chunk_has_lossy(block)) {
    // The first page of a chunk shares the chunk's slot, so it cannot be exact
    // while the chunk exists: it joins the chunk instead.
    mark_page_lossy(block);
    lossify_if_needed();
    return;
  }
  if (exact_pages_.addChecked(block)) ++exact_page_count_;
  Roaring& keys = segment(segment_of(block));
  for (uint32_t i = 0; i < n; ++i) keys.add(low_key(block, offs[i]));
  if (recheck) recheck_pages_.add(block);
  lossify_if_needed();
}

void TidBitmap::add_tid(Tid tid) {
  require_building("add_tid");
  TP_ASSERT(tid.block != kInvalidBlock);
  TP_ASSERT(tid.offset >= 1 && tid.offset <= kMaxHeapTuplesPerPage);
  add_exact(tid.block, &tid.offset, 1, false);
}

void TidBitmap::add_tids(std::span<const Tid> tids) {
  for (const Tid& t : tids) add_tid(t);
}

void TidBitmap::add_lossy_page(BlockNumber block) {
  require_building("add_lossy_page");
  TP_ASSERT(block != kInvalidBlock);
  mark_page_lossy(block);
  lossify_if_needed();
}

void TidBitmap::remove_exact_page(BlockNumber block) {
  if (!exact_pages_.removeChecked(block)) return;
  --exact_page_count_;
  recheck_pages_.remove(block);
  auto seg = exact_tids_.find(segment_of(block));
  TP_ASSERT(seg != exact_tids_.end());
  const uint32_t first = low_key(block, 0);
  roaring_bitmap_remove_range(&seg->second.roaring, first, uint64_t{first} + (1u << kOffsetBits));
}

void TidBitmap::mark_page_lossy(BlockNumber block) {
  const BlockNumber chunk_start = block - block % kTbmPagesPerChunk;
  if (block != chunk_start) remove_exact_page(block);
  if (lossy_pages_.contains(block)) return;
  if (!chunk_has_lossy(chunk_start)) {
    ++lossy_chunk_count_;
    if (exact_pages_.contains(chunk_start)) {
      // The chunk takes the slot of its first page, which had tuples: that page
      // becomes lossy too (PostgreSQL converts the entry in place).
      remove_exact_page(chunk_start);
      lossy_pages_.add(chunk_start);
    }
  }
  if (block == chunk_start) remove_exact_page(block);
  lossy_pages_.add(block);
}

void TidBitmap::lossify_if_needed() {
  if (entries() > max_entries_) lossify();
}

// PostgreSQL's tbm_lossify walks its hash table from where the previous pass
// stopped and turns exact pages lossy until the entries are down to half the
// budget. tidepool walks exact pages in ascending block order from where the
// previous pass stopped, wrapping around, which is deterministic and fills
// whole chunks (one entry for up to 256 pages) before moving on.
void TidBitmap::lossify() {
  const int64_t target = max_entries_ / 2;
  std::vector<BlockNumber> candidates;
  candidates.reserve(static_cast<size_t>(exact_page_count_));
  roaring_uint32_iterator_t it;
  roaring_init_iterator(&exact_pages_.roaring, &it);
  roaring_move_uint32_iterator_equalorlarger(&it, lossify_start_);
  for (; it.has_value; roaring_advance_uint32_iterator(&it)) candidates.push_back(it.current_value);
  for (roaring_init_iterator(&exact_pages_.roaring, &it);
       it.has_value && it.current_value < lossify_start_; roaring_advance_uint32_iterator(&it)) {
    candidates.push_back(it.current_value);
  }
  for (BlockNumber block : candidates) {
    // Converting a chunk's first page saves nothing; it goes lossy only when a
    // neighbour creates its chunk.
    if (block % kTbmPagesPerChunk == 0) continue;
    if (!exact_pages_.contains(block)) continue;  // absorbed as a chunk's first page
    mark_page_lossy(block);
    if (entries() <= target) {
      lossify_start_ = block + 1;
      return;
    }
  }
  // Even fully lossy the bitmap does not fit: admit it and raise the budget so
  // we do not lossify again at every insertion.
  if (entries() > target) {
    max_entries_ = std::min<int64_t>(entries(), (INT_MAX - 1) / 2) * 2;
  }
}

void TidBitmap::recount_chunks() {
  int64_t chunks = 0;
  int64_t last_chunk = -1;
  for (RoaringSetBitForwardIterator it(lossy_pages_); it.i.has_value; ++it) {
    const int64_t chunk = *it / kTbmPagesPerChunk;
    if (chunk != last_chunk) {
      ++chunks;
      last_chunk = chunk;
    }
  }
  lossy_chunk_count_ = chunks;
}

void TidBitmap::union_with(const TidBitmap& other) {
  require_building("union_with");
  TP_ASSERT(&other != this);
  // Lossy pages of the other side first, page by page, exactly as the chunk
  // walk of tbm_union_page does; the budget is checked after each of them.
  for (RoaringSetBitForwardIterator it(other.lossy_pages_); it.i.has_value; ++it) {
    mark_page_lossy(*it);
    lossify_if_needed();
  }
  OffsetNumber offs[kMaxHeapTuplesPerPage];
  for (RoaringSetBitForwardIterator it(other.exact_pages_); it.i.has_value; ++it) {
    const BlockNumber block = *it;
    const uint32_t n = other.read_offsets(block, offs);
    add_exact(block, offs, n, other.recheck_pages_.contains(block));
  }
}

void TidBitmap::intersect_with(const TidBitmap& other) {
  require_building("intersect_with");
  TP_ASSERT(&other != this);
  // Lossy pages survive where the other side has the page in any form.
  Roaring other_any = other.lossy_pages_ | other.exact_pages_;
  lossy_pages_ &= other_any;

  std::vector<BlockNumber> exact_blocks;
  exact_blocks.reserve(static_cast<size_t>(exact_page_count_));
  for (RoaringSetBitForwardIterator it(exact_pages_); it.i.has_value; ++it) {
    exact_blocks.push_back(*it);
  }
  OffsetNumber mine[kMaxHeapTuplesPerPage];
  OffsetNumber theirs[kMaxHeapTuplesPerPage];
  OffsetNumber both[kMaxHeapTuplesPerPage];
  for (BlockNumber block : exact_blocks) {
    if (other.lossy_pages_.contains(block)) {
      recheck_pages_.add(block);  // at most our tuples match; the executor rechecks
      continue;
    }
    if (!other.exact_pages_.contains(block)) {
      remove_exact_page(block);
      continue;
    }
    const uint32_t n_mine = read_offsets(block, mine);
    const uint32_t n_theirs = other.read_offsets(block, theirs);
    const auto end = std::set_intersection(mine, mine + n_mine, theirs, theirs + n_theirs, both);
    const uint32_t n_both = static_cast<uint32_t>(end - both);
    const bool recheck = recheck_pages_.contains(block) || other.recheck_pages_.contains(block);
    remove_exact_page(block);
    if (n_both > 0) {
      if (exact_pages_.addChecked(block)) ++exact_page_count_;
      Roaring& keys = segment(segment_of(block));
      for (uint32_t i = 0; i < n_both; ++i) keys.add(low_key(block, both[i]));
      if (recheck) recheck_pages_.add(block);
    }
  }
  recount_chunks();
}

TidBitmapIterator TidBitmap::begin_iterate() {
  set_state(State::kIterating);
  all_pages_ = exact_pages_ | lossy_pages_;
  return TidBitmapIterator(this);
}

TidBitmapIterator::TidBitmapIterator(const TidBitmap* bitmap) : bitmap_(bitmap) {
  roaring_init_iterator(&bitmap_->all_pages_.roaring, &pos_);
}

bool TidBitmapIterator::next(TbmPage* out) {
  if (!pos_.has_value) return false;
  const BlockNumber block = pos_.current_value;
  roaring_advance_uint32_iterator(&pos_);
  out->block = block;
  if (bitmap_->lossy_pages_.contains(block)) {
    out->lossy = true;
    out->recheck = true;
    out->offsets = {};
    ++lossy_returned_;
    return true;
  }
  const uint32_t n = bitmap_->read_offsets(block, offsets_);
  TP_ASSERT(n > 0);
  out->lossy = false;
  out->recheck = bitmap_->recheck_pages_.contains(block);
  out->offsets = std::span<const OffsetNumber>(offsets_, n);
  ++exact_returned_;
  return true;
}

}  // namespace tp
