#include "scans/append.h"

#include "engine/core/interrupts.h"

namespace tp::scans {

AppendNode::AppendNode(std::vector<std::unique_ptr<ExecNode>> children,
                       std::vector<std::vector<uint32_t>> columns,
                       std::vector<std::vector<std::shared_ptr<const TypedExpr>>> casts,
                       std::shared_ptr<const RowShape> shape)
    : children_(std::move(children)),
      columns_(std::move(columns)),
      casts_(std::move(casts)),
      shape_(std::move(shape)) {}

std::vector<const ExecNode*> AppendNode::children() const {
  std::vector<const ExecNode*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

void AppendNode::do_open() {
  // Each child starts when its turn comes (PostgreSQL's ExecInitAppend initializes them
  // all, but a child's first row is asked for only then): a LIMIT met in the first child
  // leaves the others never run, as EXPLAIN ANALYZE's "never executed" shows.
  current_ = 0;
  opened_current_ = false;
  batch_.shape = shape_;
}

const RowBatch* AppendNode::do_next() {
  const uint32_t width = uint32_t(shape_->types.size());
  while (current_ < children_.size()) {
    ExecNode& child = *children_[current_];
    if (!opened_current_) {
      child.open();
      opened_current_ = true;
    }
    child.row_limit_hint = row_limit_hint;
    const RowBatch* in = child.next();
    if (in == nullptr) {
      ++current_;
      opened_current_ = false;
      continue;
    }
    const std::vector<uint32_t>& cols = columns_[current_];
    const std::vector<std::shared_ptr<const TypedExpr>>& casts = casts_[current_];
    EvalState st{&batch_.arena};
    batch_.reset(width, in->count);
    for (uint32_t i = 0; i < in->count; ++i) {
      Datum* out = batch_.row(i);
      const Datum* src = in->row(i);
      for (uint32_t c = 0; c < width; ++c) {
        if (in->is_null(i, cols[c])) {
          batch_.set_null(i, c);
          continue;
        }
        if (!casts[c]) {
          out[c] = src[cols[c]];
          continue;
        }
        bool isnull = false;
        out[c] = evaluate(*casts[c], src, nullptr, st, isnull);
        if (isnull) batch_.set_null(i, c);
      }
      for (const RowShape::ByRef& r : shape_->by_ref) {
        if (batch_.is_null(i, r.slot)) continue;
        out[r.slot] =
            batch_.arena.copy(datum_pointer(out[r.slot]), datum_ref_size(r.typlen, out[r.slot]));
      }
    }
    batch_.count = in->count;
    return &batch_;
  }
  return nullptr;
}

}  // namespace tp::scans
