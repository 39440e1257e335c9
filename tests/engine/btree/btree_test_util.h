// Shared helpers for the B-tree tests: index definitions, a model heap, and
// collecting scan results.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "engine/btree/btree.h"
#include "engine/btree/btree_scan.h"
#include "engine/btree/btree_verify.h"

namespace tp::btree::testing {

inline IndexDef index_def(std::string name, std::vector<KeyType> types, bool unique = false) {
  IndexDef def{std::move(name), {}, unique};
  for (size_t i = 0; i < types.size(); ++i)
    def.columns.push_back({std::string(1, char('a' + i)), types[i]});
  return def;
}

inline bool key_less(const KeyValues& x, const KeyValues& y) {
  return std::lexicographical_compare(x.v.begin(), x.v.begin() + x.n, y.v.begin(),
                                      y.v.begin() + y.n);
}

using Entry = std::pair<KeyValues, Tid>;

inline bool entry_less(const Entry& x, const Entry& y) {
  if (key_less(x.first, y.first)) return true;
  if (key_less(y.first, x.first)) return false;
  return x.second < y.second;
}

// What the heap holds: one row per TID, with its indexed column values.
struct ModelHeap {
  std::map<Tid, KeyValues> rows;

  HeapFetch fetch() const {
    return [this](Tid tid) -> std::optional<KeyValues> {
      auto it = rows.find(tid);
      if (it == rows.end()) return std::nullopt;
      return it->second;
    };
  }
  // The index's expected contents in index order.
  std::vector<Entry> sorted() const {
    std::vector<Entry> out;
    for (const auto& [tid, key] : rows) out.push_back({key, tid});
    std::sort(out.begin(), out.end(), entry_less);
    return out;
  }
};

// Runs a scan to the end; checks batch shape on the way.
inline std::vector<Entry> scan_all(const BTree& tree, std::vector<ColumnCondition> conditions,
                                   ScanCounters* counters = nullptr, size_t* batches = nullptr,
                                   ScanDirection direction = ScanDirection::kForward,
                                   bool leaf_readahead = false) {
  IndexScan scan(tree, std::move(conditions), direction, leaf_readahead);
  IndexBatch batch;
  std::vector<Entry> out;
  size_t n = 0;
  BlockNumber last_leaf = kInvalidBlock;
  while (scan.next_batch(batch)) {
    EXPECT_FALSE(batch.empty()) << "a batch must carry at least one item";
    EXPECT_NE(batch.leaf_block, last_leaf) << "one leaf page per batch";
    last_leaf = batch.leaf_block;
    for (size_t i = 0; i < batch.size(); ++i) out.push_back({batch.key(i), batch.tids[i]});
    ++n;
  }
  EXPECT_EQ(scan.state(), ScanState::kDone);
  if (counters) *counters = scan.counters();
  if (batches) *batches = n;
  return out;
}

// Whether a backward scan's `got` returns the forward scan's `forward` entries as
// nbtree's backward scan does: keys descending, equal keys in any TID order (a posting
// list's TIDs ascend, separate items' descend).
inline bool backward_matches(std::vector<Entry> got, std::vector<Entry> forward) {
  for (size_t i = 1; i < got.size(); ++i)
    if (key_less(got[i - 1].first, got[i].first)) return false;
  std::sort(got.begin(), got.end(), entry_less);
  std::sort(forward.begin(), forward.end(), entry_less);
  return got == forward;
}

inline std::string describe(const std::vector<Entry>& entries, size_t limit = 8) {
  std::string s;
  for (size_t i = 0; i < entries.size() && i < limit; ++i)
    s += format_key(entries[i].first) + format_tid(entries[i].second) + " ";
  return s;
}

// Block numbers of the leaf level, left to right.
inline std::vector<BlockNumber> leaf_blocks(const BTree& tree) {
  std::vector<BlockNumber> out;
  PageGuard g = tree.descend(Probe{}, PageLock::kShared, nullptr, nullptr);
  while (g.valid()) {
    out.push_back(g.block());
    BlockNumber next = bt_special(g.data())->next;
    g.release();
    if (next != kInvalidBlock) g = tree.store().read(next, PageLock::kShared);
  }
  return out;
}

}  // namespace tp::btree::testing
