#include "engine/btree/btree.h"

#include <atomic>
#include <cmath>
#include <limits>

#include "engine/btree/btree_dedup.h"

namespace tp::btree {

namespace {

constexpr uint32_t kUsablePageBytes = kBlockSize - kPageHeaderSize - sizeof(BtSpecial);
// PostgreSQL's fillfactors: the left half of a rightmost split is left this full.
constexpr double kLeafSplitFill = 0.90;
constexpr double kInternalSplitFill = 0.70;

// The items of a page being split, in key order, with the new one at `new_index`:
// `n` of them, without the page's high key.
struct SplitItems {
  const char* page;
  OffsetNumber first;
  int new_index;
  const char* tuple;
  int n;

  TupleView operator()(int i) const {
    if (i < new_index) return tuple_at(page, OffsetNumber(first + i));
    if (i == new_index) return TupleView{tuple};
    return tuple_at(page, OffsetNumber(first + i - 1));
  }
};

// Chooses the split point: items [0, k) stay left, [k, n) move right. By default both
// halves end with equal free space; when the new item goes to the end of the rightmost
// page (ascending inserts) the left half is left fillfactor-full so sequential loads pack
// pages densely. Returns k.
int choose_split_point(const TupleLayout& layout, const SplitItems& item, bool leaf,
                       bool rightmost) {
  const int n = item.n;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) total += item_cost(item(i).size());
  const int64_t old_high_key =
      rightmost ? 0 : item_cost(tuple_at(item.page, kHighKeyOffset).size());
  const bool packed = rightmost && item.new_index == n - 1;
  const double fill = leaf ? kLeafSplitFill : kInternalSplitFill;
  int best_k = -1;
  double best_delta = std::numeric_limits<double>::infinity();
  int64_t left_items = 0;
  for (int k = 1; k < n; ++k) {
    left_items += item_cost(item(k - 1).size());
    uint16_t high_key = leaf ? separator_size(layout, item(k - 1), item(k)) : item(k).size();
    int64_t left_used = left_items + item_cost(high_key);
    int64_t right_used = old_high_key + (total - left_items);
    if (!leaf) right_used -= item_cost(item(k).size()) - item_cost(kTupleHeaderSize);
    if (left_used > int64_t(kUsablePageBytes) || right_used > int64_t(kUsablePageBytes)) continue;
    double left_free = double(int64_t(kUsablePageBytes) - left_used);
    double right_free = double(int64_t(kUsablePageBytes) - right_used);
    double delta = packed ? fill * left_free - (1.0 - fill) * right_free : left_free - right_free;
    if (std::fabs(delta) < best_delta) {
      best_delta = std::fabs(delta);
      best_k = k;
    }
  }
  TP_ASSERT(best_k > 0);
  return best_k;
}

// The error every corrupted index page gets (BTree::corrupt, read_metapage).
[[noreturn]] void throw_corrupt_page(const std::string& index, BlockNumber block,
                                     const std::string& what) {
  throw Error("index \"" + index + "\" contains a corrupted page at block " + std::to_string(block),
              what, "Please REINDEX it.")
      .with_sqlstate(sqlstate::kIndexCorrupted);
}

}  // namespace

BTree::BTree(PageStore& store, IndexDef def)
    : store_(&store), def_(std::move(def)), layout_(TupleLayout::from(def_)) {}

BTree BTree::create(PageStore& store, IndexDef def) {
  BTree tree(store, std::move(def));
  if (store.nblocks() != 0)
    throw Error("cannot create index \"" + tree.def_.name + "\": its relation already has " +
                std::to_string(store.nblocks()) + " blocks");
  PageGuard meta = store.extend();
  TP_ASSERT(meta.block() == kMetaBlock);
  meta.mark_dirty();
  bt_meta_init(meta.data_for_write(), tree.layout_, tree.def_.unique, tree.def_.deduplicate);
  tree.deduplicate_ = bt_meta(meta.data())->deduplicate != 0;
  return tree;
}

namespace {

// Block 0 of index `name`, checked to be a metapage of this version.
PageGuard read_metapage(PageStore& store, const std::string& name) {
  if (store.nblocks() == 0)
    throw Error("index \"" + name + "\" has no metapage (its relation is empty)")
        .with_sqlstate(sqlstate::kIndexCorrupted);
  PageGuard guard = store.read(kMetaBlock, PageLock::kShared);
  const BtMeta* meta = bt_meta(guard.data());
  if (page_is_new(guard.data()) || meta->magic != kBtMagic)
    throw_corrupt_page(name, kMetaBlock, "not a B-tree metapage (bad magic number)");
  if (meta->version != kBtVersion)
    throw_corrupt_page(name, kMetaBlock,
                       "unsupported B-tree version " + std::to_string(meta->version));
  return guard;
}

}  // namespace

MetaInfo BTree::read_meta(PageStore& store, const std::string& index_name) {
  PageGuard guard = read_metapage(store, index_name);
  const BtMeta* meta = bt_meta(guard.data());
  return MetaInfo{meta->fast_root, meta->fast_level};
}

BTree BTree::open(PageStore& store, IndexDef def) {
  BTree tree(store, std::move(def));
  PageGuard guard = read_metapage(store, tree.def_.name);
  const BtMeta* meta = bt_meta(guard.data());
  bool same =
      meta->ncols == uint32_t(tree.layout_.ncols) && (meta->unique != 0) == tree.def_.unique;
  for (int i = 0; same && i < tree.layout_.ncols; ++i)
    same = meta->types[i] == uint8_t(tree.layout_.types[size_t(i)]);
  if (!same)
    throw Error("index \"" + tree.def_.name +
                "\" was built with different key columns or uniqueness than its definition")
        .with_sqlstate(sqlstate::kIndexCorrupted);
  tree.deduplicate_ = meta->deduplicate != 0;
  return tree;
}

void BTree::corrupt(BlockNumber block, const std::string& what) const {
  throw_corrupt_page(def_.name, block, what);
}

void BTree::throw_duplicate(const KeyValues& key) const {
  throw Error("duplicate key value violates unique constraint \"" + def_.name + "\"",
              key_detail(def_, layout_, key) + " already exists.")
      .with_sqlstate(sqlstate::kUniqueViolation);
}

MetaInfo BTree::meta(ScanCounters* counters) const {
  PageGuard guard = store_->read(kMetaBlock, PageLock::kShared);
  if (counters) ++counters->index_pages_read;
  const BtMeta* meta = bt_meta(guard.data());
  if (meta->magic != kBtMagic) corrupt(kMetaBlock, "not a B-tree metapage (bad magic number)");
  return MetaInfo{meta->fast_root, meta->fast_level};
}

MetaInfo BTree::start_root(ScanCounters* counters) const {
  uint64_t cached = std::atomic_ref<uint64_t>(cached_root_).load(std::memory_order_acquire);
  if (cached != kNoRootCached) return MetaInfo{BlockNumber(cached), uint32_t(cached >> 32)};
  MetaInfo root = meta(counters);
  if (root.root != kInvalidBlock) remember_root(root);
  return root;
}

void BTree::forget_root() const {
  std::atomic_ref<uint64_t>(cached_root_).store(kNoRootCached, std::memory_order_release);
}

void BTree::remember_root(MetaInfo root) const {
  std::atomic_ref<uint64_t>(cached_root_)
      .store((uint64_t(root.level) << 32) | root.root, std::memory_order_release);
}

PageGuard BTree::read_node(BlockNumber block, uint32_t level, PageLock lock,
                           ScanCounters* counters) const {
  if (block == kMetaBlock || block >= store_->nblocks())
    corrupt(block, "a link points to block " + std::to_string(block) + ", outside the tree");
  PageGuard guard = store_->read(block, lock);
  check_node(guard, level, counters);
  return guard;
}

void BTree::check_node(const PageGuard& guard, uint32_t level, ScanCounters* counters) const {
  const BlockNumber block = guard.block();
  if (counters) {
    ++counters->index_pages_read;
    if (level == 0) ++counters->leaf_pages_read;
  }
  const char* page = guard.data();
  const PageHeader* h = page_header(page);
  if (h->special != kBlockSize - sizeof(BtSpecial))
    corrupt(block, "the page has no B-tree special space");
  const BtSpecial* special = bt_special(page);
  if (special->level != level || ((special->flags & kBtLeaf) != 0) != (level == 0) ||
      (special->flags & kBtMeta) != 0)
    corrupt(block, "expected a page at level " + std::to_string(level) + ", found level " +
                       std::to_string(special->level));
}

namespace {

// A binary search over a page that is not in the CPU's caches (an inner probe's leaf)
// waits for one miss per step, each address known only when the step before has
// compared: the line pointers are fetched at once, and each step fetches the tuples of
// both possible next steps before it compares, so that their misses overlap. Leaves
// only: the internal levels a descent reads (the root above all) are the same few pages
// probe after probe, and stay cached. Inlined
// by force: GCC takes a function whose only effect is a prefetch for one without any,
// and drops its calls.
[[gnu::always_inline]] inline void prefetch_line_pointers(const char* page, OffsetNumber lo,
                                                          OffsetNumber hi) {
  if (lo >= hi) return;
  const auto* first = reinterpret_cast<const char*>(page_item_id(page, lo));
  const auto* last = reinterpret_cast<const char*>(page_item_id(page, OffsetNumber(hi - 1)));
  for (const char* p = first; p <= last; p += 64) __builtin_prefetch(p);
  __builtin_prefetch(last);
}

[[gnu::always_inline]] inline void prefetch_next_steps(const char* page, OffsetNumber lo,
                                                       OffsetNumber mid, OffsetNumber hi) {
  if (mid > lo) __builtin_prefetch(page_item(page, OffsetNumber(lo + (mid - lo) / 2)));
  if (hi > mid + 1) __builtin_prefetch(page_item(page, OffsetNumber(mid + 1 + (hi - mid - 1) / 2)));
}

// The first offset in [lo, hi) that the probe is not after (kStrict: compare() > 0
// moves right; otherwise >= 0 does), with `cmp` standing for compare().
template <bool kStrict, typename Cmp>
[[gnu::always_inline]] inline OffsetNumber search_loop(const char* page, OffsetNumber lo,
                                                       OffsetNumber hi, Cmp cmp) {
  while (lo < hi) {
    const auto mid = OffsetNumber(lo + (hi - lo) / 2);
    if constexpr (kStrict) prefetch_next_steps(page, lo, mid, hi);
    const int c = cmp(tuple_at(page, mid));
    if (kStrict ? c > 0 : c >= 0)
      lo = OffsetNumber(mid + 1);
    else
      hi = mid;
  }
  return lo;
}

// compare()'s fast path with what does not change from step to step (the probe's first
// value, the column's offset and width) held once for the whole search.
template <bool kStrict, int kLen>
OffsetNumber search_int_first(const TupleLayout& layout, const char* page, OffsetNumber lo,
                              OffsetNumber hi, const Probe& probe) {
  const Datum k = probe.key.v[0];
  const uint16_t at = layout.offsets[0];
  return search_loop<kStrict>(page, lo, hi, [&](TupleView t) {
    if (!t.has_nulls() && t.natts(layout) > 0) {
      const Datum v = fetch_byval(t.p + at, kLen);
      if (k != v) return k < v ? -1 : 1;
    }
    return compare_general(layout, probe, t);
  });
}

template <bool kStrict>
OffsetNumber search(const TupleLayout& layout, const char* page, OffsetNumber lo, OffsetNumber hi,
                    const Probe& probe) {
  if constexpr (kStrict) prefetch_line_pointers(page, lo, hi);
  if (layout.int_first && probe.key.n > 0 && (probe.key.nulls & 1) == 0) {
    if (layout.attrs[0].len == 4) return search_int_first<kStrict, 4>(layout, page, lo, hi, probe);
    if (layout.attrs[0].len == 8) return search_int_first<kStrict, 8>(layout, page, lo, hi, probe);
  }
  return search_loop<kStrict>(page, lo, hi, [&](TupleView t) { return compare(layout, probe, t); });
}

}  // namespace

OffsetNumber BTree::leaf_search(const char* page, const Probe& probe) const {
  return search</*kStrict=*/true>(layout_, page, bt_first_data(page),
                                  OffsetNumber(page_max_offset(page) + 1), probe);
}

OffsetNumber BTree::internal_search(const char* page, const Probe& probe) const {
  // The first data item is minus infinity: it always qualifies.
  const OffsetNumber first = bt_first_data(page);
  return OffsetNumber(search</*kStrict=*/false>(layout_, page, OffsetNumber(first + 1),
                                                OffsetNumber(page_max_offset(page) + 1), probe) -
                      1);
}

PageGuard BTree::descend(const Probe& probe, PageLock leaf_lock, DescentStack* stack,
                         ScanCounters* counters, BlockNumber* parent) const {
  if (parent) *parent = kInvalidBlock;
  // An insert needs the path from the true root to find parents when it
  // splits, so it reads the metapage; readers may start at a stale root.
  MetaInfo root = stack != nullptr ? meta(counters) : start_root(counters);
  if (root.root == kInvalidBlock) return {};
  if (stack != nullptr) remember_root(root);
  BlockNumber block = root.root;
  uint32_t level = root.level;
  for (;;) {
    PageLock lock = level == 0 ? leaf_lock : PageLock::kShared;
    PageGuard guard = read_node(block, level, lock, counters);
    // A split may have moved the probe's range right since the parent was read.
    BlockNumber moves = 0;
    while (!bt_rightmost(guard.data()) &&
           compare(layout_, probe, tuple_at(guard.data(), kHighKeyOffset)) >= 0) {
      BlockNumber next = bt_special(guard.data())->next;
      if (++moves > store_->nblocks())
        corrupt(guard.block(), "right links at level " + std::to_string(level) + " form a cycle");
      guard.release();
      guard = read_node(next, level, lock, counters);
    }
    if (level == 0) return guard;
    if (page_max_offset(guard.data()) < bt_first_data(guard.data()))
      corrupt(guard.block(), "internal page has no downlinks");
    OffsetNumber off = internal_search(guard.data(), probe);
    if (stack) stack->push({guard.block(), off});
    if (parent && level == 1) *parent = guard.block();
    block = tuple_at(guard.data(), off).downlink();
    --level;
  }
}

std::optional<Tid> BTree::lookup(const KeyValues& key, ScanCounters* counters) const {
  if (key.n != layout_.ncols)
    throw Error("lookup in index \"" + def_.name + "\" needs " + std::to_string(layout_.ncols) +
                " key values, got " + std::to_string(key.n));
  Probe probe{key};
  PageGuard guard = descend(probe, PageLock::kShared, nullptr, counters);
  if (!guard.valid()) return std::nullopt;
  OffsetNumber off = leaf_search(guard.data(), probe);
  // The first item >= probe may sit on a right sibling (after empty pages).
  while (off > page_max_offset(guard.data())) {
    if (bt_rightmost(guard.data())) return std::nullopt;
    BlockNumber next = bt_special(guard.data())->next;
    guard.release();
    guard = read_node(next, 0, PageLock::kShared, counters);
    off = bt_first_data(guard.data());
  }
  TupleView item = tuple_at(guard.data(), off);
  if (!keys_equal(layout_, item.key(layout_), key)) return std::nullopt;
  if (counters) ++counters->items_returned;
  return item.heap_tid();
}

void BTree::insert(const KeyValues& key, Tid tid) {
  check_key_range(def_, key);
  if (!tid.valid()) throw Error("cannot insert an invalid TID into index \"" + def_.name + "\"");
  // Check uniqueness before touching any page, so a violation changes nothing.
  // NULLs are distinct from each other: a key holding one never conflicts.
  check_item_size(def_, layout_, key, tid);
  if (def_.unique && !key.has_null() && lookup(key).has_value()) throw_duplicate(key);

  alignas(8) char tuple[kMaxTupleSize];
  uint16_t size = make_leaf_tuple(layout_, key, tid, tuple);
  Probe probe{key, tid, /*has_tid=*/true};
  DescentStack stack;
  PageGuard leaf = descend(probe, PageLock::kExclusive, &stack, nullptr);
  if (!leaf.valid()) leaf = create_root_leaf();
  OffsetNumber off = leaf_search(leaf.data(), probe);
  if (holds(leaf.data(), off, probe))
    throw Error("index \"" + def_.name + "\" already contains key " + format_key(layout_, key) +
                " with TID " + format_tid(tid))
        .with_sqlstate(sqlstate::kIndexCorrupted);
  // A full page is deduplicated before it is split (PostgreSQL's
  // _bt_delete_or_dedup_one_page); offsets change, so search again.
  if (deduplicate_ && page_free_space(leaf.data()) < maxalign(size)) {
    alignas(8) char deduplicated[kBlockSize];
    if (dedup_leaf_page(layout_, leaf.data(), key, maxalign(size), deduplicated)) {
      leaf.mark_dirty();
      std::memcpy(leaf.data_for_write(), deduplicated, kBlockSize);
      off = leaf_search(leaf.data(), probe);
    }
  }
  // The TID falls inside a posting list's range: the list takes it and gives
  // up its largest TID, which is inserted right after it instead.
  if (off <= page_max_offset(leaf.data()) &&
      compare(layout_, probe, tuple_at(leaf.data(), off)) == 0) {
    TupleView posting = tuple_at(leaf.data(), off);
    TP_ASSERT(posting.is_posting());
    alignas(8) char replacement[kMaxPostingSize];
    size = swap_posting(layout_, posting, tid, replacement, tuple);
    const uint32_t at = page_item_id(leaf.data(), off)->off;
    const uint16_t posting_size = posting.size();
    leaf.mark_dirty();
    std::memcpy(leaf.data_for_write() + at, replacement, posting_size);
    off = OffsetNumber(off + 1);
  }
  insert_into_page(std::move(leaf), off, tuple, size, stack);
}

bool BTree::holds(const char* page, OffsetNumber off, const Probe& probe) const {
  if (off > page_max_offset(page)) return false;
  TupleView item = tuple_at(page, off);
  if (compare(layout_, probe, item) != 0) return false;
  return !item.is_posting() || posting_contains(item, probe.tid);
}

bool BTree::remove(const KeyValues& key, Tid tid) {
  if (key.n != layout_.ncols)
    throw Error("removal from index \"" + def_.name + "\" needs " + std::to_string(layout_.ncols) +
                " key values, got " + std::to_string(key.n));
  Probe probe{key, tid, /*has_tid=*/true};
  PageGuard leaf = descend(probe, PageLock::kExclusive, nullptr, nullptr);
  if (!leaf.valid()) return false;
  OffsetNumber off = leaf_search(leaf.data(), probe);
  if (!holds(leaf.data(), off, probe)) return false;
  TupleView item = tuple_at(leaf.data(), off);
  alignas(8) char rest[kMaxPostingSize];
  const uint16_t rest_size = item.is_posting() ? posting_without(layout_, item, tid, rest) : 0;
  leaf.mark_dirty();
  char* page = leaf.data_for_write();
  page_delete_item(page, off);
  // A posting list loses one TID: the shorter tuple goes back in its place.
  if (rest_size > 0) {
    bool ok = page_insert_item_at(page, off, rest, rest_size);
    TP_ASSERT(ok);
  }
  return true;
}

PageGuard BTree::create_root_leaf() {
  PageGuard root = store_->extend();
  root.mark_dirty();
  bt_page_init(root.data_for_write(), 0, kBtLeaf | kBtRoot);
  PageGuard meta = store_->read(kMetaBlock, PageLock::kExclusive);
  meta.mark_dirty();
  BtMeta* m = bt_meta(meta.data_for_write());
  m->root = m->fast_root = root.block();
  m->level = m->fast_level = 0;
  remember_root(MetaInfo{root.block(), 0});
  return root;
}

void BTree::insert_into_page(PageGuard page, OffsetNumber offset, const char* tuple, uint16_t size,
                             DescentStack& stack) {
  // Two buffers: the separator of one split is the tuple of the next level.
  alignas(8) char buffers[2][kMaxTupleSize];
  int next_buffer = 0;
  for (;;) {
    if (page_free_space(page.data()) >= maxalign(size)) {
      page.mark_dirty();
      bool added = page_insert_item_at(page.data_for_write(), offset, tuple, size);
      TP_ASSERT(added);
      return;
    }
    BlockNumber left = page.block();
    uint32_t level = bt_special(page.data())->level;
    char* separator = buffers[next_buffer];
    next_buffer ^= 1;
    size = split(page, offset, tuple, size, separator);
    tuple = separator;
    page.release();
    if (stack.depth == 0) {
      grow_root(left, level, separator, size);
      return;
    }
    DescentStack::Entry parent = stack.pop();
    page = read_node(parent.block, level + 1, PageLock::kExclusive, nullptr);
    // Writers are serialised, so the parent still has our downlink where the
    // descent saw it.
    TP_ASSERT(tuple_at(page.data(), parent.offset).downlink() == left);
    offset = OffsetNumber(parent.offset + 1);
  }
}

uint16_t BTree::split(PageGuard& guard, OffsetNumber offset, const char* tuple, uint16_t size,
                      char* separator) {
  const char* page = guard.data();
  const BtSpecial old = *bt_special(page);
  const bool leaf = (old.flags & kBtLeaf) != 0;
  const bool rightmost = old.next == kInvalidBlock;
  const OffsetNumber first = bt_first_data(page);
  const int n = page_max_offset(page) - first + 2;  // existing data items + the new one
  const int new_index = offset - first;
  TP_ASSERT(size == TupleView{tuple}.size());
  const SplitItems item{page, first, new_index, tuple, n};
  const int k = choose_split_point(layout_, item, leaf, rightmost);

  // The left half is built aside and copied over the page at the end, so the
  // page stays intact (and readable by concurrent readers) until then.
  alignas(8) char left[kBlockSize];
  const uint16_t flags = uint16_t(old.flags & ~kBtRoot);
  bt_page_init(left, old.level, flags);
  PageGuard right_guard = store_->extend();
  right_guard.mark_dirty();
  char* right = right_guard.data_for_write();
  bt_page_init(right, old.level, flags);
  const BlockNumber right_block = right_guard.block();
  bt_special(left)->prev = old.prev;
  bt_special(left)->next = right_block;
  bt_special(right)->prev = guard.block();
  bt_special(right)->next = old.next;

  alignas(8) char high_key[kMaxTupleSize];
  uint16_t high_key_size = leaf ? make_separator(layout_, item(k - 1), item(k), high_key)
                                : copy_pivot(item(k), kInvalidBlock, false, high_key);
  bool ok = page_add_item(left, high_key, high_key_size) == kHighKeyOffset;
  for (int i = 0; ok && i < k; ++i) ok = page_add_item(left, item(i).p, item(i).size()) != 0;
  if (ok && !rightmost) {
    TupleView old_high = tuple_at(page, kHighKeyOffset);
    ok = page_add_item(right, old_high.p, old_high.size()) != 0;
  }
  for (int i = k; ok && i < n; ++i) {
    if (!leaf && i == k) {
      // The right page's first downlink becomes minus infinity.
      alignas(8) char first_item[kMaxTupleSize];
      uint16_t first_size = copy_pivot(item(k), item(k).downlink(), true, first_item);
      ok = page_add_item(right, first_item, first_size) != 0;
    } else {
      ok = page_add_item(right, item(i).p, item(i).size()) != 0;
    }
  }
  TP_ASSERT(ok);
  uint16_t separator_bytes = copy_pivot(TupleView{high_key}, right_block, false, separator);

  if (old.next != kInvalidBlock) {
    PageGuard sibling = read_node(old.next, old.level, PageLock::kExclusive, nullptr);
    sibling.mark_dirty();
    bt_special(sibling.data_for_write())->prev = right_block;
  }
  guard.mark_dirty();
  std::memcpy(guard.data_for_write(), left, kBlockSize);
  return separator_bytes;
}

void BTree::grow_root(BlockNumber left, uint32_t left_level, const char* separator, uint16_t size) {
  PageGuard root = store_->extend();
  root.mark_dirty();
  char* page = root.data_for_write();
  bt_page_init(page, left_level + 1, kBtRoot);
  alignas(8) char minus_infinity[kMaxTupleSize];
  uint16_t minus_size = make_pivot(layout_, KeyValues{}, 0, nullptr, left, minus_infinity);
  bool ok = page_add_item(page, minus_infinity, minus_size) == 1 &&
            page_add_item(page, separator, size) == 2;
  TP_ASSERT(ok);
  BlockNumber root_block = root.block();
  root.release();
  PageGuard meta = store_->read(kMetaBlock, PageLock::kExclusive);
  meta.mark_dirty();
  BtMeta* m = bt_meta(meta.data_for_write());
  m->root = m->fast_root = root_block;
  m->level = m->fast_level = left_level + 1;
  remember_root(MetaInfo{root_block, left_level + 1});
}

}  // namespace tp::btree
