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
//   rows.start_batch(batch_, limit);
//   rows.set_outer(outer_batch->ref(i));
//   rows.set_inner(inner_batch->ref(j));
//   if (rows.filter_passes(removed)) rows.emit(batch_);   // values referenced, not copied
//   rows.keep_outer_refs(batch_);                         // before outer->next()
//
// Output rows reference their children's memory. An output row's by-reference value
// (text, numeric) points where the child's row does: the child's batch, a Hash's table,
// a Merge Join's group. The join owns none of those bytes but they live until it reads
// that child again, or replaces the table or group, which it does only inside its own
// next(). So the rule: before a join changes the memory of one side (child->next(),
// rescan, a new hash batch or merge group), it calls keep_outer_refs / keep_inner_refs,
// which copy the bytes of that side's values in the rows it has emitted so far into
// the output batch's arena. The batch handed up is then valid until the join's next
// call, as every node's is. Values of a side whose memory stays put while the batch
// fills (a Hash's table, a Merge Join's group) are mostly never copied; an outer side's
// are copied about once, as before, since an output batch spans several outer batches;
// a side with no by-reference output slot costs nothing to keep.
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

  void set_outer(RowRef r) { set_side(0, r); }
  void set_inner(RowRef r) { set_side(1, r); }
  void set_outer_null() { set_side_null(0); }
  void set_inner_null() { set_side_null(1); }
  // The join filter over the current pair (true without one); a rejected pair counts in
  // `removed` (EXPLAIN's Rows Removed by Join Filter).
  bool filter_passes(uint64_t& removed);
  // Appends the output row of the current pair to `out` (room for it reserved by
  // start_batch) if it passes the plan qual; by-reference values point at the
  // children's bytes (see above).
  void emit(RowBatch& out) {
    if (spec_.qual && !qual_passes()) return;
    Datum* v = out.row(out.count);
    const uint32_t* slot = spec_.output.data();
    for (size_t k = 0, n = spec_.output.size(); k < n; ++k) v[k] = values_[slot[k]];
    if (null_sides_ != 0 || out.has_nulls) emit_null_flags(out);
    ++out.count;
  }
  // Rows the plan qual rejected, over every loop (EXPLAIN's Rows Removed by Filter).
  uint64_t qual_removed() const { return qual_removed_; }
  // Empties `out` for a new batch of up to `rows` rows of this join's output.
  void start_batch(RowBatch& out, uint32_t rows);
  // The outer (inner) side's memory is about to change: the rows emitted into `out`
  // so far take copies of their by-reference values from that side.
  void keep_outer_refs(RowBatch& out) { keep_refs(out, 0); }
  void keep_inner_refs(RowBatch& out) { keep_refs(out, 1); }

 private:
  // An output slot holding a by-reference value of one side.
  struct RefSlot {
    uint32_t slot;
    int16_t typlen;
  };
  void set_side(int side, RowRef r);
  void set_side_null(int side);
  void emit_null_flags(RowBatch& out);
  bool qual_passes();
  void keep_refs(RowBatch& out, int side);

  JoinSpec spec_;
  uint32_t outer_width_;
  uint32_t inner_width_;
  std::shared_ptr<const RowShape> shape_;  // the output row's
  std::vector<RefSlot> ref_slots_[2];      // outer's, inner's by-reference output slots
  uint32_t kept_[2] = {0, 0};              // rows of the batch that own their side's bytes
  uint8_t null_sides_ = 0;                 // bit 0: the outer row has a NULL, bit 1: inner
  std::vector<Datum> values_;              // the combined row
  std::unique_ptr<bool[]> nulls_;          // its NULL flags, as the evaluator reads them
  ValueArena eval_arena_;                  // the filter's by-reference intermediates
  EvalState eval_{&eval_arena_, 0};
  uint64_t qual_removed_ = 0;
};

// Equality of a join's key pairs (a Hash Join's outer row against a stored inner row),
// chosen once per node from the keys' types rather than per row: when every key is an
// integer type (int4, int8, date, ...: the common join on ids) the Datums are compared
// inline; otherwise each key through the function picked for its type (text and
// varchar by their bytes, the rest by compare_datums). Both sides' keys are of the same
// type, or both integers (the planner casts others).
class KeyEquality {
 public:
  explicit KeyEquality(const std::vector<TypeId>& types);

  // Whether a[a_slots[k]] = b[b_slots[k]] for every key k, none NULL.
  bool operator()(const Datum* a, const uint32_t* a_slots, const Datum* b,
                  const uint32_t* b_slots) const {
    if (integral_) {
      for (size_t k = 0; k < types_.size(); ++k)
        if (a[a_slots[k]] != b[b_slots[k]]) return false;
      return true;
    }
    for (size_t k = 0; k < types_.size(); ++k)
      if (!equal_[k](types_[k], a[a_slots[k]], b[b_slots[k]])) return false;
    return true;
  }

 private:
  using Equal = bool (*)(TypeId, Datum, Datum);
  std::vector<TypeId> types_;
  std::vector<Equal> equal_;
  bool integral_ = true;
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
