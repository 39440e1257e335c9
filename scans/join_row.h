// What the three join nodes (nest_loop.h, hash_join.h, merge_join.h) share: the join
// types, the planner's description of a join's rows (`JoinSpec`), and `JoinRows`, which
// builds the combined row a join qual reads and writes output rows from it.
//
// The combined row is PostgreSQL's pair of slots (ecxt_outertuple, ecxt_innertuple)
// laid end to end: the outer child's slots, then the inner child's. The join filter
// (a TypedExpr) reads it by slot; an output row is a list of its slots. A NULL-extended
// row (a left join's unmatched outer row, a right join's unmatched inner row) has every
// slot of the missing side NULL.
//
//   JoinRows rows(spec);
//   rows.set_outer(outer_batch->ref(i));
//   rows.set_inner(inner_batch->ref(j));
//   if (rows.filter_passes()) rows.emit(batch_);     // by-reference bytes copied
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/interrupts.h"
#include "engine/core/typed_expr.h"
#include "engine/core/types.h"
#include "engine/core/value_arena.h"
#include "scans/exec_node.h"
#include "scans/row_batch.h"

namespace tp::scans {

// PostgreSQL's JoinType for the kinds its executor runs. Semi and anti joins return
// outer rows only (PostgreSQL 15 has no right semi or anti join).
enum class JoinType : uint8_t { kInner, kLeft, kRight, kFull, kSemi, kAnti };

// The EXPLAIN name of a join node: `base` ("Nested Loop", "Hash", "Merge") and the type.
// An inner Nested Loop is plain "Nested Loop"; the others add " Join".
std::string join_node_name(const char* base, JoinType type);

// Whether unmatched outer rows are returned (NULL-extended, or alone for an anti join),
// and whether unmatched inner rows are: PostgreSQL's HJ_FILL_OUTER / HJ_FILL_INNER.
inline bool fills_outer(JoinType t) {
  return t == JoinType::kLeft || t == JoinType::kFull || t == JoinType::kAnti;
}
inline bool fills_inner(JoinType t) {
  return t == JoinType::kRight || t == JoinType::kFull;
}

struct JoinSpec {
  JoinType type = JoinType::kInner;
  // The children's slot types (as their batches' shapes say; int8 for a batch without
  // one). Given by the planner so that a side that returns no row still has its types
  // for the NULLs the other side's rows are extended with.
  std::vector<TypeId> outer_types;
  std::vector<TypeId> inner_types;
  // The output row: slots of the combined row (outer's, then inner's). A semi or anti
  // join names outer slots only.
  std::vector<uint32_t> output;
  // PostgreSQL's joinqual, over the combined row: a pair of rows matches only when it is
  // true (null: no filter). EXPLAIN prints `filter_text` as "Join Filter:".
  std::shared_ptr<const TypedExpr> filter;
  std::string filter_text;
  // PostgreSQL's plan qual, over the combined row of each row the join returns (a
  // NULL-extended one too): the WHERE clauses an outer join must see done before they
  // filter. EXPLAIN prints `qual_text` as "Filter:".
  std::shared_ptr<const TypedExpr> qual;
  std::string qual_text;
  // The planner proved at most one inner row matches each outer row: the join stops
  // looking after the first (PostgreSQL's inner_unique; EXPLAIN VERBOSE's "Inner Unique").
  bool inner_unique = false;
};

// Checks for a cancel every 4,096 ticks: the join loops that run without reading a child
// batch (a long hash chain or merge group every pair of which the filter rejects) would
// otherwise only check at their next child batch.
class JoinCancelCheck {
 public:
  void tick() {
    if ((++ticks_ & 0xfff) == 0) check_for_interrupts();
  }

 private:
  uint32_t ticks_ = 0;
};

class JoinRows {
 public:
  explicit JoinRows(const JoinSpec& spec);

  const JoinSpec& spec() const { return spec_; }
  const std::shared_ptr<const RowShape>& output_shape() const { return shape_; }
  uint32_t output_width() const { return uint32_t(spec_.output.size()); }

  void set_outer(RowRef r) { set_side(0, outer_width_, r); }
  void set_inner(RowRef r) { set_side(outer_width_, inner_width_, r); }
  void set_outer_null() { set_side_null(0, outer_width_); }
  void set_inner_null() { set_side_null(outer_width_, inner_width_); }
  // The join filter over the current pair (true without one); a rejected pair counts in
  // `removed` (EXPLAIN's Rows Removed by Join Filter).
  bool filter_passes(uint64_t& removed);
  // Appends the output row of the current pair to `out` (room for it reserved by the
  // caller's reset) if it passes the plan qual; by-reference values are copied into
  // out's arena, since the children's batches change before `out` is handed up.
  void emit(RowBatch& out);
  // Rows the plan qual rejected, over every loop (EXPLAIN's Rows Removed by Filter).
  uint64_t qual_removed() const { return qual_removed_; }
  // Empties `out` for a new batch of up to `rows` rows of this join's output.
  void start_batch(RowBatch& out, uint32_t rows) const;

 private:
  void set_side(uint32_t at, uint32_t width, RowRef r);
  void set_side_null(uint32_t at, uint32_t width);

  JoinSpec spec_;
  uint32_t outer_width_;
  uint32_t inner_width_;
  std::shared_ptr<const RowShape> shape_;  // the output row's
  std::vector<int16_t> out_typlen_;        // per output slot: 0 by value, else typlen
  std::vector<Datum> values_;              // the combined row
  std::unique_ptr<bool[]> nulls_;          // its NULL flags, as the evaluator reads them
  ValueArena eval_arena_;                  // the filter's by-reference intermediates
  EvalState eval_{&eval_arena_, 0};
  uint64_t qual_removed_ = 0;
};

// A child the join reads again and again: opened the first time, rescanned after, so
// its loops count each pass and a Materialize or Hash keeps what it built.
inline void open_or_rescan(ExecNode& child, bool& started) {
  if (started) {
    child.rescan();
  } else {
    child.open();
    started = true;
  }
}

// The "Join Filter:" and "Filter:" lines and, under ANALYZE, their Rows Removed lines
// (left out when zero, as PostgreSQL's text format does).
void explain_join_filter(const JoinRows& rows, uint64_t removed, uint64_t loops, bool analyze,
                         std::vector<std::string>& lines);

}  // namespace tp::scans
