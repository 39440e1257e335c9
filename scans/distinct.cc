#include "scans/distinct.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}  // namespace

// ---------------------------------------------------------------- Unique

UniqueNode::UniqueNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys)
    : child_(std::move(child)), keys_(std::move(keys)) {}

void UniqueNode::do_open() {
  child_->open();
  previous_.clear();
  pending_ = nullptr;
  pending_at_ = 0;
}

const RowBatch* UniqueNode::do_next() {
  for (;;) {
    if (!pending_ || pending_at_ >= pending_->count) {
      pending_ = child_->next();
      pending_at_ = 0;
      if (!pending_) return nullptr;
    }
    const RowBatch* b = pending_;
    batch_.reset(b->width, b->count);
    // No more rows than a Limit above wants: the rest of the child's batch waits for the
    // next call (it stays valid until the child's next()).
    const uint64_t wanted = std::max<uint64_t>(row_limit_hint, 1);
    while (pending_at_ < b->count && batch_.count < wanted) {
      const int64_t* row = b->row(pending_at_++);
      bool same = !previous_.empty();
      for (size_t k = 0; same && k < keys_.size(); ++k) same = row[keys_[k]] == previous_[k];
      if (same) continue;
      previous_.resize(std::max<size_t>(keys_.size(), 1));
      for (size_t k = 0; k < keys_.size(); ++k) previous_[k] = row[keys_[k]];
      std::copy_n(row, b->width, batch_.row(batch_.count++));
    }
    if (batch_.count > 0) return &batch_;
  }
}

// ---------------------------------------------------------------- HashAggregate

HashAggregateNode::HashAggregateNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys,
                                     std::string group_text, int planned_partitions,
                                     uint64_t max_bytes)
    : child_(std::move(child)),
      keys_(std::move(keys)),
      group_text_(std::move(group_text)),
      planned_partitions_(planned_partitions),
      max_bytes_(max_bytes),
      groups_(0, RowHash{this}, RowEqual{this}) {}

size_t HashAggregateNode::RowHash::operator()(uint32_t row) const {
  const int64_t* r = node->stored(row);
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint32_t k : node->keys_) {
    h ^= uint64_t(r[k]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return size_t(h ^ (h >> 33));
}

bool HashAggregateNode::RowEqual::operator()(uint32_t a, uint32_t b) const {
  const int64_t *x = node->stored(a), *y = node->stored(b);
  for (uint32_t k : node->keys_)
    if (x[k] != y[k]) return false;
  return true;
}

uint64_t HashAggregateNode::memory_bytes() const {
  // The rows, the set's nodes (a pointer and the index, padded) and its bucket array.
  return rows_.capacity() * sizeof(int64_t) + groups_.size() * 16 +
         groups_.bucket_count() * sizeof(void*);
}

void HashAggregateNode::do_open() {
  child_->open();
  groups_.clear();
  rows_.clear();
  emitted_ = 0;
  filled_ = false;
  peak_bytes_ = 0;
}

void HashAggregateNode::read_input() {
  while (const RowBatch* b = child_->next()) {
    width_ = b->width;
    for (uint32_t r = 0; r < b->count; ++r) {
      const uint32_t candidate = uint32_t(groups_.size());
      rows_.resize(size_t(candidate + 1) * width_);
      std::copy_n(b->row(r), width_, rows_.begin() + ptrdiff_t(size_t(candidate) * width_));
      if (!groups_.insert(candidate).second) rows_.resize(size_t(candidate) * width_);
    }
    peak_bytes_ = std::max(peak_bytes_, memory_bytes());
    memory_.set(memory_bytes());
    if (peak_bytes_ > max_bytes_)
      throw Error("HashAggregate of " + std::to_string(groups_.size()) +
                      "+ groups needs more than " + std::to_string(max_bytes_ >> 20) +
                      " MB, its in-memory limit",
                  "", "Add a WHERE clause that keeps fewer rows, or SET enable_hashagg = off.")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
  filled_ = true;
}

const RowBatch* HashAggregateNode::do_next() {
  if (!filled_) read_input();
  const size_t groups = width_ ? rows_.size() / width_ : 0;
  if (emitted_ >= groups) return nullptr;
  const uint32_t n =
      uint32_t(std::min<uint64_t>({uint64_t(kOutputBatchRows), uint64_t(groups - emitted_),
                                   std::max<uint64_t>(row_limit_hint, 1)}));
  batch_.reset(width_, n);
  std::copy_n(stored(uint32_t(emitted_)), size_t(n) * width_, batch_.row(0));
  batch_.count = n;
  emitted_ += n;
  return &batch_;
}

void HashAggregateNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Group Key: " + group_text_);
  if (!analyze) {
    if (planned_partitions_ > 0)
      lines.push_back("Planned Partitions: " + std::to_string(planned_partitions_));
    return;
  }
  std::string line = planned_partitions_ > 0
                         ? "Planned Partitions: " + std::to_string(planned_partitions_) + "  "
                         : "";
  lines.push_back(
      line + "Batches: 1  Memory Usage: " + std::to_string((peak_bytes_ + 1023) / 1024) + "kB");
}

}  // namespace tp::scans
