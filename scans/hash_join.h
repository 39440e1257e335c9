// HashJoinNode: PostgreSQL's Hash Join (nodeHashjoin.c), single batch. Its inner child is
// a HashNode (scans/hash.h) holding the inner rows in a hash table; the outer rows probe
// it.
//
//   build    the first next(): unless unmatched inner rows are wanted, one outer batch is
//            read first, and an empty outer side ends the join without building the
//            table (PostgreSQL does so when the outer side is cheap to start, or always
//            for left and anti joins); an empty table ends an inner, semi or right join
//   probe    each outer row: NULL key -> no match; else the bucket's rows with the same
//            hash and equal keys (datums_equal per type), then the Join Filter
//   fill     right and full joins: the inner rows no outer row matched, outer NULL
//
// Match rules per type are JoinRows' (join_row.h): semi and anti stop at the first match,
// as every join does with `inner_unique`.
//
// Rescan (PostgreSQL's ExecReScanHashJoin): when the Hash's child read no changed
// parameter, the table is kept (its match flags cleared) and only the outer side starts
// over; otherwise the table is rebuilt at the next row.
//
// The outer and inner key slots must be of the same type, or both integers (int4 against
// int8 hashes and compares alike); the planner casts others (PostgreSQL's hash
// opfamilies).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scans/exec_node.h"
#include "scans/hash.h"
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

 protected:
  void do_open() override;
  void do_rescan() override;
  const RowBatch* do_next() override;

 private:
  enum class Phase : uint8_t {
    kBuild,  // the table is (re)built at the next row
    kProbe,  // outer rows probe it
    kFill,   // right / full: unmatched inner rows
    kDone,
  };
  // Builds the table; false when the join has no row (an empty side that decides it).
  bool build();
  // Takes the next outer row; false at the outer's end.
  bool next_outer_row(RowRef& row);
  bool keys_equal(RowRef outer, uint32_t inner_row) const;
  void probe(uint32_t limit);
  void fill(uint32_t limit);

  std::unique_ptr<ExecNode> outer_;
  std::unique_ptr<HashNode> hash_;
  JoinRows rows_;
  std::vector<uint32_t> outer_keys_;
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
  uint32_t chain_ = HashNode::kNoRow;   // the next row of its bucket to look at
  std::vector<uint8_t> inner_matched_;  // right / full: per stored inner row
  uint32_t fill_at_ = 0;
  JoinCancelCheck cancel_;
  RowBatch batch_;
};

}  // namespace tp::scans
