// MemoizeNode: PostgreSQL 15's Memoize (nodeMemoize.c). It sits on the inner side of a
// Nested Loop above a parameterized scan and keeps, per value of the scan's parameters
// (the cache key), the rows the scan returned, so that an outer row whose key was seen
// before is answered without running the scan again.
//
//   rescan: key = the key parameters' current values
//     complete entry for key      hit: its rows, in batches; the child is not touched
//     else                        miss: the child rescanned; each of its rows returned
//                                 and appended to the entry; complete at the child's end
//                                 (with `singlerow`: after its first row)
//
// An entry whose scan the parent stopped early (a semi join's first match) stays
// incomplete: the next lookup of its key is a miss that empties and refills it, since
// the scan need not return its rows in the same order again.
//
// Keys are equal when every parameter is, NULL equal to NULL (PostgreSQL's cache
// compares with the type's equality, NULLs as equal: a NULL key's empty result is
// cached too). `binary_mode` compares the values' bytes instead (numeric 1.0 and 1.00
// are then two keys): the planner's choice where the key reaches more than an equality
// (PostgreSQL's for a LATERAL reference), as two equal values may then give other rows.
//
// Memory: every entry counts its key, its rows (slots, NULL flags, by-reference bytes)
// and a fixed overhead. When the total passes `max_bytes` (work_mem x
// hash_mem_multiplier), entries are evicted least recently used first (a lookup
// moves its entry to the list's tail; PostgreSQL's cache_reduce_memory). When the
// entry being filled is all that is left and still too big, it goes too and the rest
// of that scan passes through uncached ("Overflows").
//
//   MemoizeNode m(std::move(index_scan), &params, {0}, "t1.a", false, false, 100, 8 << 20);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/join_row.h"

namespace tp::scans {

class MemoizeNode final : public ExecNode {
 public:
  // `params`: the parameters the child reads, set by the Nested Loop above; the key is
  // params[key_params[i]]. `key_text` is EXPLAIN's "Cache Key" ("t1.a, t1.b").
  // `singlerow`: the planner proved at most one inner row per key. `est_entries`: the
  // planner's estimate of the distinct keys (0: none), sizing the hash table.
  // `upper_params`: parameters of enclosing loops the child also reads (not in the key);
  // when one of them was set since the last lookup, every entry is dropped (PostgreSQL
  // purges the cache when a parameter outside keyparamids changed).
  MemoizeNode(std::unique_ptr<ExecNode> child, const ExecParams* params,
              std::vector<size_t> key_params, std::string key_text, bool binary_mode,
              bool singlerow, uint32_t est_entries, uint64_t max_bytes,
              std::vector<const ExecParams*> upper_params = {});
  ~MemoizeNode() override;

  std::string explain_name() const override { return "Memoize"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  void rescan() override { rescan_counted(); }

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }
  uint64_t overflows() const { return overflows_; }
  uint64_t memory_used() const { return mem_used_; }
  uint64_t peak_bytes() const { return mem_peak_; }
  size_t cached_entries() const { return live_; }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  struct Slot;
  struct Entry;
  static constexpr uint32_t kNone = UINT32_MAX;
  enum class State : uint8_t { kEnd, kHit, kFilling, kBypass };

  // Looks the current key up and starts the scan: a hit, or a miss that runs the child.
  void lookup();
  void read_probe();
  uint64_t probe_hash() const;
  bool probe_equals(uint32_t i) const;
  uint32_t find_entry(uint64_t hash) const;
  uint32_t new_entry(uint64_t hash);
  void chain_push(uint32_t i);
  void grow_buckets();
  void lru_unlink(uint32_t i);
  void lru_push_tail(uint32_t i);
  void remove_entry(uint32_t i);
  void purge_rows(Entry& e);
  void purge_all();
  static uint64_t entry_overhead();
  uint64_t entry_bytes(const Entry& e) const;
  // Recounts entry i's bytes into the total; evicts (LRU first) while the total is over
  // max_bytes. False when entry i itself had to go.
  bool account(uint32_t i);
  // Appends rows [first, first + n) of `b` to the entry being filled; false when it was
  // evicted for want of room (the scan then passes through).
  bool store(const RowBatch& b, uint32_t first, uint32_t n);
  const RowBatch* next_filling();
  const RowBatch* next_cached();
  void publish_memory();

  std::unique_ptr<ExecNode> child_;
  const ExecParams* params_;
  std::vector<size_t> key_params_;
  std::string key_text_;
  bool binary_mode_;
  bool singlerow_;
  uint32_t est_entries_;
  uint64_t max_bytes_;
  std::vector<const ExecParams*> upper_params_;
  std::vector<uint64_t> upper_generations_;  // theirs at the last lookup
  std::vector<int16_t> key_typlen_;          // per key: 0 by value, else the type's length
  bool child_started_ = false;               // opened once; later misses rescan it

  // The cache: entries in a slab (freed slots reused, with their storage when small),
  // chained from a power-of-two bucket array, and linked in LRU order (head: least
  // recently used). An entry's chain and LRU links (slots_) and key (keys_, key_nulls_:
  // key_params_.size() per entry) sit in dense arrays apart from its rows (entries_), so
  // that a lookup and an eviction touch a few cache lines.
  std::vector<Slot> slots_;
  std::vector<Datum> keys_;
  std::vector<uint8_t> key_nulls_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> buckets_;
  size_t live_ = 0;
  uint32_t lru_head_ = kNone;
  uint32_t lru_tail_ = kNone;

  // The key being looked up: the parameters' values (by-reference ones point into the
  // parameters' arena, valid until the next set, i.e. through this lookup).
  std::vector<Datum> probe_;
  std::vector<uint8_t> probe_nulls_;

  // The current scan.
  State state_ = State::kEnd;
  uint32_t current_ = kNone;               // the entry being returned or filled (kNone: none)
  uint32_t read_at_ = 0;                   // a hit's next row
  bool extra_row_ = false;                 // singlerow: the child's batch had rows past the first
  std::shared_ptr<const RowShape> shape_;  // the child's rows'
  uint32_t width_ = 0;

  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
  uint64_t overflows_ = 0;
  uint64_t mem_used_ = 0;
  uint64_t mem_peak_ = 0;
  JoinCancelCheck cancel_;
  TrackedMemory memory_{MemoryPart::kExecutor};
  RowBatch batch_;  // a hit's rows, or a singlerow scan's first row
};

}  // namespace tp::scans
