#include "scans/merge_join.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}  // namespace

MergeJoinNode::MergeJoinNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner,
                             JoinSpec spec, std::vector<MergeKey> keys, std::string merge_cond,
                             uint64_t max_bytes)
    : outer_(std::move(outer)),
      inner_(std::move(inner)),
      rows_(spec),
      keys_(std::move(keys)),
      merge_cond_(std::move(merge_cond)),
      max_bytes_(max_bytes),
      inner_shape_(std::make_shared<const RowShape>(spec.inner_types)) {
  // Integer keys of any width compare as their Datums: one type stands for them all,
  // so compare() tests one value per key instead of classifying the type per row.
  for (const MergeKey& k : keys_) {
    const TypeId t = spec.outer_types[k.outer_slot];
    key_types_.push_back(datum_is_integral(t) ? TypeId::kInt8 : t);
  }
}

void MergeJoinNode::reset_state() {
  step_ = Step::kNextOuter;
  outer_batch_ = nullptr;
  outer_done_ = false;
  inner_batch_ = nullptr;
  inner_done_ = false;
  group_.clear_rows();
  group_matched_.clear();
}

void MergeJoinNode::do_open() {
  outer_->open();
  inner_->open();
  reset_state();
}

void MergeJoinNode::do_rescan() {
  outer_->rescan();
  inner_->rescan();
  reset_state();
}

bool MergeJoinNode::null_key(RowRef r, bool outer) const {
  for (const MergeKey& k : keys_)
    if (r.is_null(outer ? k.outer_slot : k.inner_slot)) return true;
  return false;
}

int MergeJoinNode::compare(RowRef a, bool a_outer, RowRef b, bool b_outer) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    const MergeKey& k = keys_[i];
    const Datum x = a.values[a_outer ? k.outer_slot : k.inner_slot];
    const Datum y = b.values[b_outer ? k.outer_slot : k.inner_slot];
    const TypeId t = key_types_[i];
    const int c = t == TypeId::kInt8 ? (x < y ? -1 : x > y ? 1 : 0) : compare_datums(t, x, y);
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

bool MergeJoinNode::peek_inner(RowRef& row) {
  while (inner_batch_ == nullptr || inner_at_ >= inner_batch_->count) {
    if (inner_done_) return false;
    rows_.keep_inner_refs(batch_);
    inner_batch_ = inner_->next();
    inner_at_ = 0;
    if (inner_batch_ == nullptr) {
      inner_done_ = true;
      return false;
    }
  }
  row = inner_batch_->ref(inner_at_);
  return true;
}

void MergeJoinNode::load_group() {
  rows_.keep_inner_refs(batch_);
  group_.clear_rows();
  group_.shape = inner_shape_;
  RowRef r{nullptr, nullptr};
  peek_inner(r);
  group_.width = inner_batch_->width;
  group_.push(*inner_batch_, inner_at_);
  advance_inner();
  // The rows after it with the same keys; reading on may replace the inner batch, whose
  // rows the group has copied.
  while (peek_inner(r) && !null_key(r, false) && compare(r, false, group_.ref(0), false) == 0) {
    cancel_.tick();
    group_.push(*inner_batch_, inner_at_);
    advance_inner();
    const uint64_t bytes = held_bytes(group_);
    if (bytes > max_bytes_)
      throw Error("a Merge Join's group of " + std::to_string(group_.count) +
                      "+ inner rows with equal keys needs more than " +
                      std::to_string(max_bytes_ / 1024) + " kB, its in-memory limit",
                  "", "Raise work_mem, or SET enable_mergejoin = off.")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
  peak_bytes_ = std::max<uint64_t>(peak_bytes_, held_bytes(group_));
  memory_.set(group_.bytes_held());
  group_matched_.assign(group_.count, 0);
  group_at_ = 0;
}

void MergeJoinNode::emit_inner_unmatched(RowRef inner) {
  rows_.set_outer_null();
  rows_.set_inner(inner);
  rows_.emit(batch_);
  // The current outer row's slots come back for the pairs still to come.
  if (outer_row_.values != nullptr) rows_.set_outer(outer_row_);
}

void MergeJoinNode::step() {
  switch (step_) {
    case Step::kNextOuter:
      return next_outer();
    case Step::kPlace:
      return place_outer();
    case Step::kJoinGroup:
      return join_group();
    case Step::kEndOuter:
      if (!matched_ && fills_outer(rows_.spec().type)) {
        rows_.set_inner_null();
        rows_.emit(batch_);
      }
      step_ = Step::kNextOuter;
      return;
    case Step::kFlushGroup:
      while (flush_at_ < group_.count) {
        const uint32_t r = flush_at_++;
        if (group_matched_[r]) continue;
        emit_inner_unmatched(group_.ref(r));
        return;
      }
      rows_.keep_inner_refs(batch_);
      group_.clear_rows();
      step_ = after_flush_;
      return;
    case Step::kDrainInner: {
      RowRef i{nullptr, nullptr};
      if (!peek_inner(i)) {
        step_ = Step::kDone;
        return;
      }
      emit_inner_unmatched(i);
      advance_inner();
      return;
    }
    case Step::kDone:
      return;
  }
}

void MergeJoinNode::next_outer() {
  const JoinType type = rows_.spec().type;
  while (outer_batch_ == nullptr || outer_at_ >= outer_batch_->count) {
    if (!outer_done_) {
      rows_.keep_outer_refs(batch_);
      outer_batch_ = outer_->next();
      outer_at_ = 0;
      if (outer_batch_ != nullptr) continue;
      outer_done_ = true;
    }
    outer_row_ = {nullptr, nullptr};
    if (!fills_inner(type)) {
      step_ = Step::kDone;  // no inner row can be returned any more: stop reading it
    } else if (group_.count > 0) {
      flush_at_ = 0;
      after_flush_ = Step::kDrainInner;
      step_ = Step::kFlushGroup;
    } else {
      step_ = Step::kDrainInner;
    }
    return;
  }
  outer_row_ = outer_batch_->ref(outer_at_++);
  rows_.set_outer(outer_row_);
  matched_ = false;
  step_ = null_key(outer_row_, true) ? Step::kEndOuter : Step::kPlace;
}

void MergeJoinNode::place_outer() {
  const bool fill_inner = fills_inner(rows_.spec().type);
  if (group_.count > 0) {
    const int c = compare(outer_row_, true, group_.ref(0), false);
    if (c == 0) {
      group_at_ = 0;
      step_ = Step::kJoinGroup;
    } else if (c < 0) {
      step_ = Step::kEndOuter;  // the group waits for a later outer row
    } else if (fill_inner) {
      flush_at_ = 0;
      after_flush_ = Step::kPlace;
      step_ = Step::kFlushGroup;
    } else {
      rows_.keep_inner_refs(batch_);
      group_.clear_rows();
    }
    return;
  }
  RowRef i{nullptr, nullptr};
  if (!peek_inner(i)) {
    // No inner row is left: unless unmatched outer rows are returned, the join is over
    // and, as PostgreSQL's, reads no more outer rows (EXPLAIN shows the outer's rows).
    step_ = fills_outer(rows_.spec().type) ? Step::kEndOuter : Step::kDone;
    return;
  }
  cancel_.tick();
  // A NULL key matches no outer row, wherever the inputs sort NULLs.
  const int c = null_key(i, false) ? 1 : compare(outer_row_, true, i, false);
  if (c > 0) {
    if (fill_inner) emit_inner_unmatched(i);
    advance_inner();
  } else if (c < 0) {
    step_ = Step::kEndOuter;
  } else {
    load_group();
    step_ = Step::kJoinGroup;
  }
}

void MergeJoinNode::join_group() {
  const JoinType type = rows_.spec().type;
  if (group_at_ >= group_.count) {
    step_ = Step::kEndOuter;
    return;
  }
  const uint32_t r = group_at_++;
  cancel_.tick();
  rows_.set_inner(group_.ref(r));
  if (!rows_.filter_passes(instr.rows_filtered)) return;
  matched_ = true;
  if (fills_inner(type)) group_matched_[r] = 1;
  if (type == JoinType::kAnti) {
    step_ = Step::kNextOuter;
    return;
  }
  rows_.emit(batch_);
  if (type == JoinType::kSemi || rows_.spec().inner_unique) step_ = Step::kNextOuter;
}

const RowBatch* MergeJoinNode::do_next() {
  const uint32_t limit =
      uint32_t(std::min<uint64_t>(kOutputBatchRows, std::max<uint64_t>(row_limit_hint, 1)));
  rows_.start_batch(batch_, limit);
  while (batch_.count < limit && step_ != Step::kDone) step();
  return batch_.count > 0 ? &batch_ : nullptr;
}

void MergeJoinNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!merge_cond_.empty()) lines.push_back("Merge Cond: " + merge_cond_);
  explain_join_filter(rows_, instr.rows_filtered, instr.loops, analyze, lines);
}

}  // namespace tp::scans
