// HashJoinNode: PostgreSQL's Hash Join (nodeHashjoin.c), hybrid: its inner child is a
// HashNode (scans/hash.h) holding the inner rows of one batch in a hash table, the rest in
// a temporary file per batch; the outer rows probe it, batch by batch.
//
//   build    the first next(): unless unmatched inner rows are wanted, one outer batch is
//            read first, and an empty outer side ends the join without building the
//            table (PostgreSQL does so when the outer side is cheap to start, or always
//            for left and anti joins); no inner row at all ends an inner, semi or right
//            join
//   probe    each outer row: NULL key -> no match (returned at once by a left, full or
//            anti join, never spilled); a row of a later batch -> that batch's outer
//            file; else the bucket's rows with the same hash and equal keys (KeyEquality,
//            chosen by the key types once), then the Join Filter
//   fill     right and full joins: the batch's inner rows no outer row matched, outer NULL
//   next     batch b + 1 (ExecHashJoinNewBatch): its inner file becomes the table, its
//            outer file the outer rows; probe and fill again. A batch is skipped when no
//            row of it can come out: one side's file empty, the join returning no
//            unmatched rows of the other side, and nbatch unchanged since that side's
//            rows were placed (else they may have to move on to a later batch)
//
// Every row is probed or filled in exactly one batch, the one its hash gives at that
// time: nbatch only grows, and a row whose batch moved on is written to its new batch's
// file when its old batch is read, so the rows that can match always meet in one batch.
// Match rules per type are JoinRows' (join_row.h): semi and anti stop at the first match,
// as every join does with `inner_unique`.
//
// Rescan (PostgreSQL's ExecReScanHashJoin): with one batch, when the Hash's child read no
// changed parameter, the table is kept (its match flags cleared) and only the outer side
// starts over; otherwise (a multi-batch table holds only its last batch) the table is
// rebuilt at the next row.
//
// The batch files of both sides go as each batch is read, at the join's end, and at
// once when an error or cancel comes up through the join, at a rescan that rebuilds and
// at shutdown(); a later rescan then starts over.
//
// The outer and inner key slots must be of the same type, or both integers (int4 against
// int8 hashes and compares alike); the planner casts others (PostgreSQL's hash
// opfamilies).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "scans/exec_node.h"
#include "scans/hash.h"
#include "scans/hash_batches.h"
#include "scans/join_row.h"

namespace tp::scans {

class HashJoinNode final : public ExecNode {
 public:
  // `outer_keys[i]` pairs with hash->keys()[i]; `hash_cond` is EXPLAIN's "Hash Cond:".
  HashJoinNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<HashNode> hash, JoinSpec spec,
               std::vector<uint32_t> outer_keys, std::string hash_cond);

  std::string explain_name() const override { return join_node_name("Hash", rows_.spec().type); }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {outer_.get(), hash_.get()}; }
  void rescan() override { rescan_counted(); }
  // Removes a multi-batch join's files (the rows are no longer wanted).
  void shutdown() override;

  // Outer batch files alive, for tests.
  uint32_t outer_batch_files() const { return outer_files_.files(); }

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  enum class Phase : uint8_t {
    kBuild,  // the table is (re)built at the next row
    kProbe,  // outer rows probe it
    kFill,   // right / full: the batch's unmatched inner rows
    kNextBatch,
    kDone,
  };
  // Builds the table; false when the join has no row (an empty side that decides it).
  bool build();
  // Takes the next outer row; false at the outer's end.
  bool next_outer_row(RowRef& row);
  // Each row of a new outer batch: its hash and where its probe starts.
  void prepare_probes();
  void probe(uint32_t limit);
  void fill(uint32_t limit);
  // Loads the next batch that can return rows; false when none is left.
  bool next_batch();
  // Removes both sides' batch files.
  void drop_batches();

  std::unique_ptr<ExecNode> outer_;
  std::unique_ptr<HashNode> hash_;
  JoinRows rows_;
  std::vector<uint32_t> outer_keys_;
  KeyEquality key_equal_;  // outer_keys_ against the Hash's keys
  std::string hash_cond_;
  Phase phase_ = Phase::kBuild;
  bool hash_started_ = false;     // the Hash was opened once; later builds rescan it
  bool table_ready_ = false;      // the Hash holds this loop's table (kept on rescan)
  bool outer_not_empty_ = false;  // PostgreSQL's hj_OuterNotEmpty
  const RowBatch* outer_batch_ = nullptr;
  uint32_t outer_at_ = 0;
  bool outer_done_ = false;
  bool have_outer_ = false;  // an outer row is being probed
  bool matched_ = false;     // ... and some inner row passed
  uint64_t outer_hash_ = 0;
  std::vector<uint64_t> probe_hash_;    // per row of outer_batch_ (prepare_probes)
  std::vector<uint32_t> probe_start_;   // ... its first row of equal hash, or kNoRow
  uint32_t chain_ = HashNode::kNoRow;   // the next row of its bucket to look at
  std::vector<uint8_t> inner_matched_;  // right / full: per stored inner row
  uint32_t fill_at_ = 0;
  HashBatchFiles outer_files_;                 // outer rows of later batches
  std::unique_ptr<aio::TempFile> outer_file_;  // the current batch's (after batch 0)
  RowBatch outer_file_rows_;                   // one file batch of it
  uint32_t nbatch_outstart_ = 1;               // nbatch when the outer rows began
  JoinCancelCheck cancel_;
  RowBatch batch_;
};

}  // namespace tp::scans
