#include "engine/btree/btree_dedup.h"

#include <algorithm>
#include <array>

namespace tp::btree {

namespace {

// PostgreSQL's BTREE_SINGLEVAL_FILLFACTOR: how full the single value strategy
// leaves the left half of the split that follows the pass.
constexpr int kSingleValueFillfactor = 96;
// A list of more than this many TIDs that cannot grow counts as "full" for the
// single value strategy (PostgreSQL's arbitrary 50).
constexpr int kFullListMinTids = 50;

// The run of equal keys the pass is collecting (nbtdedup.c's BTDedupState).
class DedupPass {
 public:
  DedupPass(const TupleLayout& layout, char* out) : layout_(layout), out_(out) {}

  void start(TupleView item) {
    base_ = item;
    count_ = 0;
    append(item);
    items_ = 1;
  }

  // Adds `item` (a leaf item with the base's key) to the run unless the list
  // would outgrow the current limit.
  bool absorb(TupleView item) {
    if (!deduplicate_ || compare_keys(layout_, base_, item) != 0) return false;
    const int n = item.heap_tid_count();
    if (posting_size(base_.key_size(layout_), count_ + n) > max_posting_) {
      if (count_ > kFullListMinTids) ++full_lists_;
      return false;
    }
    append(item);
    ++items_;
    return true;
  }

  // Writes the run to the output page: the base unchanged, or a new list.
  void finish() {
    if (items_ == 1) {
      add(base_.p, base_.size());
      return;
    }
    alignas(8) char tuple[kMaxPostingSize];
    uint16_t size = make_posting(layout_, base_.key(layout_), tids_.data(), count_, tuple);
    add(tuple, size);
    ++lists_formed_;
  }

  // The single value strategy, after each run: once five full lists exist, the
  // sixth is cut short so that the page keeps what a 96% left half leaves
  // free; after the sixth nothing more is merged.
  void after_run(uint32_t new_item_size) {
    if (full_lists_ == 5) {
      uint32_t left_free = kBlockSize - kPageHeaderSize - sizeof(BtSpecial);
      left_free -= new_item_size + 8;
      const auto reduction = uint32_t(double(left_free) * ((100 - kSingleValueFillfactor) / 100.0));
      max_posting_ = max_posting_ > reduction ? max_posting_ - reduction : 0;
    } else if (full_lists_ == 6) {
      deduplicate_ = false;
    }
  }

  int lists_formed() const { return lists_formed_; }

 private:
  void append(TupleView item) {
    const int n = item.heap_tid_count();
    TP_ASSERT(count_ + n <= int(tids_.size()));
    if (!item.is_posting()) {
      tids_[size_t(count_++)] = item.tid();
      return;
    }
    for (int i = 0; i < n; ++i) tids_[size_t(count_++)] = item.posting_tid(i);
  }

  void add(const char* tuple, uint16_t size) {
    bool ok = page_add_item(out_, tuple, size) != 0;
    TP_ASSERT(ok);
  }

  const TupleLayout& layout_;
  char* out_;
  uint32_t max_posting_ = kMaxPostingSize;
  bool deduplicate_ = true;
  int full_lists_ = 0;  // PostgreSQL's nmaxitems
  int lists_formed_ = 0;
  TupleView base_{nullptr};
  int items_ = 0;
  int count_ = 0;
  // A list never exceeds kMaxPostingSize, so this many TIDs always suffice.
  std::array<Tid, kMaxPostingSize / kHeapTidSize> tids_{};
};

bool same_key(const TupleLayout& layout, const KeyValues& key, TupleView item) {
  return keys_equal(layout, item.key(layout), key);
}

}  // namespace

bool dedup_leaf_page(const TupleLayout& layout, const char* page, const KeyValues& new_key,
                     uint32_t new_item_size, char* out) {
  const OffsetNumber first = bt_first_data(page);
  const OffsetNumber max = page_max_offset(page);
  if (max <= first) return false;
  const BtSpecial* special = bt_special(page);
  bt_page_init(out, special->level, special->flags);
  *bt_special(out) = *special;
  if (!bt_rightmost(page)) {
    TupleView high = tuple_at(page, kHighKeyOffset);
    bool ok = page_add_item(out, high.p, high.size()) == kHighKeyOffset;
    TP_ASSERT(ok);
  }
  bool single_value = same_key(layout, new_key, tuple_at(page, first)) &&
                      same_key(layout, new_key, tuple_at(page, max));
  DedupPass pass(layout, out);
  pass.start(tuple_at(page, first));
  for (OffsetNumber off = OffsetNumber(first + 1); off <= max; ++off) {
    TupleView item = tuple_at(page, off);
    if (pass.absorb(item)) continue;
    pass.finish();
    if (single_value) pass.after_run(new_item_size);
    pass.start(item);
  }
  pass.finish();
  return pass.lists_formed() > 0;
}

bool posting_contains(TupleView posting, Tid tid) {
  int lo = 0, hi = posting.posting_count();
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    Tid t = posting.posting_tid(mid);
    if (t == tid) return true;
    if (t < tid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

uint16_t swap_posting(const TupleLayout& layout, TupleView posting, Tid tid, char* replacement,
                      char* new_item) {
  const int n = posting.posting_count();
  TP_ASSERT(posting.heap_tid() < tid && tid < posting.max_heap_tid());
  std::array<Tid, kMaxPostingSize / kHeapTidSize> tids{};
  int at = 0;
  while (posting.posting_tid(at) < tid) ++at;
  for (int i = 0; i < at; ++i) tids[size_t(i)] = posting.posting_tid(i);
  tids[size_t(at)] = tid;
  for (int i = at; i + 1 < n; ++i) tids[size_t(i + 1)] = posting.posting_tid(i);
  const KeyValues key = posting.key(layout);
  uint16_t size = make_posting(layout, key, tids.data(), n, replacement);
  TP_ASSERT(size == posting.size());
  return make_leaf_tuple(layout, key, posting.max_heap_tid(), new_item);
}

uint16_t posting_without(const TupleLayout& layout, TupleView posting, Tid tid, char* out) {
  const int n = posting.posting_count();
  std::array<Tid, kMaxPostingSize / kHeapTidSize> tids{};
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (posting.posting_tid(i) != tid) tids[size_t(kept++)] = posting.posting_tid(i);
  TP_ASSERT(kept == n - 1);
  const KeyValues key = posting.key(layout);
  if (kept == 1) return make_leaf_tuple(layout, key, tids[0], out);
  return make_posting(layout, key, tids.data(), kept, out);
}

}  // namespace tp::btree
