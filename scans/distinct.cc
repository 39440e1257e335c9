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
  previous_.clear_rows();
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
    const RowShape* shape = b->shape.get();
    // No more rows than a Limit above wants: the rest of the child's batch waits for the
    // next call (it stays valid until the child's next()).
    const uint64_t wanted = std::max<uint64_t>(row_limit_hint, 1);
    while (pending_at_ < b->count && batch_.count < wanted) {
      const uint32_t r = pending_at_++;
      if (previous_.count > 0 && slots_equal(keys_, shape, previous_.ref(0), b->ref(r))) continue;
      previous_.width = b->width;
      previous_.clear_rows();
      previous_.push(*b, r);
      batch_.append(*b, r);
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

RowRef HashAggregateNode::row_ref(uint32_t row) const {
  return row == kProbe ? probe_ : rows_.ref(row);
}

size_t HashAggregateNode::RowHash::operator()(uint32_t row) const {
  return size_t(hash_slots(node->keys_, node->shape_.get(), node->row_ref(row)));
}

bool HashAggregateNode::RowEqual::operator()(uint32_t a, uint32_t b) const {
  return slots_equal(node->keys_, node->shape_.get(), node->row_ref(a), node->row_ref(b));
}

uint64_t HashAggregateNode::memory_bytes() const {
  // The rows, the set's nodes (a pointer and the index, padded) and its bucket array.
  return rows_.values.capacity() * sizeof(Datum) + rows_.arena.bytes_held() + groups_.size() * 16 +
         groups_.bucket_count() * sizeof(void*);
}

void HashAggregateNode::do_open() {
  child_->open();
  groups_.clear();
  rows_.clear_rows();
  emitted_ = 0;
  filled_ = false;
  peak_bytes_ = 0;
}

void HashAggregateNode::read_input() {
  while (const RowBatch* b = child_->next()) {
    rows_.width = b->width;
    if (!shape_) shape_ = b->shape;
    for (uint32_t r = 0; r < b->count; ++r) {
      probe_ = b->ref(r);
      if (groups_.find(kProbe) != groups_.end()) continue;
      rows_.push(*b, r);
      groups_.insert(rows_.count - 1);
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
  const size_t groups = rows_.count;
  if (emitted_ >= groups) return nullptr;
  const uint32_t n =
      uint32_t(std::min<uint64_t>({uint64_t(kOutputBatchRows), uint64_t(groups - emitted_),
                                   std::max<uint64_t>(row_limit_hint, 1)}));
  batch_.reset(rows_.width, n);
  batch_.append_rows(rows_, uint32_t(emitted_), n);
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
