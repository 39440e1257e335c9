// GROUP BY's nodes (PostgreSQL's nodeAgg.c with AGG_SORTED and AGG_HASHED, nodeGroup.c):
//
//   GroupAggregate  input sorted on the keys: a group ends where the keys change, and
//                   its row goes out then (nothing held but the group's state).
//   HashAggregate   every input row into a hash table of groups, then each group's row
//                   (in no particular order). Beyond `hash_mem` bytes it spills as
//                   PostgreSQL 15's does: a row whose group is not in the table goes to
//                   a partition file (scans/row_file.h) by its hash, and each partition is
//                   read back as the input of a fresh table once the table's groups are
//                   out (recursively, with the hash's next bits). Without a temporary
//                   space it throws tp::Error beyond `max_bytes` (scans/README.md).
//   Group           a GroupAggregate without aggregates: one row per group.
//   Aggregate       no keys (HAVING without GROUP BY): one group, rows or none.
//
// Each grouped row is the keys' values, then each aggregate's result; HAVING (the
// node's Filter) reads that row and drops the groups it does not pass. The node
// accumulates states (scans/sort_limit_agg.h's AggState); turning a state into the
// aggregate's SQL value is the planner's (`finalize`), which knows the result types.
//
//   GroupAggNode n(std::move(sorted_scan), spec);   // spec.strategy = kSorted
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/session_memory.h"
#include "engine/core/typed_expr.h"
#include "scans/exec_node.h"
#include "scans/sort_limit_agg.h"

namespace tp::scans {

enum class GroupStrategy : uint8_t { kSorted, kHashed };

// The value of aggregate `agg` from its finished state, by-reference bytes in `arena`;
// sets `isnull` for SQL NULL (no input rows).
using AggFinalizer =
    std::function<Datum(size_t agg, const AggState& st, ValueArena& arena, bool& isnull)>;

struct GroupAggSpec {
  GroupStrategy strategy = GroupStrategy::kHashed;
  // kPartial: each group's row is its keys, then kPartialSlots state slots per aggregate
  // (no HAVING, nothing finalized), for a Finalize above a Gather; kFinalize: the input
  // rows are such rows (an aggregate's `slot` is its first state slot), combined.
  AggMode mode = AggMode::kSimple;
  std::vector<uint32_t> keys;  // input slots that make a group
  std::vector<AggSpec> aggs;
  AggFinalizer finalize;
  // The grouped row's slot types: the keys', then each aggregate's result's (kPartial:
  // partial_row_types).
  std::vector<TypeId> row_types;
  std::shared_ptr<const TypedExpr> having;  // over the grouped row; null: none
  std::string having_text;
  std::string group_text;      // "Group Key: b, c"'s part after the colon
  int planned_partitions = 0;  // HashAggregate: what the planner expected to spill into
  uint64_t max_bytes = 0;      // HashAggregate: the bound of the table in memory
  // HashAggregate: where groups beyond `hash_mem` bytes spill (work_mem times
  // hash_mem_multiplier); null: nowhere, the table grows to max_bytes.
  aio::TempFileSpace* temp_space = nullptr;
  uint64_t hash_mem = 0;
};

// A Partial node's row types: the keys', then each aggregate's state slots.
std::vector<TypeId> partial_row_types(std::vector<TypeId> key_types,
                                      const std::vector<AggSpec>& aggs);

class GroupAggNode final : public ExecNode {
 public:
  GroupAggNode(std::unique_ptr<ExecNode> child, GroupAggSpec spec);

  std::string explain_name() const override;
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  // The group of a row with `hash` equal to `row` on the keys, or kNoGroup.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  uint32_t find_group(uint64_t hash, RowRef row) const;
  void insert_group(uint64_t hash, uint32_t group);

  // A DISTINCT aggregate's values of the current group (sorted strategy only).
  struct DistinctValues {
    std::vector<Datum> values;
    ValueArena bytes;
  };

  void accumulate(AggState* states, const RowBatch& b, uint32_t r);
  void finish_distinct(AggState* states);
  // The grouped row of group `g` (its first input row in groups_ / its states) into
  // out_, unless HAVING drops it.
  void emit(uint32_t group_row, AggState* states);
  // A spilled partition: its file, and the pass that will read it.
  struct Partition {
    std::unique_ptr<aio::TempFile> file;
    RowBatch pending;  // rows not written yet
  };
  struct Batch {
    std::unique_ptr<aio::TempFile> file;
    int level = 0;
  };
  const RowBatch* next_input();
  void start_spill();
  bool may_spill() const;
  void spill_row(const RowBatch& b, uint32_t r, uint64_t hash);
  void flush(Partition& p);
  void next_batch();
  void read_hashed();
  const RowBatch* next_sorted();
  const RowBatch* next_hashed();
  uint64_t memory_bytes() const;

  std::unique_ptr<ExecNode> child_;
  GroupAggSpec spec_;
  std::vector<size_t> owner_;  // per aggregate, the one whose state it reads (itself)
  std::shared_ptr<const RowShape> out_shape_;
  std::shared_ptr<const RowShape> in_shape_;
  RowBatch groups_;               // each group's first input row
  std::vector<AggState> states_;  // groups_.count * aggs
  std::vector<DistinctValues> distinct_;
  // The hash table: open addressing over group numbers + 1 (0: empty), a power of two
  // at most half full; each group's hash kept beside its row.
  std::vector<uint32_t> table_;
  std::vector<uint64_t> hashes_;
  size_t emitted_ = 0;
  bool emitted_any_ = false;  // sorted: a group began (without keys, one is due anyway)
  int64_t statement_time_ = 0;
  bool input_done_ = false;
  bool filled_ = false;
  uint64_t peak_bytes_ = 0;
  std::vector<Partition> spill_;               // this pass's partitions (empty: not spilling)
  std::vector<Batch> batches_;                 // partitions waiting to be read, the last first
  std::unique_ptr<aio::TempFile> input_file_;  // the partition being read (null: the child)
  RowBatch file_batch_;
  uint32_t input_width_ = 0;
  int level_ = 0;       // this pass's depth: which bits of the hash pick a partition
  int spill_bits_ = 2;  // log2 of the partitions
  int batches_used_ = 1;
  uint64_t disk_bytes_ = 0;
  std::string scratch_;
  TrackedMemory memory_{MemoryPart::kExecutor};
  std::unique_ptr<bool[]> flags_;  // a grouped row's NULL flags as HAVING reads them
  RowBatch out_;
};

}  // namespace tp::scans
