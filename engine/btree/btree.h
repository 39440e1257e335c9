// tidepool's B-tree: PostgreSQL nbtree-shaped pages behind a PageStore.
//
// Map of the subsystem:
//   page_store.h       the page access interface (guards) + mem/file stores
//   btree_page.h/.cc   byte layout: metapage, special space, index tuples, ordering
//   btree.h/.cc        descent, point lookup, insert with splits, remove   <- here
//   btree_build.h/.cc  sorted bottom-up build (CREATE INDEX)
//   btree_scan.h/.cc   range scans handing out one leaf page per batch
//   btree_verify.h/.cc structural + heap cross-check (amcheck-like)
//
//   MemPageStore store("t_a_idx");
//   BTree tree = BTree::create(store, {"t_a_idx", {{"a", KeyType::kInt4}}, /*unique=*/true});
//   tree.insert({42}, Tid{7, 3});          // throws tp::Error on a duplicate
//   std::optional<Tid> tid = tree.lookup({42});
//
// Concurrency: readers (lookup, scans) may run in parallel with each other and
// with one writer; the caller serialises writers (insert/remove) per index.
// Readers never hold more than one page and follow right links when a split
// moved their key range (Lehman & Yao), so a concurrent split is harmless.
#pragma once

#include <array>
#include <optional>

#include "engine/btree/btree_page.h"
#include "engine/btree/page_store.h"

namespace tp::btree {

// Per-operation counters, reported by EXPLAIN.
struct ScanCounters {
  uint64_t index_pages_read = 0;  // every page visited, metapage included
  uint64_t leaf_pages_read = 0;
  uint64_t items_returned = 0;
};

struct MetaInfo {
  BlockNumber root = kInvalidBlock;  // kInvalidBlock: the index is empty
  uint32_t level = 0;                // root level; height = level + 1
};

// The path a descent took: for each internal level, the page and the
// offset of the downlink followed. Inserts use it to find parents.
struct DescentStack {
  struct Entry {
    BlockNumber block;
    OffsetNumber offset;
  };
  static constexpr int kMaxDepth = 32;
  std::array<Entry, kMaxDepth> entries;
  int depth = 0;
  void push(Entry e) {
    TP_ASSERT(depth < kMaxDepth);
    entries[size_t(depth++)] = e;
  }
  Entry pop() {
    TP_ASSERT(depth > 0);
    return entries[size_t(--depth)];
  }
};

class BTree {
 public:
  // Formats an empty index (metapage only) in an empty store.
  static BTree create(PageStore& store, IndexDef def);
  // Opens an existing index. Throws tp::Error if block 0 is not a B-tree
  // metapage or its key columns differ from `def`.
  static BTree open(PageStore& store, IndexDef def);
  // The metapage's root and level without opening the tree (the planner reads the
  // height per plan and needs no key layout); errors as open()'s for a page that is
  // not a metapage.
  static MetaInfo read_meta(PageStore& store, const std::string& index_name);

  const IndexDef& def() const { return def_; }
  // Whether inserts deduplicate full leaf pages (the metapage's flag).
  bool deduplicates() const { return deduplicate_; }
  const TupleLayout& layout() const { return layout_; }
  PageStore& store() const { return *store_; }
  // Reads the metapage (always; counts one page).
  MetaInfo meta(ScanCounters* counters = nullptr) const;

  // Drops the remembered root, so the next descent reads the metapage. Call
  // after the engine's undo journal rolled back pages of this index (a root
  // split may have been undone).
  void forget_root() const;

  // Adds (key, tid). key has one value per key column, in range for its type.
  // Unique index: throws tp::Error "duplicate key value violates unique
  // constraint" (nothing changed) if an equal key exists.
  void insert(const KeyValues& key, Tid tid);

  // Removes the item (key, tid); false if there is none. Pages never merge.
  bool remove(const KeyValues& key, Tid tid);

  // The TID of the first item whose key equals `key` (all columns), if any.
  std::optional<Tid> lookup(const KeyValues& key, ScanCounters* counters = nullptr) const;

  // Descends to the leaf whose key range holds `probe`, latched with
  // `leaf_lock` (internal pages are latched shared, one at a time). Returns
  // an empty guard for an empty index. With a `stack` it starts from the
  // metapage's root and records the full path; without, from the remembered root.
  // `parent` (if given) receives the level-1 page whose downlink led to the leaf
  // (kInvalidBlock when the root is the leaf): leaf read-ahead starts from it.
  PageGuard descend(const Probe& probe, PageLock leaf_lock, DescentStack* stack,
                    ScanCounters* counters, BlockNumber* parent = nullptr) const;

  // First offset on a leaf whose item is >= probe (max offset + 1 if none).
  OffsetNumber leaf_search(const char* page, const Probe& probe) const;
  // Last offset on an internal page whose pivot is <= probe.
  OffsetNumber internal_search(const char* page, const Probe& probe) const;

  // Reads `block`, expecting a B-tree page at `level`; throws tp::Error on a
  // page that is not (a corrupt link must not send a reader astray).
  PageGuard read_node(BlockNumber block, uint32_t level, PageLock lock,
                      ScanCounters* counters) const;
  // The checks and counting of read_node for a page read some other way (a stream).
  void check_node(const PageGuard& guard, uint32_t level, ScanCounters* counters) const;

 private:
  BTree(PageStore& store, IndexDef def);

  // Where descents start: the root as last seen by this BTree, reading the
  // metapage only the first time (PostgreSQL keeps the same copy in its
  // relcache). A stale root is still a correct start: it is the leftmost page
  // of its level, and right links lead from it to every page of that level.
  MetaInfo start_root(ScanCounters* counters) const;
  void remember_root(MetaInfo root) const;
  [[noreturn]] void corrupt(BlockNumber block, const std::string& what) const;
  void throw_duplicate(const KeyValues& key) const;
  // Whether the leaf item at `off` holds the probe's exact (key, TID).
  bool holds(const char* page, OffsetNumber off, const Probe& probe) const;

  // Puts `tuple` at `offset` of the exclusively held page, splitting it (and
  // its ancestors, from `stack`) when it does not fit.
  void insert_into_page(PageGuard page, OffsetNumber offset, const char* tuple, uint16_t size,
                        DescentStack& stack);
  // Splits the page around the incoming tuple. Writes the separator pivot
  // (downlink = new right page) into `separator`; returns its size.
  uint16_t split(PageGuard& page, OffsetNumber offset, const char* tuple, uint16_t size,
                 char* separator);
  void grow_root(BlockNumber left, uint32_t left_level, const char* separator, uint16_t size);
  PageGuard create_root_leaf();

  PageStore* store_;
  IndexDef def_;
  TupleLayout layout_;
  bool deduplicate_ = false;
  // root level << 32 | root block; kNoRootCached until known. Accessed through
  // std::atomic_ref so readers on other threads see a writer's new root.
  static constexpr uint64_t kNoRootCached = ~uint64_t(0);
  alignas(8) mutable uint64_t cached_root_ = kNoRootCached;
};

}  // namespace tp::btree
