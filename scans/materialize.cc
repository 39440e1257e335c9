#include "scans/materialize.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::scans {

MaterializeNode::MaterializeNode(std::unique_ptr<ExecNode> child, uint64_t max_bytes,
                                 const ExecParams* child_params, aio::TempFileSpace* temp_space)
    : child_(std::move(child)),
      max_bytes_(max_bytes),
      child_params_(child_params),
      temp_space_(temp_space) {}

void MaterializeNode::forget_rows() {
  rows_.clear_rows();
  read_at_ = 0;
  child_done_ = false;
  params_generation_ = child_params_ ? child_params_->generation() : 0;
  file_.reset();
  spilled_rows_ = 0;
  from_file_.clear_rows();
  from_file_first_ = 0;
}

void MaterializeNode::do_open() {
  child_->open();
  forget_rows();
  started_ = true;
}

void MaterializeNode::do_rescan() {
  if (!started_) {
    do_open();
    return;
  }
  if (child_params_ && child_params_->generation() != params_generation_) {
    child_->rescan();
    forget_rows();
    return;
  }
  read_at_ = 0;
  if (file_) {
    file_->rewind();
    from_file_.clear_rows();
    from_file_first_ = 0;
  }
}

void MaterializeNode::store(const RowBatch& b) {
  rows_.width = b.width;
  for (uint32_t r = 0; r < b.count; ++r) rows_.push(b, r);
  const uint64_t bytes = held_bytes(rows_);
  peak_bytes_ = std::max(peak_bytes_, bytes);
  memory_.set(rows_.bytes_held());
  // Once spilling, the tail goes to the file a batch at a time, so replays read it in
  // batches as big as the in-memory path's.
  if (bytes > max_bytes_ || (file_ && rows_.count >= kOutputBatchRows)) {
    if (temp_space_ != nullptr) {
      spill_tail();
      return;
    }
    throw Error("Materialize of " + std::to_string(rows_.count) + "+ rows needs more than " +
                    std::to_string(max_bytes_ / 1024) +
                    " kB, its in-memory limit (work_mem), and it has no temporary file space",
                "", "Raise work_mem, or SET enable_material = off.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
}

// Returns rows [first, first + n) of `from`: the stored Datums point into its arena,
// which lives until the next call at least, so the batch copies slots, not bytes.
const RowBatch* MaterializeNode::replay(const RowBatch& from, uint32_t first, uint64_t wanted) {
  const uint32_t n = uint32_t(std::min<uint64_t>({kOutputBatchRows, from.count - first, wanted}));
  batch_.shape = from.shape;
  batch_.reset(from.width, n);
  std::copy_n(from.row(first), size_t(n) * from.width, batch_.row(0));
  if (from.has_nulls)
    std::copy_n(from.nulls.data() + size_t(first) * from.width, size_t(n) * from.width,
                batch_.null_flags(0));
  batch_.count = n;
  read_at_ += n;
  return &batch_;
}

const RowBatch* MaterializeNode::next_stored(uint64_t wanted) {
  if (read_at_ < spilled_rows_) {
    if (read_at_ >= from_file_first_ + from_file_.count) read_file_batch();
    return replay(from_file_, uint32_t(read_at_ - from_file_first_), wanted);
  }
  return replay(rows_, uint32_t(read_at_ - spilled_rows_), wanted);
}

const RowBatch* MaterializeNode::do_next() {
  const uint64_t wanted = std::max<uint64_t>(row_limit_hint, 1);
  if (read_at_ < spilled_rows_ + rows_.count) {
    if (!file_) return replay(rows_, uint32_t(read_at_), wanted);  // in memory: the fast path
    try {
      return next_stored(wanted);
    } catch (...) {
      forget_rows();  // the file goes now, not when the plan does
      started_ = false;
      throw;
    }
  }
  if (child_done_) return nullptr;
  child_->row_limit_hint = row_limit_hint;
  const RowBatch* b;
  try {
    b = child_->next();
    if (b != nullptr) store(*b);
  } catch (...) {
    if (file_) {
      forget_rows();
      started_ = false;
    }
    throw;
  }
  if (b == nullptr) {
    child_done_ = true;
    return nullptr;
  }
  read_at_ = spilled_rows_ + rows_.count;
  return b;  // the child's batch is valid until our next call, which reads the store
}

}  // namespace tp::scans
