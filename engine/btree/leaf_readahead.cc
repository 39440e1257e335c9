#include "engine/btree/leaf_readahead.h"

namespace tp::btree {

namespace {

// Parents searched for the scan's next leaf before giving up: the stream starts a couple
// of leaves after the descent, so that leaf is in the descent's parent or the next one.
constexpr int kParentsToFindFirst = 2;

}  // namespace

LeafSource::LeafSource(const BTree& tree, ScanDirection direction, BlockNumber parent,
                       BlockNumber first, std::optional<Probe> stop, ScanCounters* counters)
    : tree_(&tree),
      direction_(direction),
      first_(first),
      stop_(std::move(stop)),
      counters_(counters),
      sibling_(parent) {}

BlockNumber LeafSource::next() {
  for (;;) {
    while (pos_ < downlinks_.size()) {
      BlockNumber block = downlinks_[pos_++];
      if (found_first_) return block;
      if (block != first_) continue;
      found_first_ = true;
      return block;
    }
    if (past_bound_ || sibling_ == kInvalidBlock) return kInvalidBlock;
    if (!found_first_ && parents_loaded_ >= kParentsToFindFirst) return kInvalidBlock;
    try {
      load(sibling_);
    } catch (const Error&) {
      // A parent that cannot be read (or is not a level-1 page any more) only ends the
      // prediction; the scan's own reads report real damage on the pages it needs.
      sibling_ = kInvalidBlock;
      return kInvalidBlock;
    }
  }
}

void LeafSource::load(BlockNumber block) {
  PageGuard guard = tree_->read_node(block, 1, PageLock::kShared, counters_);
  ++parents_loaded_;
  const char* page = guard.data();
  const TupleLayout& layout = tree_->layout();
  const int first = bt_first_data(page);
  const int max = page_max_offset(page);
  const BtSpecial* special = bt_special(page);
  downlinks_.clear();
  pos_ = 0;
  // Item `off` holds the downlink of the child whose keys are >= its pivot (the first
  // item is minus infinity: its bound is the parent's low key).
  if (direction_ == ScanDirection::kForward) {
    for (int off = first; off <= max; ++off) {
      TupleView pivot = tuple_at(page, OffsetNumber(off));
      if (off > first && stop_ && compare(layout, *stop_, pivot) <= 0) {
        past_bound_ = true;  // that child and all after it hold only keys >= the bound
        break;
      }
      downlinks_.push_back(pivot.downlink());
    }
    // Every key right of this parent is >= its high key.
    if (!bt_rightmost(page) && stop_ &&
        compare(layout, *stop_, tuple_at(page, kHighKeyOffset)) <= 0)
      past_bound_ = true;
    sibling_ = special->next;
  } else {
    for (int off = max; off >= first; --off) {
      TupleView pivot = tuple_at(page, OffsetNumber(off));
      downlinks_.push_back(pivot.downlink());
      if (off > first && stop_ && compare(layout, *stop_, pivot) >= 0) {
        past_bound_ = true;  // this child holds the bound; those left of it only smaller keys
        break;
      }
    }
    sibling_ = special->prev;
  }
}

}  // namespace tp::btree
