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

bool IncrementalSortNode::same_group(const int64_t* a, const int64_t* b) const {
  for (size_t k = 0; k < presorted_; ++k)
    if (a[keys_[k].slot] != b[keys_[k].slot]) return false;
  return true;
}

bool IncrementalSortNode::less(const int64_t* a, const int64_t* b) const {
  return rows_less(keys_, presorted_, a, b);
}

void IncrementalSortNode::do_open() {
  child_->open();
  group_.clear();
  pending_.clear();
  emitted_ = 0;
  in_ = nullptr;
  in_row_ = 0;
  input_done_ = false;
  groups_ = peak_bytes_ = total_bytes_ = 0;
}

bool IncrementalSortNode::fill_group() {
  group_.clear();
  emitted_ = 0;
  group_.swap(pending_);
  for (;;) {
    if (in_ == nullptr || in_row_ >= in_->count) {
      if (input_done_ || (in_ = child_->next()) == nullptr) {
        input_done_ = true;
        break;
      }
      in_row_ = 0;
      width_ = in_->width;
    }
    const int64_t* row = in_->row(in_row_);
    if (!group_.empty() && !same_group(group_.data(), row)) {
      pending_.assign(row, row + width_);  // starts the next group
      ++in_row_;
      break;
    }
    group_.insert(group_.end(), row, row + width_);
    memory_.set(group_.capacity() * sizeof(int64_t));  // an atomic only when it grows
    ++in_row_;
    const uint64_t bytes = group_.size() * sizeof(int64_t);
    if (bytes > max_bytes_)
      throw Error("incremental sort group of " + std::to_string(group_.size() / width_) +
                  "+ rows needs more than " + std::to_string(max_bytes_ >> 20) +
                  " MB, the in-memory sort limit")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
  if (group_.empty() || width_ == 0) return false;
  const size_t n = group_.size() / width_;
  ++groups_;
  total_bytes_ += group_.size() * sizeof(int64_t);
  peak_bytes_ = std::max<uint64_t>(peak_bytes_, group_.size() * sizeof(int64_t));
  if (n > 1 && presorted_ < keys_.size()) {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    SortCancelCheck cancel;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      cancel.tick();
      return less(&group_[size_t(x) * width_], &group_[size_t(y) * width_]);
    });
    std::vector<int64_t> sorted(group_.size());
    for (size_t i = 0; i < n; ++i)
      std::copy_n(&group_[size_t(order[i]) * width_], width_, &sorted[i * width_]);
    group_.swap(sorted);
  }
  return true;
}

const RowBatch* IncrementalSortNode::do_next() {
  if (width_ == 0 || emitted_ * width_ >= group_.size()) {
    if (!fill_group()) return nullptr;
  }
  const size_t rows = group_.size() / width_;
  const uint32_t n = uint32_t(std::min<size_t>(kOutputBatchRows, rows - emitted_));
  batch_.reset(width_, n);
  std::copy_n(&group_[emitted_ * width_], size_t(n) * width_, batch_.values.begin());
  batch_.count = n;
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
