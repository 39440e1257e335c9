// Leaf read-ahead: the leaf blocks a scan will read next, from the level above.
//
// A scan that walks many leaves reads them through a BlockStream (page_store.h) fed by
// a LeafSource. The source copies the downlinks of the level-1 page the descent passed
// through (the leaf's parent), in scan order, and moves on to the parent's sibling when
// they run out, so the stream knows the next leaves long before the scan reaches them:
// under direct I/O (no kernel readahead) a cold full-index scan then keeps many leaf
// reads in flight instead of waiting on one leaf at a time. PostgreSQL has no such thing.
//
//   LeafSource source(tree, ScanDirection::kForward, parent, next_leaf, upper, &counters);
//   auto stream = tree.store().open_stream([&] { return source.next(); });
//
// The source is only a prediction: a split after the parent was copied puts a leaf the
// parent did not list in between. The scan checks every streamed block against the link
// it follows and drops the stream on a mismatch (engine/btree/README.md, "Leaf
// read-ahead").
#pragma once

#include <optional>
#include <vector>

#include "engine/btree/btree.h"

namespace tp::btree {

enum class ScanDirection : uint8_t { kForward, kBackward };

class LeafSource {
 public:
  // `parent`: the level-1 page the scan's descent passed through. `first`: the leaf the
  // scan reads next, the first block yielded (downlinks before it are skipped; if it is
  // not found within this parent and the next one, the source yields nothing). `stop`:
  // forward, the scan's upper bound (items < *stop); backward, its lower bound (items >=
  // *stop); leaves wholly past it are not yielded. Parent pages read are counted in
  // `counters` (index pages, not leaves).
  LeafSource(const BTree& tree, ScanDirection direction, BlockNumber parent, BlockNumber first,
             std::optional<Probe> stop, ScanCounters* counters);

  // The next leaf block in scan order, or kInvalidBlock at the end (the bound, the end of
  // the level, or a parent page that could not be read: the scan then reads on its own).
  BlockNumber next();

 private:
  // Copies the downlinks of level-1 page `block` in scan order, cut at the bound.
  void load(BlockNumber block);

  const BTree* tree_;
  ScanDirection direction_;
  BlockNumber first_;
  std::optional<Probe> stop_;
  ScanCounters* counters_;
  std::vector<BlockNumber> downlinks_;  // of the current parent, in scan order
  size_t pos_ = 0;                      // next downlink to yield
  BlockNumber sibling_;                 // the next parent in scan order (first: the start)
  bool past_bound_ = false;             // the current parent's list ends at the bound
  bool found_first_ = false;
  int parents_loaded_ = 0;
};

}  // namespace tp::btree
