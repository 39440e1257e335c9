// IndexScanNode: heap rows in B-tree order (the bitmap nodes are in bitmap_scan.h).
//
// Index Scan, index_prefetch = off: each heap block is read when the scan
// reaches it, one at a time (PostgreSQL <= 19). index_prefetch = on
// (PostgreSQL patch 4351's idea): the leaf batches the B-tree hands out sit in
// a ring (at most kMaxIndexBatches); a read stream's callback walks ahead
// through the ring yielding heap blocks (skipping a block equal to the one
// before), loads further leaf batches as it goes, and pauses when the ring is
// full; the consumer resumes it when it retires a batch. When the stream starts
// is the prefetch policy's decision (bufmgr/prefetch_policy.h, should_start): the
// default starts it after the scan switched heap blocks kPrefetchStartSwitches
// times, so a LIMIT 1 lookup reads exactly what it would without prefetch.
//
// Rescans (the inner side of a Nested Loop, once per outer row) keep the stream and
// the node's one policy object: the policy hears what the last run did (on_rescan)
// and picks the distance the stream restarts at, and may start it at once; the
// stream drops only what it read ahead for the old key. An Index Only Scan asks the
// visibility map once per leaf batch, when the batch is loaded, so the stream and
// the consumer skip the same heap pages even if a VACUUM sets bits meanwhile.
// scans/README.md draws the ring.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "engine/btree/btree_scan.h"
#include "engine/btree/parallel_scan.h"
#include "engine/core/tuple_format.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/parallel_shared.h"
#include "scans/qual.h"
#include "scans/seq_scan.h"

namespace tp::scans {

inline constexpr size_t kMaxIndexBatches = 64;
inline constexpr int kPrefetchStartSwitches = bufmgr::kDefaultStartSwitches;

// An open index: the tree plus whatever keeps its page store alive. A page store is
// one thread's (its pinned pages are held per thread): each participant of a parallel
// scan opens the index again with `reopen`.
struct IndexHandle {
  std::string name;
  std::shared_ptr<void> owner;  // the page store (engine/storage/pool_page_store.h)
  const btree::BTree* tree = nullptr;
  std::function<IndexHandle()> reopen;  // the same index over a page store of its own
};

// One B-tree scan per condition set, in order: an IN list in the index
// conditions (= ANY) becomes one set per element, as PostgreSQL's btree runs
// one primitive scan per array element.
using ConditionSets = std::vector<std::vector<btree::ColumnCondition>>;

// A Parallel Index (Only) Scan's shared state: the B-tree's leaf position, handed from
// participant to participant one leaf page at a time (engine/btree/parallel_scan.h).
class SharedIndexScan final : public ParallelShared {
 public:
  explicit SharedIndexScan(size_t condition_sets) : leaves(condition_sets) {}
  void reset(int) override { leaves.reset(); }
  btree::ParallelLeafScan leaves;
};

struct IndexScanParams {
  std::string relation;
  IndexHandle index;
  ConditionSets condition_sets;  // none: nothing matches (an empty = ANY array)
  // A parameterized scan (the inner side of a Nested Loop): at each open and rescan,
  // `key op $param` joins every condition set, the value the outer row set in `params`
  // (PostgreSQL's runtime keys); a NULL value matches nothing.
  struct RuntimeKey {
    int column = 0;  // the index key's position
    size_t param = 0;
    CmpOp op = CmpOp::kEq;  // any but <>
    // `key = ANY (ARRAY[$1, $2])`: the parameters whose values make the list (op kEq),
    // searched one condition set per distinct non-NULL value, in the key type's order.
    std::vector<size_t> array;
    std::vector<Datum> constants;  // the list's constant elements (by value, not NULL)
    TypeId type = TypeId::kInt8;
  };
  std::vector<RuntimeKey> runtime_keys;
  const ExecParams* params = nullptr;
  btree::ScanDirection direction = btree::ScanDirection::kForward;
  bufmgr::ReadStreamConfig stream;
  // Index Only Scan: the index holds every column the query needs. An entry whose heap
  // page the visibility map marks all-visible (`all_visible`, unset: none, as before
  // the first VACUUM) is answered from the index: its keys fill a tuple-shaped buffer
  // (`key_slots`: where each key column sits in a heap tuple of `tuple_size` bytes)
  // that the output and the filter read as they would the heap tuple. Every other
  // entry is fetched from the heap ("Heap Fetches" counts them).
  bool index_only = false;
  std::function<bool(BlockNumber)> all_visible;
  std::vector<OutputColumn> key_slots;
  uint32_t tuple_size = 0;
  uint16_t tuple_natts = 0;  // the buffer's header: the table's columns up to the last key
  // Keys of other types (no key_slots), and an entry with a NULL key, are formed as a
  // heap tuple instead: `null_format` holds the first tuple_natts columns' formats and
  // `key_columns` each key's column among them (the others are formed as NULL; no
  // output reads them).
  std::shared_ptr<const TupleFormat> null_format;
  std::vector<int> key_columns;
  bool prefetch = false;
  // 0: the prefetch stream starts before the first heap read (index_prefetch =
  // immediate); otherwise the prefetch policy (stream.policy) decides when
  // (index_prefetch = on; the default policy after kPrefetchStartSwitches switches).
  int prefetch_start_switches = kPrefetchStartSwitches;
  // index_leaf_readahead: the B-tree scan reads its leaves through a stream once it has
  // walked a few (engine/btree/leaf_readahead.h).
  bool leaf_readahead = false;
  TupleReader output;
  CompiledQual filter;  // quals the index cannot check
  // Parallel Index (Only) Scan: this participant reads the leaf pages it seizes from
  // the shared position (no leaf read-ahead: the pages between are others'); its heap
  // pages come through its own read stream. Null: a serial scan.
  std::shared_ptr<SharedIndexScan> parallel;
  std::string index_cond_text;
  std::string filter_text;
};

// EXPLAIN ANALYZE's line for leaf read-ahead that ran, e.g.
// "Leaf Read-ahead: ios=12 blocks=180 waits=3 distance avg=41.2" (", dropped=1" after a
// streamed block was not the leaf the scan expected).
std::string leaf_readahead_line(const btree::LeafReadaheadStats& stats);

// `sets` with `key op $param` added to each for the runtime keys' current values; none
// (nothing matches) when a value is NULL. An array key multiplies the sets by its
// values (reversed for a backward scan).
ConditionSets with_runtime_keys(const ConditionSets& sets,
                                const std::vector<IndexScanParams::RuntimeKey>& keys,
                                const ExecParams& params, bool backward = false);
// `key op $param` for the parameter's current value (not NULL).
btree::ColumnCondition runtime_condition(const IndexScanParams::RuntimeKey& k,
                                         const ExecParams& params);
// The same as with_runtime_keys into `out`, reusing its vectors (a rescan's, without
// allocating).
void set_runtime_keys(ConditionSets& out, const ConditionSets& sets,
                      const std::vector<IndexScanParams::RuntimeKey>& keys,
                      const ExecParams& params, bool backward = false);

class IndexScanNode final : public ExecNode {
 public:
  IndexScanNode(bufmgr::BufferPool& pool, aio::IoFile& heap, IndexScanParams params);
  ~IndexScanNode() override;

  std::string explain_name() const override;
  std::string explain_target() const override;
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  const bufmgr::ReadStreamStats* stream_stats() const override;

  // Nested-loop batching (scans/nest_loop_prefetch.h): appends the heap blocks this scan
  // would visit for the parameters' current values, in order, a block equal to the one
  // before once and an Index Only Scan's all-visible pages left out, at most
  // `max_blocks`, without touching the scan's own position.
  void probe_heap_blocks(std::vector<BlockNumber>& out, size_t max_blocks);
  // A parameterized scan (runtime keys), not a parallel one: what batching needs.
  bool probe_supported() const { return !params_.runtime_keys.empty() && !params_.parallel; }
  bufmgr::BufferPool& pool() { return pool_; }
  aio::IoFile& heap() { return heap_; }
  const bufmgr::ReadStreamConfig& stream_config() const { return params_.stream; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  bool load_batch();
  // runtime_sets_ for the parameters' current values (a rescan: only the runtime keys'
  // conditions are rewritten).
  void refresh_runtime_sets();
  // Parallel: the matches of the next leaf page this participant seizes that has any.
  bool load_parallel_batch(btree::IndexBatch& b);
  void retire_front_batch();
  // Starts the prefetch stream with the blocks of the items after the current one
  // (or from the current one: the block being switched to).
  void start_stream(bool include_current = false);
  BlockNumber next_prefetch_block();
  void switch_to(BlockNumber block);
  void trace_unstreamed(IoTrace& trace) const;
  // index_prefetch is on and the stream should start now (immediate, or the policy).
  bool stream_wanted() const;
  // Index Only Scan: fills the batch's heap_skip from the visibility map, one lookup
  // per run of entries on the same heap page.
  void mark_all_visible(btree::IndexBatch& b);
  // A rescan: tells the policy what the last run did and restarts the stream (if any)
  // at the distance it picks.
  void restart_for_rescan();
  // The current entry's keys laid out as a heap tuple (in index_tuple_) of `len` bytes.
  const char* tuple_from_index(const btree::IndexBatch& batch, size_t item, uint32_t& len);
  const char* formed_tuple(const btree::IndexBatch& batch, size_t item, uint32_t& len);

  bufmgr::BufferPool& pool_;
  aio::IoFile& heap_;
  IndexScanParams params_;
  std::unique_ptr<btree::IndexScan> scan_;
  btree::LeafReadaheadStats readahead_;  // of the B-tree scans of earlier loops
  size_t condition_set_ = 0;
  ConditionSets runtime_sets_;       // condition_sets with the runtime keys' current values
  bool runtime_sets_ready_ = false;  // runtime_sets_ holds every set and runtime key
  const ConditionSets& sets() const {
    return params_.runtime_keys.empty() ? params_.condition_sets : runtime_sets_;
  }
  std::deque<btree::IndexBatch> ring_;
  std::vector<btree::IndexBatch> spare_;
  bool index_done_ = false;
  size_t item_ = 0;  // consumer position in ring_.front()
  // Read-ahead position of the stream callback (ring index, item).
  size_t ahead_batch_ = 0;
  size_t ahead_item_ = 0;
  BlockNumber last_yielded_ = kInvalidBlock;
  int block_switches_ = 0;
  int heap_reads_ = 0;  // heap blocks read (not found in the pool) outside the stream
  // index_prefetch on: the policy, one for the node's life (the stream borrows it unless
  // it is the default, which the stream calls directly).
  std::unique_ptr<bufmgr::PrefetchPolicy> policy_;
  bool opened_ = false;    // do_open ran before: the next one is a rescan
  bool finished_ = false;  // this run reached the index's end
  uint64_t rescans_ = 0;
  int rescan_distance_ = 0;     // on_rescan's answer, for a stream not created yet
  bool stream_active_ = false;  // the stream serves this run (it outlives runs)
  // The look-ahead under a LIMIT (PrefetchPolicy::bounded_by_limit): entries the
  // consumer has passed, entries the stream's callback has passed, rows returned (this
  // run), and the rows the parent still wanted when do_next began; entries passed and
  // rows returned by the earlier runs of a rescanned scan.
  bool bounded_by_limit_ = false;
  uint64_t consumed_items_ = 0;
  uint64_t ahead_items_ = 0;
  uint64_t emitted_rows_ = 0;
  uint64_t earlier_items_ = 0;
  uint64_t earlier_rows_ = 0;
  uint64_t rows_wanted_ = UINT64_MAX;
  // Entries ahead of the consumer the rows still wanted may take.
  uint64_t items_needed() const;
  uint64_t run_io_blocks_ = 0;  // the stream's io_blocks and waits when this run began
  uint64_t run_waits_ = 0;
  std::vector<char> index_tuple_;
  std::vector<char> formed_tuple_;  // formed_tuple's tuple
  std::vector<Datum> formed_values_;
  std::unique_ptr<bool[]> formed_nulls_;
  BlockNumber current_block_ = kInvalidBlock;
  bufmgr::ReadGuard current_page_;
  std::unique_ptr<bufmgr::ReadStream> stream_;
  // probe_heap_blocks' own B-tree scan, condition sets and batch.
  std::unique_ptr<btree::IndexScan> probe_scan_;
  ConditionSets probe_sets_;
  btree::IndexBatch probe_batch_;
  DeformScratch scratch_;
  RowBatch batch_;
};

}  // namespace tp::scans
