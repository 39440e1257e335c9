#include "engine/btree/btree_verify.h"

#include <vector>

#include "engine/core/interrupts.h"

namespace tp::btree {

namespace {

struct Violation {
  BlockNumber block;
  OffsetNumber offset;
  std::string what;
};

// One page the next level down must contain, in right-link order.
struct Expected {
  BlockNumber block;
  std::string low;   // pivot bytes; empty = minus infinity
  std::string high;  // pivot bytes; empty = plus infinity (rightmost)
};

std::string block_name(BlockNumber block) {
  return block == kInvalidBlock ? std::string("none") : std::to_string(block);
}

class Verifier {
 public:
  Verifier(PageStore& store, const IndexDef& def, const HeapFetch& heap)
      : store_(store), def_(def), layout_(TupleLayout::from(def)), heap_(heap) {}

  VerifyReport run() {
    try {
      check();
    } catch (const Violation& v) {
      report_.ok = false;
      report_.block = v.block;
      report_.offset = v.offset;
      report_.message = "index \"" + def_.name + "\" block " + std::to_string(v.block) +
                        (v.offset != 0 ? " offset " + std::to_string(v.offset) : "") + ": " +
                        v.what;
    }
    return report_;
  }

 private:
  [[noreturn]] void fail(BlockNumber block, OffsetNumber offset, std::string what) {
    throw Violation{block, offset, std::move(what)};
  }

  PageGuard read(BlockNumber block) {
    try {
      ++report_.pages_checked;
      return store_.read(block, PageLock::kShared);
    } catch (const Error& e) {
      fail(block, 0, std::string("could not read the page: ") + e.what());
    }
  }

  std::string describe(TupleView t) const {
    if (t.is_pivot() && t.natts(layout_) == 0) return "(-infinity)";
    std::string s = format_key(layout_, t.key(layout_));
    if (t.is_pivot() && t.has_heap_tid()) s += " TID " + format_tid(t.heap_tid());
    return s;
  }

  void check() {
    nblocks_ = store_.nblocks();
    if (nblocks_ == 0) fail(kMetaBlock, 0, "the index has no metapage");
    visited_.assign(nblocks_, false);
    visited_[kMetaBlock] = true;
    check_meta();
    if (root_ == kInvalidBlock) return;
    std::vector<Expected> level_pages{Expected{root_, {}, {}}};
    for (int64_t level = root_level_; level >= 0; --level) {
      std::vector<Expected> children;
      for (size_t i = 0; i < level_pages.size(); ++i) {
        BlockNumber prev = i > 0 ? level_pages[i - 1].block : kInvalidBlock;
        BlockNumber next = i + 1 < level_pages.size() ? level_pages[i + 1].block : kInvalidBlock;
        check_for_interrupts();  // a page at a time: a large index takes a while
        check_page(level_pages[i], prev, next, uint32_t(level), children);
      }
      level_pages = std::move(children);
    }
  }

  void check_meta() {
    PageGuard guard = read(kMetaBlock);
    const char* page = guard.data();
    if (page_is_new(page)) fail(kMetaBlock, 0, "the metapage is all zeroes");
    const BtMeta* meta = bt_meta(page);
    if (meta->magic != kBtMagic) fail(kMetaBlock, 0, "the metapage has a bad magic number");
    if (meta->version != kBtVersion)
      fail(kMetaBlock, 0, "the metapage has unsupported version " + std::to_string(meta->version));
    if (page_header(page)->special != kBlockSize - sizeof(BtSpecial) ||
        (bt_special(page)->flags & kBtMeta) == 0)
      fail(kMetaBlock, 0, "the metapage's special space does not mark it as a metapage");
    bool same = meta->ncols == uint32_t(layout_.ncols) && (meta->unique != 0) == def_.unique;
    for (int i = 0; same && i < layout_.ncols; ++i)
      same = meta->types[i] == uint8_t(layout_.types[size_t(i)]);
    if (!same)
      fail(kMetaBlock, 0, "the metapage's key columns or uniqueness differ from the definition");
    if (meta->deduplicate > 1 || (meta->deduplicate != 0 && meta->unique != 0))
      fail(kMetaBlock, 0,
           "the metapage's deduplication flag " + std::to_string(meta->deduplicate) +
               " is impossible for " + (meta->unique != 0 ? "a unique" : "an") + " index");
    deduplicate_ = meta->deduplicate != 0;
    root_ = meta->root;
    root_level_ = meta->level;
    if (meta->fast_root != meta->root || meta->fast_level != meta->level)
      fail(kMetaBlock, 0,
           "the metapage's fast root " + block_name(meta->fast_root) + " (level " +
               std::to_string(meta->fast_level) + ") differs from its root " +
               block_name(meta->root) + " (level " + std::to_string(meta->level) + ")");
    if (root_ == kInvalidBlock) {
      if (nblocks_ != 1)
        fail(kMetaBlock, 0,
             "the metapage says the index is empty, but it has " + std::to_string(nblocks_) +
                 " blocks");
      return;
    }
    if (root_ == kMetaBlock || root_ >= nblocks_)
      fail(kMetaBlock, 0,
           "the metapage's root block " + std::to_string(root_) + " is outside the index (" +
               std::to_string(nblocks_) + " blocks)");
    if (root_level_ >= 32)
      fail(kMetaBlock, 0,
           "the metapage's root level " + std::to_string(root_level_) + " is impossibly high");
  }

  // Header, special space and every line pointer, so that items can be read safely.
  void check_layout(BlockNumber block, const char* page, uint32_t level) {
    if (page_is_new(page)) fail(block, 0, "the page is all zeroes");
    const PageHeader* h = page_header(page);
    if (h->lower < kPageHeaderSize || h->lower > h->upper || h->upper > h->special ||
        h->special != kBlockSize - sizeof(BtSpecial))
      fail(block, 0,
           "the page header is corrupt (pd_lower " + std::to_string(h->lower) + ", pd_upper " +
               std::to_string(h->upper) + ", pd_special " + std::to_string(h->special) + ")");
    const BtSpecial* sp = bt_special(page);
    if (sp->level != level)
      fail(block, 0,
           "the page is at level " + std::to_string(sp->level) + ", expected level " +
               std::to_string(level));
    if (((sp->flags & kBtLeaf) != 0) != (level == 0) || (sp->flags & kBtMeta) != 0)
      fail(block, 0, "the page's leaf/meta flags do not match its level");
    if (((sp->flags & kBtRoot) != 0) != (block == root_))
      fail(block, 0,
           block == root_ ? "the root page lacks the root flag"
                          : "a page that is not the root has the root flag");
    OffsetNumber max = page_max_offset(page);
    OffsetNumber first = sp->next == kInvalidBlock ? 1 : 2;
    if (sp->next != kInvalidBlock && max < 1) fail(block, 0, "the page has no high key");
    for (OffsetNumber off = 1; off <= max; ++off) {
      const ItemId* id = page_item_id(page, off);
      if (id->state != uint32_t(ItemState::kNormal) || id->off < h->upper ||
          id->off + maxalign(id->len) > h->special || id->len < kTupleHeaderSize ||
          id->off % kMaxAlign != 0)
        fail(block, off, "the line pointer is corrupt");
      TupleView t = tuple_at(page, off);
      if (t.size() != id->len) fail(block, off, "the tuple size does not match its line pointer");
      bool pivot_expected = level > 0 || off < first;
      if (t.is_pivot() != pivot_expected)
        fail(block, off,
             pivot_expected ? "expected a pivot tuple, found a leaf item"
                            : "expected a leaf item, found a pivot tuple");
      if (t.is_posting()) {
        check_posting_layout(block, off, t);
        continue;
      }
      if (!t.is_pivot()) {
        if (checked_key_end(layout_, t, layout_.ncols, t.size()) != t.size())
          fail(block, off, "the leaf item has the wrong size");
        continue;
      }
      int natts = t.natts(layout_);
      bool heap_tid = (load_u16(t.p + 4) & kPivotHeapTid) != 0;
      if (natts > layout_.ncols || (heap_tid && natts != layout_.ncols))
        fail(block, off, "the pivot tuple has an impossible column count");
      const std::optional<uint32_t> end = checked_key_end(layout_, t, natts, t.size());
      if (!end || t.size() != (heap_tid ? maxalign(*end) + 8 : *end))
        fail(block, off, "the pivot tuple has the wrong size");
    }
  }

  // A posting list's header, size and TIDs (ascending, valid), so scans can read it.
  void check_posting_layout(BlockNumber block, OffsetNumber off, TupleView t) {
    if (!deduplicate_) fail(block, off, "a posting list in an index that does not deduplicate");
    const int n = t.posting_count();
    if (n < 2) fail(block, off, "the posting list holds " + std::to_string(n) + " TIDs");
    const std::optional<uint32_t> end = checked_key_end(layout_, t, layout_.ncols, t.size());
    if (!end || t.posting_offset() != maxalign(*end) || t.size() != posting_size(*end, n) ||
        t.size() > kMaxPostingSize)
      fail(block, off,
           "the posting list of " + std::to_string(n) + " TIDs has the wrong size " +
               std::to_string(t.size()) + " or TID offset " + std::to_string(t.posting_offset()));
    for (int i = 0; i < n; ++i) {
      Tid tid = t.posting_tid(i);
      if (!tid.valid())
        fail(block, off, "posting list TID " + std::to_string(i + 1) + " is invalid");
      if (i > 0 && !(t.posting_tid(i - 1) < tid))
        fail(block, off,
             "posting list TID " + format_tid(tid) + " is not after the previous TID " +
                 format_tid(t.posting_tid(i - 1)));
    }
  }

  void check_page(const Expected& e, BlockNumber prev, BlockNumber next, uint32_t level,
                  std::vector<Expected>& children) {
    const BlockNumber block = e.block;
    if (visited_[block]) fail(block, 0, "the page is reached twice (a link cycle)");
    visited_[block] = true;
    PageGuard guard = read(block);
    const char* page = guard.data();
    check_layout(block, page, level);
    const BtSpecial* sp = bt_special(page);
    if (sp->prev != prev)
      fail(block, 0,
           "left link points to block " + block_name(sp->prev) + ", expected " + block_name(prev));
    if (sp->next != next)
      fail(block, 0,
           "right link points to block " + block_name(sp->next) + ", expected " + block_name(next) +
               (level == root_level_ ? "" : " (the parent's next downlink)"));
    const bool rightmost = next == kInvalidBlock;
    const OffsetNumber first = rightmost ? 1 : 2;
    const OffsetNumber max = page_max_offset(page);
    std::optional<TupleView> high_key;
    if (!rightmost) {
      high_key = tuple_at(page, kHighKeyOffset);
      if (compare_tuples(layout_, *high_key, TupleView{e.high.data()}) != 0)
        fail(block, kHighKeyOffset,
             "high key " + describe(*high_key) + " differs from the parent's separator " +
                 describe(TupleView{e.high.data()}));
    }
    if (level > 0 && max < first) fail(block, 0, "the internal page has no downlinks");

    std::optional<TupleView> previous;
    for (OffsetNumber off = first; off <= max; ++off) {
      TupleView t = tuple_at(page, off);
      const bool minus_infinity = level > 0 && off == first;
      if (minus_infinity) {
        if (t.natts(layout_) != 0 || t.has_heap_tid())
          fail(block, off, "the first downlink of an internal page is not minus infinity");
      } else {
        if (previous && compare_tuples_last(layout_, *previous, t) >= 0) {
          bool same_key = level == 0 && compare_keys(layout_, *previous, t) == 0;
          fail(block, off,
               same_key
                   ? "key " + describe(t) + " TID " + format_tid(t.heap_tid()) +
                         " is not after the previous item's TID " +
                         format_tid(previous->max_heap_tid())
                   : "key " + describe(t) + " is less than previous key " + describe(*previous));
        }
        if (!previous && !e.low.empty() && compare_tuples(layout_, t, TupleView{e.low.data()}) < 0)
          fail(block, off,
               "key " + describe(t) + " is less than the parent's separator " +
                   describe(TupleView{e.low.data()}) + " for this page");
        if (high_key && compare_tuples_last(layout_, t, *high_key) >= 0)
          fail(block, off,
               "key " + describe(t) + " is not less than the page's high key " +
                   describe(*high_key));
        previous = t;
      }
      if (level > 0) {
        BlockNumber child = t.downlink();
        if (child == kMetaBlock || child >= nblocks_)
          fail(block, off,
               "downlink points to block " + block_name(child) + ", outside the index (" +
                   std::to_string(nblocks_) + " blocks)");
        Expected c{child, {}, {}};
        c.low = minus_infinity ? e.low : std::string(t.p, t.size());
        if (off < max) {
          TupleView next_item = tuple_at(page, OffsetNumber(off + 1));
          c.high.assign(next_item.p, next_item.size());
        } else if (high_key) {
          c.high.assign(high_key->p, high_key->size());
        }
        children.push_back(std::move(c));
      } else {
        check_leaf_item(block, off, t);
      }
    }
  }

  // Counts a leaf item's entries (a posting list's TIDs) and checks each against the heap.
  void check_leaf_item(BlockNumber block, OffsetNumber off, TupleView t) {
    const int n = t.heap_tid_count();
    report_.leaf_items_checked += uint64_t(n);
    KeyValues key = t.key(layout_);
    if (def_.unique && !previous_item_.empty() && !key.has_null() &&
        keys_equal(layout_, key, TupleView{previous_item_.data()}.key(layout_)))
      fail(block, off, "duplicate key " + format_key(layout_, key) + " in a unique index");
    previous_item_.assign(t.p, t.size());  // the page is released before the next one
    if (!heap_) return;
    for (int i = 0; i < n; ++i) {
      Tid tid = t.is_posting() ? t.posting_tid(i) : t.tid();
      std::optional<KeyValues> row = heap_(tid);
      if (!row) fail(block, off, "TID " + format_tid(tid) + " points to no live heap tuple");
      if (!keys_equal(layout_, *row, key))
        fail(block, off,
             "key " + format_key(layout_, key) + " does not match heap tuple " + format_tid(tid) +
                 ", whose indexed columns are " + format_key(layout_, *row));
    }
  }

  PageStore& store_;
  const IndexDef& def_;
  TupleLayout layout_;
  const HeapFetch& heap_;
  VerifyReport report_;
  BlockNumber nblocks_ = 0;
  std::vector<bool> visited_;
  BlockNumber root_ = kInvalidBlock;
  uint32_t root_level_ = 0;
  bool deduplicate_ = false;
  std::string previous_item_;  // the last leaf item checked (its bytes: keys point in)
};

}  // namespace

VerifyReport verify_btree(PageStore& store, const IndexDef& def, const HeapFetch& heap) {
  return Verifier(store, def, heap).run();
}

}  // namespace tp::btree
