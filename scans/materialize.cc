#include "scans/materialize.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}  // namespace

MaterializeNode::MaterializeNode(std::unique_ptr<ExecNode> child, uint64_t max_bytes,
                                 const ExecParams* child_params)
    : child_(std::move(child)), max_bytes_(max_bytes), child_params_(child_params) {}

void MaterializeNode::forget_rows() {
  rows_.clear_rows();
  read_at_ = 0;
  child_done_ = false;
  params_generation_ = child_params_ ? child_params_->generation() : 0;
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
}

void MaterializeNode::store(const RowBatch& b) {
  rows_.width = b.width;
  for (uint32_t r = 0; r < b.count; ++r) rows_.push(b, r);
  const uint64_t bytes = held_bytes(rows_);
  peak_bytes_ = std::max(peak_bytes_, bytes);
  memory_.set(rows_.bytes_held());
  if (bytes > max_bytes_)
    throw Error("Materialize of " + std::to_string(rows_.count) + "+ rows needs more than " +
                    std::to_string(max_bytes_ / 1024) +
                    " kB, its in-memory limit (work_mem); spilling it to a temporary file "
                    "is not built yet",
                "", "Raise work_mem, or SET enable_material = off.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

const RowBatch* MaterializeNode::do_next() {
  const uint64_t wanted = std::max<uint64_t>(row_limit_hint, 1);
  if (read_at_ < rows_.count) {
    // Replay: the stored Datums point into rows_'s arena, which lives until the next
    // open or changed-parameter rescan, so the batch copies slots, not bytes.
    const uint32_t n =
        uint32_t(std::min<uint64_t>({kOutputBatchRows, rows_.count - read_at_, wanted}));
    batch_.shape = rows_.shape;
    batch_.reset(rows_.width, n);
    std::copy_n(rows_.row(read_at_), size_t(n) * rows_.width, batch_.row(0));
    if (rows_.has_nulls)
      std::copy_n(rows_.nulls.data() + size_t(read_at_) * rows_.width, size_t(n) * rows_.width,
                  batch_.null_flags(0));
    batch_.count = n;
    read_at_ += n;
    return &batch_;
  }
  if (child_done_) return nullptr;
  child_->row_limit_hint = row_limit_hint;
  const RowBatch* b = child_->next();
  if (b == nullptr) {
    child_done_ = true;
    return nullptr;
  }
  store(*b);
  read_at_ = rows_.count;
  return b;  // the child's batch is valid until our next call, which reads the store
}

}  // namespace tp::scans
