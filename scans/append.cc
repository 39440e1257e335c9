#include "scans/append.h"

#include <algorithm>

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

MergeAppendNode::MergeAppendNode(std::vector<std::unique_ptr<ExecNode>> children,
                                 std::vector<std::vector<uint32_t>> columns,
                                 std::vector<SortKey> keys, std::string key_text,
                                 std::shared_ptr<const RowShape> shape)
    : children_(std::move(children)),
      columns_(std::move(columns)),
      keys_(std::move(keys)),
      key_text_(std::move(key_text)),
      shape_(std::move(shape)) {}

std::vector<const ExecNode*> MergeAppendNode::children() const {
  std::vector<const ExecNode*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

void MergeAppendNode::do_open() {
  // Every child is read from the start: the first row of each decides the first output.
  inputs_.assign(children_.size(), Input{});
  batch_.shape = shape_;
  for (const auto& child : children_) child->open();
  started_ = false;
}

void MergeAppendNode::refill(size_t child, uint64_t needed) {
  Input& in = inputs_[child];
  if (in.batch == nullptr || in.at < in.batch->count) return;
  children_[child]->row_limit_hint = std::max<uint64_t>(needed, 1);
  in.batch = children_[child]->next();
  in.at = 0;
}

int MergeAppendNode::compare(size_t a, size_t b) const {
  const Input& x = inputs_[a];
  const Input& y = inputs_[b];
  const RowRef rx = x.batch->ref(x.at), ry = y.batch->ref(y.at);
  for (const SortKey& k : keys_) {
    const uint32_t sa = columns_[a][k.slot], sb = columns_[b][k.slot];
    const bool an = rx.is_null(sa), bn = ry.is_null(sb);
    if (an || bn) {
      if (an && bn) continue;
      return an == k.nulls_first ? -1 : 1;
    }
    const TypeId t = shape_->types[k.slot];
    const Datum va = rx.values[sa], vb = ry.values[sb];
    const int c = datum_is_integral(t) ? (va < vb   ? -1
                                          : va > vb ? 1
                                                    : 0)
                                       : compare_datums(t, va, vb);
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

const RowBatch* MergeAppendNode::do_next() {
  constexpr uint32_t kBatchRows = 256;
  const uint32_t width = uint32_t(shape_->types.size());
  const uint32_t want =
      uint32_t(std::min<uint64_t>(kBatchRows, std::max<uint64_t>(row_limit_hint, 1)));
  batch_.reset(width, want);
  if (!started_) {  // each input's first rows, once the LIMIT above has said how many
    started_ = true;
    for (size_t i = 0; i < children_.size(); ++i) {
      children_[i]->row_limit_hint = row_limit_hint;
      inputs_[i].batch = children_[i]->next();
    }
  }
  while (batch_.count < want) {
    // An input is read on only when its next row is needed: a LIMIT met leaves it be.
    for (size_t i = 0; i < inputs_.size(); ++i) refill(i, want - batch_.count);
    size_t best = inputs_.size();
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (inputs_[i].batch && (best == inputs_.size() || compare(i, best) < 0)) best = i;
    if (best == inputs_.size()) break;
    const Input& in = inputs_[best];
    const uint32_t row = batch_.count;
    Datum* out = batch_.row(row);
    const Datum* src = in.batch->row(in.at);
    for (uint32_t c = 0; c < width; ++c) {
      const uint32_t slot = columns_[best][c];
      if (in.batch->is_null(in.at, slot)) {
        batch_.set_null(row, c);
        continue;
      }
      out[c] = src[slot];
    }
    for (const RowShape::ByRef& r : shape_->by_ref) {
      if (batch_.is_null(row, r.slot)) continue;
      out[r.slot] =
          batch_.arena.copy(datum_pointer(out[r.slot]), datum_ref_size(r.typlen, out[r.slot]));
    }
    ++batch_.count;
    ++inputs_[best].at;
  }
  return batch_.count == 0 ? nullptr : &batch_;
}

}  // namespace tp::scans
