// Range scans that hand out one leaf page of matches at a time.
//
//   IndexScan scan(tree, {ColumnCondition::eq(0, 7), ColumnCondition::between(1, 800, 900)});
//   IndexBatch batch;
//   while (scan.next_batch(batch))          // no page is held between calls
//     for (size_t i = 0; i < batch.size(); ++i) use(batch.tids[i], batch.key(i));
//   scan.counters().index_pages_read;       // for EXPLAIN
//
// Conditions are per column (lower and/or upper bound, inclusive or not).
// The scan starts at the first item satisfying the leading columns' bounds:
// equalities on columns 0..k-1 plus the lower bound of column k (PostgreSQL's
// _bt_first). It stops at the first item past the matching upper bound. With
// no usable bound on column 0 it is a full-index scan from the leftmost leaf.
// Every condition is also checked on every item, so conditions on later
// columns (minor BETWEEN 800 AND 900 on (major, minor)) filter the items.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/btree/btree.h"
#include "engine/btree/leaf_readahead.h"

namespace tp::btree {

// A bound's value is a Datum of the column's type; a by-reference one points at bytes
// the scan's owner keeps alive while the scan runs.
// `null`: the bound is the place of NULLs, after every value (IS NULL is the range
// [NULL, NULL], IS NOT NULL the values below NULL).
struct Bound {
  Datum value;
  bool inclusive;
  bool null = false;
};

struct ColumnCondition {
  int column = 0;
  std::optional<Bound> lower;
  std::optional<Bound> upper;
  // Keeps by-reference bound values alive (the expression holding the constant).
  std::shared_ptr<const void> owner = nullptr;

  static ColumnCondition eq(int column, int64_t v) {
    return {column, Bound{v, true}, Bound{v, true}};
  }
  static ColumnCondition ge(int column, int64_t v) { return {column, Bound{v, true}, {}}; }
  static ColumnCondition gt(int column, int64_t v) { return {column, Bound{v, false}, {}}; }
  static ColumnCondition le(int column, int64_t v) { return {column, {}, Bound{v, true}}; }
  static ColumnCondition lt(int column, int64_t v) { return {column, {}, Bound{v, false}}; }
  static ColumnCondition between(int column, int64_t lo, int64_t hi) {
    return {column, Bound{lo, true}, Bound{hi, true}};
  }
  static ColumnCondition is_null(int column) {
    return {column, Bound{0, true, true}, Bound{0, true, true}};
  }
  static ColumnCondition not_null(int column) { return {column, {}, Bound{0, false, true}}; }
};

// The matches of one leaf page, copied out.
struct IndexBatch {
  BlockNumber leaf_block = kInvalidBlock;
  int ncols = 0;
  std::vector<Tid> tids;
  // ncols values per item, item after item: Datums, except that a by-reference value
  // is its offset in `ref_bytes` (key() and datum() turn it into a pointer) and a NULL
  // is 0 with its bit in `nulls`.
  std::vector<int64_t> keys;
  std::vector<uint8_t> nulls;  // per item: bit k, column k is NULL
  std::string ref_bytes;
  uint8_t ref_columns = 0;  // bit k: column k is by reference
  // Per item, filled by the consumer, not the scan: an index-only scan's answer from the
  // visibility map (1: the heap page is all-visible, the entry is answered from the index).
  std::vector<uint8_t> heap_skip;

  size_t size() const { return tids.size(); }
  bool empty() const { return tids.empty(); }
  bool is_null(size_t i, int k) const { return ((nulls[i] >> k) & 1) != 0; }
  Datum datum(size_t i, int k) const {
    const int64_t v = keys[i * size_t(ncols) + size_t(k)];
    if (((ref_columns >> k) & 1) == 0 || is_null(i, k)) return v;
    return pointer_datum(ref_bytes.data() + v);
  }
  KeyValues key(size_t i) const {
    KeyValues key;
    for (int k = 0; k < ncols; ++k) {
      if (is_null(i, k))
        key.push_null();
      else
        key.push(datum(i, k));
    }
    return key;
  }
  void append_key(const TupleLayout& layout, const KeyValues& key) {
    for (int k = 0; k < layout.ncols; ++k) {
      const AttrFormat& a = layout.attrs[size_t(k)];
      if (a.byval || key.is_null(k)) {
        keys.push_back(key[k]);
        continue;
      }
      ref_columns = uint8_t(ref_columns | (1u << k));
      keys.push_back(int64_t(ref_bytes.size()));
      const char* p = datum_pointer(key[k]);
      ref_bytes.append(p, a.len > 0 ? size_t(a.len) : varlena_size(p));
      ref_bytes.resize(maxalign(uint32_t(ref_bytes.size())));  // keeps values 8-aligned
    }
    nulls.push_back(key.nulls);
  }
  void clear() {
    tids.clear();
    keys.clear();
    nulls.clear();
    ref_bytes.clear();
    ref_columns = 0;
    leaf_block = kInvalidBlock;
  }
};

// Lifecycle of a scan: Initial -(first next_batch)-> Reading -(bound or end)-> Done.
// rescan() moves any state back to Initial.
enum class ScanState : uint8_t {
  kInitial,  // not positioned yet; the first next_batch() descends
  kReading,  // positioned: the next leaf to read is remembered by block number
  kDone,     // no more matches; next_batch() returns false
};
const char* scan_state_name(ScanState state);

// Where a scan stands between two leaf pages: what a parallel scan's participants
// hand on to each other (engine/btree/parallel_scan.h).
struct LeafPosition {
  ScanState state = ScanState::kInitial;
  BlockNumber next_block = kInvalidBlock;  // the next leaf to read (kReading)
  BlockNumber came_from = kInvalidBlock;   // backward: the leaf read last
};

// Sibling steps a scan takes on its own before it starts leaf read-ahead (see
// IndexScan::read_next_leaf): a point lookup, a LIMIT 1 or a range within a couple of
// leaves never opens a stream or reads a parent page.
inline constexpr BlockNumber kLeafStreamStartSteps = 2;

// What leaf read-ahead did over a scan's life (all rescans), for EXPLAIN ANALYZE.
struct LeafReadaheadStats {
  uint64_t streams = 0;     // streams started
  uint64_t mismatches = 0;  // streams dropped because a streamed block was not the next leaf
  StreamCounters io;        // summed over the streams
  LeafReadaheadStats& operator+=(const LeafReadaheadStats& o) {
    streams += o.streams;
    mismatches += o.mismatches;
    io += o.io;
    return *this;
  }
};

class IndexScan {
 public:
  // Throws tp::Error for a condition on a column the index does not have.
  // A backward scan returns the same items in descending order.
  // `leaf_readahead`: read leaves through a stream once the scan has taken
  // kLeafStreamStartSteps sibling steps (the setting index_leaf_readahead).
  IndexScan(const BTree& tree, std::vector<ColumnCondition> conditions,
            ScanDirection direction = ScanDirection::kForward, bool leaf_readahead = false);
  ~IndexScan();
  IndexScan(const IndexScan&) = delete;
  IndexScan& operator=(const IndexScan&) = delete;

  // Replaces `batch` with the matches of the next leaf page that has any
  // (in scan order). Returns false (batch empty) when the scan is over.
  bool next_batch(IndexBatch& batch);

  // Starts over with new conditions, same direction; counters keep accumulating.
  void rescan(const std::vector<ColumnCondition>& conditions);

  // A parallel scan's step (engine/btree/parallel_scan.h): reads exactly the one leaf
  // page at `at` (descending first when the scan is at its start) and replaces `batch`
  // with its matches (perhaps none). `hand_on` gets the position after that page as
  // soon as the page is read and before its matches are copied, as nbtree releases the
  // scan to the next participant (a page whose high key is past the upper bound hands on
  // the end). A scan used this way should not read leaves ahead (leaf_readahead false):
  // other participants read the pages in between.
  using HandOn = std::function<void(const LeafPosition&)>;
  void read_one_page(const LeafPosition& at, IndexBatch& batch, const HandOn& hand_on);

  ScanDirection direction() const { return direction_; }

  ScanState state() const { return state_; }
  const ScanCounters& counters() const { return counters_; }
  // Leaf read-ahead so far; streams == 0 if it never started.
  LeafReadaheadStats leaf_readahead_stats() const;
  // True when no bound limits the start: the scan reads the whole leaf level
  // from the left (until an upper bound stops it).
  bool full_index_scan() const { return lower_.key.n == 0; }

 private:
  void set_state(ScanState next);
  void derive_bounds();
  bool passes_filters(TupleView item) const;
  // Copies matches from `page` starting at `off`; true if the scan ended there.
  bool read_page(const char* page, OffsetNumber off, IndexBatch& batch);
  // Backward: copies matches from `off` down; true if the scan ended there.
  bool read_page_backward(const char* page, int off, IndexBatch& batch);
  // Reads next_block_; throws tp::Error when the walk must be going in circles.
  PageGuard read_next_leaf();
  // Reads the left neighbour of came_from_ (next_block_, or a page split off
  // it since, found by walking right until the right link is came_from_).
  PageGuard read_left_leaf();
  // read_one_page: the position after `leaf` to its hand_on, once.
  void hand_on(const PageGuard& leaf);
  // next_batch's walk; `one_page`: stop after one leaf page, matches or not.
  bool advance(IndexBatch& batch, bool one_page);
  bool advance_backward(IndexBatch& batch, bool one_page);
  // Leaf read-ahead: opens the stream at next_block_, or takes the streamed page.
  void start_leaf_stream();
  PageGuard take_streamed_leaf();
  // Ends the stream (keeping its counters); `mismatch`: for the rest of this scan.
  void drop_leaf_stream(bool mismatch);

  const BTree* tree_;
  std::vector<ColumnCondition> conditions_;  // merged: at most one per column
  Probe lower_;                              // items >= lower_
  std::optional<Probe> upper_;               // items < *upper_
  ScanState state_ = ScanState::kInitial;
  bool unsatisfiable_ = false;  // IS NULL and a comparison on one column
  ScanDirection direction_;
  BlockNumber next_block_ = kInvalidBlock;  // the next leaf to read, either direction
  BlockNumber came_from_ = kInvalidBlock;   // backward: the leaf read last
  BlockNumber leaves_walked_ = 0;           // sibling steps since the last rescan
  ScanCounters counters_;
  // Leaf read-ahead (engine/btree/README.md, "Leaf read-ahead").
  bool leaf_readahead_;
  bool stream_refused_ = false;                 // a mismatch: no new stream until rescan
  BlockNumber descent_parent_ = kInvalidBlock;  // level-1 page of the last descent
  std::unique_ptr<LeafSource> leaf_source_;
  std::unique_ptr<BlockStream> leaf_stream_;  // declared after its source: dies first
  LeafReadaheadStats readahead_;              // of the streams already dropped
  const HandOn* hand_on_ = nullptr;           // read_one_page's, until called
};

}  // namespace tp::btree
