#include "engine/btree/btree_scan.h"

#include <array>

namespace tp::btree {

const char* scan_state_name(ScanState state) {
  switch (state) {
    case ScanState::kInitial:
      return "initial";
    case ScanState::kReading:
      return "reading";
    case ScanState::kDone:
      return "done";
  }
  return "?";
}

namespace {

// A value (or NULL) against a bound's value, NULLs last.
int compare_to_bound(const TupleLayout& layout, int col, bool null, Datum v, const Bound& b) {
  if (null || b.null) return null == b.null ? 0 : (null ? 1 : -1);
  return layout.compare_values(col, v, b.value);
}

// Keeps in `a` the tighter of two lower (or upper) bounds on column `col`. In place:
// a rescan per outer row of a Nested Loop does this, and optionals passed by value
// cost store-forwarding stalls there.
void tighten(const TupleLayout& layout, int col, std::optional<Bound>& a,
             const std::optional<Bound>& b, bool lower) {
  if (!b) return;
  if (!a) {
    a = b;
    return;
  }
  const int c = compare_to_bound(layout, col, a->null, a->value, *b);
  if (c == 0)
    a->inclusive = a->inclusive && b->inclusive;
  else if ((c > 0) != lower)
    a = b;
}

bool is_equality(const TupleLayout& layout, const ColumnCondition& c) {
  return c.lower && c.upper && c.lower->inclusive && c.upper->inclusive &&
         compare_to_bound(layout, c.column, c.lower->null, c.lower->value, *c.upper) == 0;
}

void push_bound(KeyValues& key, const Bound& b) {
  if (b.null)
    key.push_null();
  else
    key.push(b.value);
}

// Copies a leaf item's entries into the batch: one, or a posting list's TIDs, each
// with the key (by-reference values copied into the batch). A posting list's TIDs come
// in ascending order in either direction, as nbtree's backward scan returns them.
void append_item(const TupleLayout& layout, TupleView item, IndexBatch& batch) {
  const int n = item.heap_tid_count();
  const KeyValues key = item.key(layout);
  for (int k = 0; k < n; ++k) {
    batch.tids.push_back(item.is_posting() ? item.posting_tid(k) : item.tid());
    batch.append_key(layout, key);
  }
}

}  // namespace

IndexScan::IndexScan(const BTree& tree, std::vector<ColumnCondition> conditions,
                     ScanDirection direction, bool leaf_readahead)
    : tree_(&tree), direction_(direction), leaf_readahead_(leaf_readahead) {
  rescan(conditions);
}

IndexScan::~IndexScan() {
  leaf_stream_.reset();
}

void IndexScan::set_state(ScanState next) {
  bool legal = next == ScanState::kInitial ||
               (state_ == ScanState::kInitial && next != ScanState::kInitial) ||
               (state_ == ScanState::kReading && next == ScanState::kDone);
  TP_ASSERT(legal);
  state_ = next;
}

void IndexScan::rescan(const std::vector<ColumnCondition>& conditions) {
  const int ncols = tree_->layout().ncols;
  if (conditions_.size() != size_t(ncols)) {
    conditions_.assign(size_t(ncols), ColumnCondition{});
    for (int i = 0; i < ncols; ++i) conditions_[size_t(i)].column = i;
  } else {
    for (ColumnCondition& c : conditions_) {
      c.lower.reset();
      c.upper.reset();
    }
  }
  unsatisfiable_ = false;
  std::array<bool, kMaxKeyColumns> searches_null{}, compares{};  // no allocation per rescan
  for (const ColumnCondition& c : conditions) {
    if (c.column < 0 || c.column >= ncols)
      throw Error("index \"" + tree_->def().name + "\" has no key column " +
                  std::to_string(c.column + 1) + " (it has " + std::to_string(ncols) + ")");
    // IS NULL (whose lower bound is the place of NULLs) and a comparison with a value on
    // one column match nothing, as _bt_preprocess_keys finds.
    const auto col = size_t(c.column);
    searches_null[col] = searches_null[col] || (c.lower && c.lower->null);
    compares[col] = compares[col] || (c.lower && !c.lower->null) || (c.upper && !c.upper->null);
    unsatisfiable_ = unsatisfiable_ || (searches_null[col] && compares[col]);
    ColumnCondition& merged = conditions_[size_t(c.column)];
    tighten(tree_->layout(), c.column, merged.lower, c.lower, true);
    tighten(tree_->layout(), c.column, merged.upper, c.upper, false);
  }
  derive_bounds();
  drop_leaf_stream(false);
  stream_refused_ = false;
  descent_parent_ = kInvalidBlock;
  next_block_ = kInvalidBlock;
  came_from_ = kInvalidBlock;
  leaves_walked_ = 0;
  set_state(ScanState::kInitial);
}

void IndexScan::derive_bounds() {
  // Equalities on leading columns extend both bounds; the first other column
  // contributes its own lower / upper bound and ends them.
  lower_.key = KeyValues{};
  lower_.tid = Tid{};
  lower_.has_tid = false;
  lower_.after = false;
  Probe& upper = upper_.emplace();
  bool has_upper = false;
  for (const ColumnCondition& c : conditions_) {
    if (is_equality(tree_->layout(), c)) {
      push_bound(lower_.key, *c.lower);
      push_bound(upper.key, *c.upper);
      upper.after = true;
      has_upper = true;
      continue;
    }
    if (c.lower) {
      push_bound(lower_.key, *c.lower);
      lower_.after = !c.lower->inclusive;
    }
    if (c.upper) {
      push_bound(upper.key, *c.upper);
      upper.after = c.upper->inclusive;
      has_upper = true;
    }
    break;
  }
  if (!has_upper) upper_.reset();
}

bool IndexScan::passes_filters(TupleView item) const {
  const TupleLayout& layout = tree_->layout();
  for (const ColumnCondition& c : conditions_) {
    if (!c.lower && !c.upper) continue;
    const bool null = item.is_null(c.column);
    // A comparison with a value never holds for NULL, though NULL sorts above them all.
    if (null && ((c.lower && !c.lower->null) || (c.upper && !c.upper->null))) return false;
    const Datum v = null ? 0 : item.value(layout, c.column);
    if (c.lower) {
      const int cmp = compare_to_bound(layout, c.column, null, v, *c.lower);
      if (c.lower->inclusive ? cmp < 0 : cmp <= 0) return false;
    }
    if (c.upper) {
      const int cmp = compare_to_bound(layout, c.column, null, v, *c.upper);
      if (c.upper->inclusive ? cmp > 0 : cmp >= 0) return false;
    }
  }
  return true;
}

bool IndexScan::read_page(const char* page, OffsetNumber off, IndexBatch& batch) {
  const TupleLayout& layout = tree_->layout();
  const OffsetNumber max = page_max_offset(page);
  for (; off <= max; ++off) {
    TupleView item = tuple_at(page, off);
    if (upper_ && compare(layout, *upper_, item) <= 0) return true;
    if (!passes_filters(item)) continue;
    append_item(layout, item, batch);
  }
  if (bt_rightmost(page)) return true;
  // Every item right of the high key is >= it: if the high key is already
  // past the upper bound, so is everything to the right.
  if (upper_ && compare(layout, *upper_, tuple_at(page, kHighKeyOffset)) <= 0) return true;
  next_block_ = bt_special(page)->next;
  return false;
}

bool IndexScan::read_page_backward(const char* page, int off, IndexBatch& batch) {
  const TupleLayout& layout = tree_->layout();
  for (const int first = bt_first_data(page); off >= first; --off) {
    TupleView item = tuple_at(page, OffsetNumber(off));
    if (compare(layout, lower_, item) > 0) return true;  // below the lower bound
    if (!passes_filters(item)) continue;
    append_item(layout, item, batch);
  }
  const BtSpecial* special = bt_special(page);
  if (special->prev == kInvalidBlock) return true;
  next_block_ = special->prev;
  return false;
}

PageGuard IndexScan::read_left_leaf() {
  PageGuard guard = read_next_leaf();
  // If the left neighbour split since came_from_ was read, its right half now
  // sits in between: walk right to the page that links to came_from_. The
  // stream's order no longer holds there (it goes on leftwards): drop it.
  if (bt_special(guard.data())->next != came_from_ && leaf_stream_) drop_leaf_stream(true);
  while (bt_special(guard.data())->next != came_from_) {
    next_block_ = bt_special(guard.data())->next;
    if (next_block_ == kInvalidBlock)
      throw Error("index \"" + tree_->def().name + "\" contains a corrupted page at block " +
                      std::to_string(came_from_),
                  "Its left link does not lead to a page that links back to it.",
                  "Please REINDEX it.")
          .with_sqlstate(sqlstate::kIndexCorrupted);
    guard.release();
    guard = read_next_leaf();
  }
  return guard;
}

PageGuard IndexScan::read_next_leaf() {
  // Each leaf is visited once (keys only move right), so a walk longer than
  // the relation can only be a right-link cycle in a corrupt index.
  if (++leaves_walked_ > tree_->store().nblocks())
    throw Error("index \"" + tree_->def().name + "\" contains a corrupted page at block " +
                    std::to_string(next_block_),
                "Its leaf right links form a cycle.", "Please REINDEX it.")
        .with_sqlstate(sqlstate::kIndexCorrupted);
  // Read-ahead starts only after kLeafStreamStartSteps steps: a scan that ends within a
  // leaf or two (a point lookup, LIMIT 1, a narrow range) never pays for a parent read
  // or a stream, and one that got this far is likely to walk many more.
  if (!leaf_stream_ && leaf_readahead_ && !stream_refused_ &&
      leaves_walked_ > kLeafStreamStartSteps && descent_parent_ != kInvalidBlock)
    start_leaf_stream();
  if (leaf_stream_) {
    PageGuard guard = take_streamed_leaf();
    if (guard.valid()) return guard;
  }
  return tree_->read_node(next_block_, 0, PageLock::kShared, &counters_);
}

void IndexScan::start_leaf_stream() {
  std::optional<Probe> stop = upper_;
  if (direction_ == ScanDirection::kBackward)
    stop = lower_.key.n > 0 ? std::optional<Probe>(lower_) : std::nullopt;
  leaf_source_ = std::make_unique<LeafSource>(*tree_, direction_, descent_parent_, next_block_,
                                              stop, &counters_);
  leaf_stream_ = tree_->store().open_stream([src = leaf_source_.get()] { return src->next(); });
  ++readahead_.streams;
}

PageGuard IndexScan::take_streamed_leaf() {
  PageGuard guard = leaf_stream_->next();
  // The stream is a prediction from a copy of the parent: the leaf the right (left)
  // link names is the truth. Anything else (a split put a new leaf in between, the
  // source gave up) ends read-ahead for this scan; the caller reads the leaf itself.
  if (!guard.valid() || guard.block() != next_block_) {
    if (guard.valid()) ++readahead_.mismatches;
    guard.release();
    drop_leaf_stream(true);
    return guard;
  }
  tree_->check_node(guard, 0, &counters_);
  return guard;
}

void IndexScan::drop_leaf_stream(bool mismatch) {
  if (leaf_stream_) readahead_.io += leaf_stream_->counters();
  leaf_stream_.reset();
  leaf_source_.reset();
  if (mismatch) stream_refused_ = true;
}

LeafReadaheadStats IndexScan::leaf_readahead_stats() const {
  LeafReadaheadStats s = readahead_;
  if (leaf_stream_) s.io += leaf_stream_->counters();
  return s;
}

bool IndexScan::next_batch(IndexBatch& batch) {
  return advance(batch, /*one_page=*/false);
}

void IndexScan::read_one_page(const LeafPosition& at, IndexBatch& batch, const HandOn& hand_on) {
  // Another participant left the scan here: take its place (the state moves on
  // from there by the usual transitions).
  state_ = at.state;
  next_block_ = at.next_block;
  came_from_ = at.came_from;
  hand_on_ = &hand_on;
  try {
    advance(batch, /*one_page=*/true);
  } catch (...) {
    hand_on_ = nullptr;
    throw;
  }
  // No page was read (the descent found none): the scan ends here.
  if (hand_on_) {
    hand_on_ = nullptr;
    hand_on({state_, next_block_, came_from_});
  }
}

void IndexScan::hand_on(const PageGuard& leaf) {
  if (!hand_on_) return;
  const HandOn& give = *hand_on_;
  hand_on_ = nullptr;
  const char* page = leaf.data();
  const BtSpecial* special = bt_special(page);
  const bool forward = direction_ == ScanDirection::kForward;
  const BlockNumber next = forward ? special->next : special->prev;
  // Going right, a high key past the upper bound ends the scan at this page.
  const bool past = forward && !bt_rightmost(page) && upper_ &&
                    compare(tree_->layout(), *upper_, tuple_at(page, kHighKeyOffset)) <= 0;
  if (next == kInvalidBlock || past)
    give({ScanState::kDone, kInvalidBlock, kInvalidBlock});
  else
    give({ScanState::kReading, next, leaf.block()});
}

bool IndexScan::advance(IndexBatch& batch, bool one_page) {
  batch.clear();
  batch.ncols = tree_->layout().ncols;
  if (state_ == ScanState::kDone) return false;
  if (unsatisfiable_) {
    // IS NULL with a comparison on the same column: no entry can match, and nbtree
    // reads no page for it either.
    set_state(ScanState::kDone);
    if (hand_on_) {
      const HandOn& give = *hand_on_;
      hand_on_ = nullptr;
      give({ScanState::kDone, kInvalidBlock, kInvalidBlock});
    }
    return false;
  }
  if (direction_ == ScanDirection::kBackward) return advance_backward(batch, one_page);

  PageGuard guard;
  OffsetNumber off;
  if (state_ == ScanState::kInitial) {
    guard = tree_->descend(lower_, PageLock::kShared, nullptr, &counters_, &descent_parent_);
    if (!guard.valid()) {
      set_state(ScanState::kDone);
      return false;
    }
    set_state(ScanState::kReading);
    off = tree_->leaf_search(guard.data(), lower_);
  } else {
    guard = read_next_leaf();
    off = bt_first_data(guard.data());
  }
  hand_on(guard);
  for (;;) {
    batch.leaf_block = guard.block();
    bool ended = read_page(guard.data(), off, batch);
    guard.release();
    if (ended) {
      set_state(ScanState::kDone);
      counters_.items_returned += batch.size();
      return !batch.empty();
    }
    if (!batch.empty() || one_page) {
      counters_.items_returned += batch.size();
      return !batch.empty();
    }
    // Nothing matched on this page (filters, or an empty page): keep walking.
    guard = read_next_leaf();
    off = bt_first_data(guard.data());
  }
}

// The backward twin of the loop above: start just below the upper bound,
// walk left, stop below the lower bound.
bool IndexScan::advance_backward(IndexBatch& batch, bool one_page) {
  PageGuard guard;
  int off;
  if (state_ == ScanState::kInitial) {
    // Without an upper bound, start after every item: at the rightmost leaf.
    Probe start = upper_ ? *upper_ : Probe{KeyValues{}, Tid{}, false, /*after=*/true};
    guard = tree_->descend(start, PageLock::kShared, nullptr, &counters_, &descent_parent_);
    if (!guard.valid()) {
      set_state(ScanState::kDone);
      return false;
    }
    set_state(ScanState::kReading);
    off = int(tree_->leaf_search(guard.data(), start)) - 1;
  } else {
    guard = read_left_leaf();
    off = page_max_offset(guard.data());
  }
  hand_on(guard);
  for (;;) {
    batch.leaf_block = guard.block();
    came_from_ = guard.block();
    bool ended = read_page_backward(guard.data(), off, batch);
    guard.release();
    if (ended || !batch.empty() || one_page) {
      if (ended) set_state(ScanState::kDone);
      counters_.items_returned += batch.size();
      return !batch.empty();
    }
    guard = read_left_leaf();
    off = page_max_offset(guard.data());
  }
}

}  // namespace tp::btree
