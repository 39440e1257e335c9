#include "scans/project.h"

#include <cstring>

#include "engine/core/datetime.h"

namespace tp::scans {

ProjectNode::ProjectNode(std::unique_ptr<ExecNode> child,
                         std::vector<std::shared_ptr<const TypedExpr>> exprs)
    : child_(std::move(child)), exprs_(std::move(exprs)) {}

void ProjectNode::do_open() {
  child_->row_limit_hint = row_limit_hint;
  child_->open();
  // CURRENT_DATE and LOCALTIMESTAMP are the statement's: one time for every row.
  statement_time_ = timestamp_now();
}

std::shared_ptr<const RowShape> ProjectNode::shape_for(const RowBatch& in) {
  if (shape_ && in_shape_ == in.shape) return shape_;
  std::vector<TypeId> types;
  for (uint32_t s = 0; s < in.width; ++s)
    types.push_back(in.shape ? in.shape->type(s) : TypeId::kInt8);  // no shape: integers
  for (const auto& e : exprs_) types.push_back(e->type);
  in_shape_ = in.shape;
  shape_ = std::make_shared<const RowShape>(std::move(types));
  return shape_;
}

const RowBatch* ProjectNode::do_next() {
  const RowBatch* in = child_->next();
  if (in == nullptr) return nullptr;
  const uint32_t width = in->width + uint32_t(exprs_.size());
  batch_.shape = shape_for(*in);
  batch_.reset(width, in->count);
  EvalState st{&batch_.arena, statement_time_};
  for (uint32_t i = 0; i < in->count; ++i) {
    // The child's values stay where they are (its batch lives until our next call).
    Datum* out = batch_.row(i);
    const Datum* src = in->row(i);
    if (in->width > 0)
      std::memcpy(out, src, sizeof(Datum) * in->width);  // none: a scan of no columns
    const uint8_t* src_nulls = in->has_nulls ? in->nulls.data() + size_t(i) * in->width : nullptr;
    const bool* flags = nullptr;
    if (src_nulls) {
      if (flags_size_ < in->width) {
        flags_ = std::make_unique<bool[]>(in->width);
        flags_size_ = in->width;
      }
      for (uint32_t s = 0; s < in->width; ++s) flags_[s] = src_nulls[s] != 0;
      flags = flags_.get();
      std::memcpy(batch_.null_flags(i), src_nulls, in->width);
    }
    for (size_t k = 0; k < exprs_.size(); ++k) {
      bool isnull = false;
      const Datum v = evaluate(*exprs_[k], src, flags, st, isnull);
      const uint32_t slot = in->width + uint32_t(k);
      out[slot] = v;
      if (isnull) batch_.set_null(i, slot);
    }
    batch_.count = i + 1;
  }
  return &batch_;
}

}  // namespace tp::scans
