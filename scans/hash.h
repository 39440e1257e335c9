// HashNode: PostgreSQL's Hash (nodeHash.c), the inner side of a Hash Join read into an
// in-memory hash table keyed by some of its slots. It returns no rows: its Hash Join
// builds it (open(), or rescan() when the rows must be read again) and probes it.
//
//   rows_     every stored row (by-reference bytes copied into its arena)
//   hashes_   each row's hash of its key slots (hash_slots: hash_datum per type)
//   buckets_  a power of two of chain heads; next_ links the rows of one bucket
//
// A row with a NULL key can never match (the join's = is strict), so it is not stored,
// unless the join returns unmatched inner rows (right and full joins: `keep_nulls`),
// when it is stored but linked into no bucket.
//
// One batch only. The table may hold `max_bytes` (work_mem x hash_mem_multiplier, the
// caller's); beyond that PostgreSQL splits the join into batches spilled to temporary
// files, which is not built yet: a tp::Error says so. As PostgreSQL's single-batch table
// does, the bucket array grows (doubling from the planned count) until there is a
// bucket per row, and EXPLAIN ANALYZE then says "Buckets: N (originally M)".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/session_memory.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp::scans {

class HashNode final : public ExecNode {
 public:
  static constexpr uint32_t kNoRow = UINT32_MAX;

  // `keys`: the child's slots the table is keyed by. `planned_buckets` (a power of two)
  // and `planned_batches` are the planner's (ExecChooseHashTableSize); `child_params`
  // (may be null) the parameters the child's subtree reads.
  HashNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys, uint32_t planned_buckets,
           uint32_t planned_batches, uint64_t max_bytes, const ExecParams* child_params = nullptr);

  std::string explain_name() const override { return "Hash"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  void rescan() override { rescan_counted(); }

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

 protected:
  // Both read the whole child into the table (PostgreSQL's MultiExecHash).
  void do_open() override;
  void do_rescan() override;
  // A Hash is never pulled from; its join reads the table.
  const RowBatch* do_next() override { return nullptr; }

 private:
  void build();
  void add_batch(const RowBatch& b);
  uint64_t memory_bytes() const;
  void check_memory();

  std::unique_ptr<ExecNode> child_;
  std::vector<uint32_t> keys_;
  uint32_t planned_buckets_;
  uint32_t planned_batches_;
  uint64_t max_bytes_;
  const ExecParams* child_params_;
  uint64_t params_generation_ = 0;
  bool keep_nulls_ = false;
  RowBatch rows_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> next_;
  std::vector<uint32_t> buckets_;
  bool built_ = false;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // memory_bytes(), for the session's figure
};

}  // namespace tp::scans
