// HashNode: PostgreSQL's Hash (nodeHash.c), the inner side of a Hash Join read into an
// in-memory hash table keyed by some of its slots. It returns no rows: its Hash Join
// builds it (open(), or rescan() when the rows must be read again) and probes it.
//
//   rows_     the current batch's rows (by-reference bytes copied into its arena), with
//             room reserved at the build's first batch for the planner's row estimate
//             (at most max_bytes of slots), not grown by doubling
//   hashes_   each row's hash of its key slots (hash_slots: hash_datum per type)
//   buckets_  a power of two of chain heads; next_ links the rows of one bucket
//
// A row with a NULL key can never match (the join's = is strict), so it is not stored,
// unless the join returns unmatched inner rows (right and full joins: `keep_nulls`),
// when it is stored, in any batch not yet read, but linked into no bucket.
//
// Batches (PostgreSQL's hybrid hash join). The table may hold `max_bytes` (work_mem x
// hash_mem_multiplier, the caller's). Rows are split into `nbatch` batches (a power of
// two) by their hash: the bucket is the hash's low bits, the batch bits 32 and up
// (ExecHashGetBucketAndBatch rotates the hash instead, as its hash has 32 bits), so a
// batch's bucket count can change without moving any row to another batch. Batch 0 is
// built in memory while the child is read; a later batch's rows go to its temporary file
// (scans/hash_batches.h) and are loaded, into a fresh table, when the join gets to it
// (load_batch). The count starts at the planner's `planned_batches` and doubles whenever
// the batch in memory outgrows max_bytes (ExecHashIncreaseNumBatches): its rows of the
// new upper half go to their files. A doubling that moves no row, or every row (a batch
// of one hash value), cannot help and stops the growth for the rest of the join, as in
// PostgreSQL: the batch then stays in memory beyond max_bytes. So does one past
// kMaxBatches, which bounds the open files and their write buffers.
//
// Without a temporary file space (null) there is one batch and the limit is an error
// naming it. Files go with the node, at release_batches() (the join calls it on error,
// cancel, rescan and shutdown) and as each batch is loaded.
//
// As PostgreSQL's table does, the bucket array grows (doubling from the planned count)
// until there is a bucket per row, per batch; EXPLAIN ANALYZE's line says
// "Buckets: N (originally M)  Batches: N (originally M)" when either changed, the largest
// figures of every build (ExecHashAccumInstrumentation).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/hash_batches.h"

namespace tp::scans {

class HashNode final : public ExecNode {
 public:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  // The most batches: 2 files each, each with an 8 kB write buffer once written.
  static constexpr uint32_t kMaxBatches = 1024;

  // `keys`: the child's slots the table is keyed by. `planned_buckets` and
  // `planned_batches` (powers of two) are the planner's (ExecChooseHashTableSize);
  // `child_params` (may be null) the parameters the child's subtree reads; `temp_space`
  // (may be null: one batch, no spilling) where later batches' files go.
  HashNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys, uint32_t planned_buckets,
           uint32_t planned_batches, uint64_t max_bytes, const ExecParams* child_params = nullptr,
           aio::TempFileSpace* temp_space = nullptr);

  std::string explain_name() const override { return "Hash"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  void rescan() override { rescan_counted(); }
  void shutdown() override;

  // Set by the Hash Join before the first build: store rows with NULL keys too.
  void set_keep_nulls(bool keep) { keep_nulls_ = keep; }
  // Whether the child's parameters changed since the table was built (chgParam).
  bool params_changed() const {
    return child_params_ != nullptr && child_params_->generation() != params_generation_;
  }

  const std::vector<uint32_t>& keys() const { return keys_; }
  const RowBatch& rows() const { return rows_; }
  const RowShape* shape() const { return rows_.shape.get(); }
  // The first row of `hash`'s bucket, and the row after `row` in its bucket.
  uint32_t bucket_head(uint64_t hash) const { return buckets_[hash & (buckets_.size() - 1)]; }
  uint32_t next_in_bucket(uint32_t row) const { return next_[row]; }
  uint64_t row_hash(uint32_t row) const { return hashes_[row]; }
  // The first row of `hash`'s bucket with that very hash (kNoRow: none), where a probe
  // starts; and a hint to fetch the bucket's memory ahead of that walk.
  uint32_t first_with_hash(uint64_t hash) const {
    if (buckets_.empty()) return kNoRow;
    uint32_t r = bucket_head(hash);
    while (r != kNoRow && hashes_[r] != hash) r = next_[r];
    return r;
  }
  void prefetch_bucket(uint64_t hash) const {
    if (!buckets_.empty()) __builtin_prefetch(&buckets_[hash & (buckets_.size() - 1)]);
  }

  // The batches of this build (PostgreSQL's nbatch, nbatch_original, curbatch).
  uint32_t nbatch() const { return nbatch_; }
  uint32_t nbatch_start() const { return nbatch_start_; }
  uint32_t current_batch() const { return curbatch_; }
  uint32_t batch_of(uint64_t hash) const { return uint32_t(hash >> 32) & (nbatch_ - 1); }
  // A kept NULL-key row's: by its own hash, but never a batch already read.
  uint32_t null_row_batch(uint64_t hash) const { return std::max(batch_of(hash), curbatch_); }
  // Rows of the child stored in any batch (PostgreSQL's totalTuples).
  uint64_t total_rows() const { return total_rows_; }
  // Whether a later batch has inner rows waiting in its file.
  bool batch_has_rows(uint32_t batch) const { return files_.has(batch); }
  aio::TempFileSpace* temp_space() const { return temp_space_; }
  // Makes batch `batch` (after the current one) the table: its file's rows, fresh buckets.
  void load_batch(uint32_t batch);
  // Removes batch `batch`'s file unread (the join need not look at it).
  void skip_batch(uint32_t batch) { files_.drop(batch); }
  // Removes every batch file; the table in memory stays.
  void release_batches() { files_.clear(); }
  // Batch files alive (loaded ones not counted), for tests.
  uint32_t batch_files() const { return files_.files(); }
  uint64_t peak_bytes() const { return peak_bytes_; }

 protected:
  // Both read the whole child into the table (PostgreSQL's MultiExecHash).
  void do_open() override;
  void do_rescan() override;
  // A Hash is never pulled from; its join reads the table.
  const RowBatch* do_next() override { return nullptr; }

 private:
  static constexpr uint32_t kNullKey = kNoRow - 1;  // next_ of a NULL-key row: no bucket

  void build();
  void reserve_rows(uint32_t width);
  void fresh_table();
  // Stores row `r` of `b` in its batch: the table or the batch's file. False for a
  // NULL-key row not kept.
  bool add_row(const RowBatch& b, uint32_t r);
  // Makes the table fit max_bytes again, by more batches while that helps.
  void make_room();
  void increase_batches();
  void link_buckets();
  uint64_t memory_bytes() const;
  void note_memory();

  std::unique_ptr<ExecNode> child_;
  std::vector<uint32_t> keys_;
  uint32_t planned_buckets_;
  uint32_t planned_batches_;
  uint64_t max_bytes_;
  const ExecParams* child_params_;
  aio::TempFileSpace* temp_space_;
  uint64_t params_generation_ = 0;
  bool keep_nulls_ = false;
  std::shared_ptr<const RowShape> shape_;  // the child's rows'
  uint32_t width_ = 0;
  RowBatch rows_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> next_;
  std::vector<uint32_t> buckets_;
  uint32_t nbatch_ = 1;
  uint32_t nbatch_start_ = 1;
  uint32_t curbatch_ = 0;
  bool growth_enabled_ = true;  // PostgreSQL's growEnabled
  uint64_t total_rows_ = 0;
  uint64_t null_rows_ = 0;  // kept NULL-key rows placed: their hashes' counter
  HashBatchFiles files_;    // the inner rows of later batches
  bool built_ = false;
  // EXPLAIN's figures: the largest of every build.
  uint32_t shown_buckets_ = 0;
  uint32_t shown_batches_ = 0;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // memory_bytes(), for the session's figure
};

}  // namespace tp::scans
