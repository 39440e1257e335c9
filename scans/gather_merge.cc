#include "scans/gather_merge.h"

#include <algorithm>

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}

GatherMergeNode::GatherMergeNode(ParticipantBuilder build, GatherParams params,
                                 std::vector<SortKey> keys)
    : GatheringNode(std::move(build), params), keys_(std::move(keys)) {}

template <typename F>
auto GatherMergeNode::guarded(F f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    group_.stop();
    throw;
  }
}

void GatherMergeNode::do_open() {
  group_.start();
  inputs_.clear();
  heap_.clear();
  started_ = false;
  if (group_.leader_runs()) guarded([&] { group_.leader_copy().open(); });
}

bool GatherMergeNode::after(size_t x, size_t y) const {
  const Input& a = inputs_[x];
  const Input& b = inputs_[y];
  const int c = rows_compare(keys_, 0, keys_.size(), a.batch->shape.get(), a.batch->ref(a.pos),
                             b.batch->ref(b.pos));
  if (c != 0) return c > 0;
  return x > y;
}

bool GatherMergeNode::fill(Input& in) {
  in.pos = 0;
  if (in.worker < 0) {
    in.batch = group_.leader_copy().next();
  } else {
    in.batch = nullptr;
    for (;;) {
      if (group_.try_take(in.worker, in.owned)) {
        in.batch = &in.owned;
        break;
      }
      if (!group_.wait_for(in.worker)) break;
    }
  }
  in.done = in.batch == nullptr || in.batch->count == 0;
  return !in.done;
}

bool GatherMergeNode::advance(Input& in) {
  if (++in.pos < in.batch->count) return true;
  return fill(in);
}

void GatherMergeNode::start_merge() {
  // The leader is participant 0, then the workers in launch order. inputs_ is
  // not resized after this: an Input's batch may point into itself.
  size_t n = size_t(group_.launched()) + (group_.leader_runs() ? 1 : 0);
  inputs_.clear();
  inputs_.resize(n);
  size_t k = 0;
  if (group_.leader_runs()) inputs_[k++].worker = -1;
  for (int w = 0; w < group_.launched(); ++w) inputs_[k++].worker = w;
  auto cmp = [this](size_t x, size_t y) { return after(x, y); };
  for (size_t i = 0; i < n; ++i) {
    if (!fill(inputs_[i])) continue;
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  }
}

const RowBatch* GatherMergeNode::do_next() {
  if (!started_) {
    guarded([&] { start_merge(); });
    started_ = true;
  }
  if (heap_.empty()) {
    group_.stop();  // every participant has ended: join the workers, collect their figures
    return nullptr;
  }
  auto cmp = [this](size_t x, size_t y) { return after(x, y); };
  const uint32_t width = inputs_[heap_.front()].batch->width;
  const uint32_t max_rows = uint32_t(std::clamp<uint64_t>(row_limit_hint, 1, kOutputBatchRows));
  out_.reset(width, max_rows);
  while (out_.count < max_rows && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), cmp);
    size_t i = heap_.back();
    heap_.pop_back();
    out_.append(*inputs_[i].batch, inputs_[i].pos);
    if (guarded([&] { return advance(inputs_[i]); })) {
      heap_.push_back(i);
      std::push_heap(heap_.begin(), heap_.end(), cmp);
    }
  }
  return &out_;
}

}  // namespace tp::scans
