#include "scans/incremental_sort.h"

#include <algorithm>
#include <numeric>

#include "engine/core/error.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}

IncrementalSortNode::IncrementalSortNode(std::unique_ptr<ExecNode> child, std::vector<SortKey> keys,
                                         size_t presorted, std::string key_text,
                                         std::string presorted_text, uint64_t max_bytes)
    : child_(std::move(child)),
      keys_(std::move(keys)),
      presorted_(presorted),
      key_text_(std::move(key_text)),
      presorted_text_(std::move(presorted_text)),
      max_bytes_(max_bytes) {}

bool IncrementalSortNode::presorted_equal(RowRef a, RowRef b) const {
  return rows_compare(keys_, 0, presorted_, shape_.get(), a, b) == 0;
}

void IncrementalSortNode::do_open() {
  child_->open();
  group_.clear_rows();
  pending_.clear_rows();
  emitted_ = 0;
  in_ = nullptr;
  in_row_ = 0;
  input_done_ = false;
  groups_ = peak_bytes_ = total_bytes_ = 0;
}

bool IncrementalSortNode::fill_group() {
  group_.clear_rows();
  emitted_ = 0;
  if (pending_.count > 0) {
    group_.push(pending_, 0);
    pending_.clear_rows();
  }
  for (;;) {
    if (in_ == nullptr || in_row_ >= in_->count) {
      if (input_done_ || (in_ = child_->next()) == nullptr) {
        input_done_ = true;
        break;
      }
      in_row_ = 0;
      width_ = in_->width;
      group_.width = pending_.width = width_;
      if (!shape_) shape_ = in_->shape;
    }
    if (group_.count > 0 && !presorted_equal(group_.ref(0), in_->ref(in_row_))) {
      pending_.push(*in_, in_row_);  // starts the next group
      ++in_row_;
      break;
    }
    group_.push(*in_, in_row_);
    memory_.set(group_.bytes_held());  // an atomic only when it grows
    ++in_row_;
    const uint64_t bytes = held_bytes(group_);
    if (bytes > max_bytes_)
      throw Error("incremental sort group of " + std::to_string(group_.count) +
                  "+ rows needs more than " + std::to_string(max_bytes_ >> 20) +
                  " MB, the in-memory sort limit")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
  if (group_.count == 0 || width_ == 0) return false;
  const size_t n = group_.count;
  ++groups_;
  const uint64_t bytes = held_bytes(group_);
  total_bytes_ += bytes;
  peak_bytes_ = std::max<uint64_t>(peak_bytes_, bytes);
  if (n > 1 && presorted_ < keys_.size()) {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    SortCancelCheck cancel;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      cancel.tick();
      return rows_less(keys_, presorted_, shape_.get(), group_.ref(x), group_.ref(y));
    });
    sorted_.width = width_;
    sorted_.clear_rows();
    for (uint32_t i : order) sorted_.push(group_, i);
    std::swap(group_, sorted_);
  }
  return true;
}

const RowBatch* IncrementalSortNode::do_next() {
  if (width_ == 0 || emitted_ >= group_.count) {
    if (!fill_group()) return nullptr;
  }
  const uint32_t n = uint32_t(std::min<size_t>(kOutputBatchRows, group_.count - emitted_));
  batch_.reset(width_, n);
  batch_.append_rows(group_, uint32_t(emitted_), n);
  emitted_ += n;
  return &batch_;
}

void IncrementalSortNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Sort Key: " + key_text_);
  lines.push_back("Presorted Key: " + presorted_text_);
  if (analyze && instr.loops > 0 && groups_ > 0) {
    // One quicksort per group of equal presorted keys (PostgreSQL batches small groups
    // into full sorts of 32 or more rows, so its group counts differ).
    lines.push_back("Full-sort Groups: " + std::to_string(groups_) +
                    "  Sort Method: quicksort  Average Memory: " +
                    std::to_string((total_bytes_ / groups_ + 1023) / 1024) +
                    "kB  Peak Memory: " + std::to_string((peak_bytes_ + 1023) / 1024) + "kB");
  }
}

}  // namespace tp::scans
