#include "scans/hash.h"

#include <algorithm>
#include <bit>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"

namespace tp::scans {

HashNode::HashNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys,
                   uint32_t planned_buckets, uint32_t planned_batches, uint64_t max_bytes,
                   const ExecParams* child_params)
    : child_(std::move(child)),
      keys_(std::move(keys)),
      planned_buckets_(std::bit_ceil(std::max<uint32_t>(planned_buckets, 1))),
      planned_batches_(planned_batches),
      max_bytes_(max_bytes),
      child_params_(child_params) {}

void HashNode::do_open() {
  child_->open();
  build();
}

void HashNode::do_rescan() {
  child_->rescan();
  build();
}

uint64_t HashNode::memory_bytes() const {
  // The rows (slots and bytes), each row's hash and chain link, and the bucket array
  // at the size it will have (PostgreSQL also counts the buckets it is about to need).
  const uint64_t buckets = std::max<uint64_t>(planned_buckets_, std::bit_ceil(rows_.count + 1u));
  return held_bytes(rows_) + uint64_t(rows_.count) * (sizeof(uint64_t) + sizeof(uint32_t)) +
         buckets * sizeof(uint32_t);
}

void HashNode::check_memory() {
  const uint64_t bytes = memory_bytes();
  peak_bytes_ = std::max(peak_bytes_, bytes);
  memory_.set(bytes);
  if (bytes > max_bytes_)
    throw Error("hash table of " + std::to_string(rows_.count) + "+ rows needs more than " +
                    std::to_string(max_bytes_ / 1024) +
                    " kB (work_mem x hash_mem_multiplier); multi-batch hash joins, which "
                    "spill to temporary files beyond it, are not built yet",
                "", "Raise work_mem or hash_mem_multiplier, or SET enable_hashjoin = off.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

void HashNode::add_batch(const RowBatch& b) {
  rows_.width = b.width;
  if (!rows_.shape) rows_.shape = b.shape;
  const RowShape* shape = b.shape.get();
  for (uint32_t r = 0; r < b.count; ++r) {
    const RowRef ref = b.ref(r);
    bool null_key = false;
    for (uint32_t k : keys_) null_key = null_key || ref.is_null(k);
    if (null_key && !keep_nulls_) continue;
    rows_.push(b, r);
    // A NULL-key row gets no bucket: kNoRow marks it for the linking pass.
    hashes_.push_back(null_key ? 0 : hash_slots(keys_, shape, ref));
    next_.push_back(null_key ? kNoRow - 1 : kNoRow);
  }
}

void HashNode::build() {
  rows_.clear_rows();
  hashes_.clear();
  next_.clear();
  buckets_.clear();
  built_ = false;
  peak_bytes_ = 0;
  params_generation_ = child_params_ ? child_params_->generation() : 0;
  while (const RowBatch* b = child_->next()) {
    add_batch(*b);
    check_memory();
  }
  // PostgreSQL's single-batch table doubles its buckets while it holds more than one
  // row per bucket (NTUP_PER_BUCKET = 1).
  uint32_t nbuckets = planned_buckets_;
  while (nbuckets < rows_.count && nbuckets < (1u << 30)) nbuckets *= 2;
  buckets_.assign(nbuckets, kNoRow);
  for (uint32_t r = rows_.count; r-- > 0;) {
    if ((r & 0xffff) == 0) check_for_interrupts();
    if (next_[r] == kNoRow - 1) continue;  // a NULL key: in no bucket
    uint32_t& head = buckets_[hashes_[r] & (nbuckets - 1)];
    next_[r] = head;
    head = r;
  }
  instr.rows += rows_.count;  // PostgreSQL's Hash counts the rows it hashed
  built_ = true;
}

void HashNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!analyze || !built_) return;
  const uint32_t nbuckets = uint32_t(buckets_.size());
  std::string line = "Buckets: " + std::to_string(nbuckets);
  if (nbuckets != planned_buckets_)
    line += " (originally " + std::to_string(planned_buckets_) + ")";
  line += "  Batches: " + std::to_string(planned_batches_);
  line += "  Memory Usage: " + std::to_string((peak_bytes_ + 1023) / 1024) + "kB";
  lines.push_back(line);
}

}  // namespace tp::scans
