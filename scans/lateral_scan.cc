#include "scans/lateral_scan.h"

#include "engine/core/error.h"

namespace tp::scans {

namespace {

// This node the ParamSource while its child runs, the one around it after.
struct AsSource {
  AsSource(ParamSource* self, ParamSource*& around) : saved(current_param_source()) {
    around = saved;
    current_param_source() = self;
  }
  ~AsSource() { current_param_source() = saved; }
  ParamSource* saved;
};

}  // namespace

Datum LateralScanNode::param(uint32_t id, bool& isnull) {
  if (id >= slot_base_ && id - slot_base_ < from_->size()) {
    isnull = to_->is_null(id - slot_base_);
    return isnull ? 0 : to_->value(id - slot_base_);
  }
  if (around_ == nullptr)
    throw Error("a subquery's value was read outside the plan that runs it")
        .with_sqlstate(sqlstate::kInternalError);
  return around_->param(id, isnull);
}

Datum LateralScanNode::subplan(uint32_t id, const Datum* args, const bool* arg_nulls,
                               bool& isnull) {
  if (around_ == nullptr)
    throw Error("a subquery's value was read outside the plan that runs it")
        .with_sqlstate(sqlstate::kInternalError);
  return around_->subplan(id, args, arg_nulls, isnull);
}

LateralScanNode::LateralScanNode(std::unique_ptr<ExecNode> child, const ExecParams* from,
                                 std::unique_ptr<ExecParams> to, std::vector<uint32_t> slots,
                                 uint32_t slot_base, std::string prefix_table,
                                 std::vector<std::string> prefix_columns,
                                 std::vector<TypedExpr> derived)
    : child_(std::move(child)),
      from_(from),
      to_(std::move(to)),
      slots_(std::move(slots)),
      slot_base_(slot_base),
      prefix_table_(std::move(prefix_table)),
      prefix_columns_(std::move(prefix_columns)),
      derived_(std::move(derived)),
      outer_values_(from_->size()),
      outer_nulls_(std::make_unique<bool[]>(from_->size() + 1)) {}

void LateralScanNode::copy_params() {
  // By-reference values stay in the Nested Loop's arena, which holds them until its
  // next outer row, after the last rescan under this one.
  for (size_t i = 0; i < from_->size(); ++i) {
    outer_values_[i] = from_->value(i);
    outer_nulls_[i] = from_->is_null(i);
    to_->set(i, outer_values_[i], outer_nulls_[i]);
  }
  derived_bytes_.clear();
  EvalState st{&derived_bytes_, 0};
  for (size_t j = 0; j < derived_.size(); ++j) {
    bool isnull = false;
    const Datum d = evaluate(derived_[j], outer_values_.data(), outer_nulls_.get(), st, isnull);
    to_->set(from_->size() + j, d, isnull);
  }
}

void LateralScanNode::do_open() {
  copy_params();
  const AsSource as(this, around_);
  child_->open();
}

void LateralScanNode::do_rescan() {
  copy_params();
  const AsSource as(this, around_);
  child_->rescan();
}

const RowBatch* LateralScanNode::do_next() {
  const RowBatch* in = nullptr;
  {
    const AsSource as(this, around_);
    in = child_->next();
  }
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
