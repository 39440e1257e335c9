#include "scans/lateral_scan.h"

namespace tp::scans {

LateralScanNode::LateralScanNode(std::unique_ptr<ExecNode> child, const ExecParams* from,
                                 std::unique_ptr<ExecParams> to, std::vector<uint32_t> slots)
    : child_(std::move(child)), from_(from), to_(std::move(to)), slots_(std::move(slots)) {}

void LateralScanNode::copy_params() {
  // By-reference values stay in the Nested Loop's arena, which holds them until its
  // next outer row, after the last rescan under this one.
  for (size_t i = 0; i < from_->size(); ++i) to_->set(i, from_->value(i), from_->is_null(i));
}

void LateralScanNode::do_open() {
  copy_params();
  child_->open();
}

void LateralScanNode::do_rescan() {
  copy_params();
  child_->rescan();
}

const RowBatch* LateralScanNode::do_next() {
  const RowBatch* in = child_->next();
  if (in == nullptr) return nullptr;
  if (!shape_ || in_shape_ != in->shape) {
    std::vector<TypeId> types;
    for (uint32_t s : slots_) types.push_back(in->shape ? in->shape->type(s) : TypeId::kInt8);
    in_shape_ = in->shape;
    shape_ = std::make_shared<const RowShape>(std::move(types));
  }
  batch_.shape = shape_;
  batch_.reset(uint32_t(slots_.size()), in->count);
  // By-reference values point into the child's batch, which lives until our next call.
  for (uint32_t i = 0; i < in->count; ++i) {
    Datum* out = batch_.row(i);
    for (size_t k = 0; k < slots_.size(); ++k) {
      if (in->is_null(i, slots_[k]))
        batch_.set_null(i, uint32_t(k));
      else
        out[k] = in->row(i)[slots_[k]];
    }
  }
  batch_.count = in->count;
  return &batch_;
}

}  // namespace tp::scans
