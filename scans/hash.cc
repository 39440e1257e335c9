#include "scans/hash.h"

#include <algorithm>
#include <bit>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"

namespace tp::scans {
namespace {

// splitmix64's finalizer: consecutive counts to well-spread hashes.
uint64_t mix_counter(uint64_t n) {
  n = (n ^ (n >> 30)) * 0xbf58476d1ce4e5b9ull;
  n = (n ^ (n >> 27)) * 0x94d049bb133111ebull;
  return n ^ (n >> 31);
}

}  // namespace

HashNode::HashNode(std::unique_ptr<ExecNode> child, std::vector<uint32_t> keys,
                   uint32_t planned_buckets, uint32_t planned_batches, uint64_t max_bytes,
                   const ExecParams* child_params, aio::TempFileSpace* temp_space)
    : child_(std::move(child)),
      keys_(std::move(keys)),
      planned_buckets_(std::bit_ceil(std::clamp<uint32_t>(planned_buckets, 1, 1u << 30))),
      planned_batches_(std::bit_ceil(std::clamp<uint32_t>(planned_batches, 1, 1u << 30))),
      max_bytes_(max_bytes),
      child_params_(child_params),
      temp_space_(temp_space) {
  files_.set_space(temp_space_);
}

void HashNode::do_open() {
  child_->open();
  build();
}

void HashNode::do_rescan() {
  child_->rescan();
  build();
}

void HashNode::shutdown() {
  release_batches();
  ExecNode::shutdown();
}

uint64_t HashNode::memory_bytes() const {
  // The rows (slots and bytes), each row's hash and chain link, and the bucket array
  // at the size it will have (PostgreSQL also counts the buckets it is about to need).
  const uint64_t buckets = std::max<uint64_t>(planned_buckets_, std::bit_ceil(rows_.count + 1u));
  return held_bytes(rows_) + uint64_t(rows_.count) * (sizeof(uint64_t) + sizeof(uint32_t)) +
         buckets * sizeof(uint32_t);
}

void HashNode::note_memory() {
  const uint64_t bytes = memory_bytes();
  peak_bytes_ = std::max(peak_bytes_, bytes);
  memory_.set(bytes);
}

// An empty table with its memory given back: the next batch's rows are what it measures.
void HashNode::fresh_table() {
  rows_ = RowBatch();
  rows_.shape = shape_;
  rows_.width = width_;
  std::vector<uint64_t>().swap(hashes_);
  std::vector<uint32_t>().swap(next_);
  std::vector<uint32_t>().swap(buckets_);
}

bool HashNode::add_row(const RowBatch& b, uint32_t r) {
  const RowRef ref = b.ref(r);
  bool null_key = false;
  for (uint32_t k : keys_) null_key = null_key || ref.is_null(k);
  if (null_key && !keep_nulls_) return false;
  // A kept NULL-key row matches no outer row, so any batch not yet read may fill it: it
  // gets a hash of its own, from a counter, which spreads such rows over the batches like
  // any others (in PostgreSQL 15 they share hash 0, so batch 0 keeps them all, beyond
  // any bound).
  const uint64_t hash = null_key ? mix_counter(++null_rows_) : hash_slots(keys_, shape_.get(), ref);
  const uint32_t batch = null_key ? null_row_batch(hash) : batch_of(hash);
  if (batch != curbatch_) {
    files_.add(batch, b, r);
    return true;
  }
  rows_.push(b, r);
  hashes_.push_back(hash);
  next_.push_back(null_key ? kNullKey : kNoRow);
  // The peak counts the row that overflows, as PostgreSQL's spacePeak does.
  const uint64_t bytes = memory_bytes();
  peak_bytes_ = std::max(peak_bytes_, bytes);
  if (bytes > max_bytes_) make_room();
  return true;
}

void HashNode::make_room() {
  if (temp_space_ == nullptr)
    throw Error("hash table of " + std::to_string(total_rows_ + 1) + "+ rows needs more than " +
                    std::to_string(max_bytes_ / 1024) +
                    " kB (work_mem x hash_mem_multiplier), and without a temporary file "
                    "space multi-batch hash joins cannot spill beyond it",
                "", "Raise work_mem or hash_mem_multiplier, or SET enable_hashjoin = off.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  while (growth_enabled_ && memory_bytes() > max_bytes_) increase_batches();
}

// PostgreSQL's ExecHashIncreaseNumBatches: twice the batches; a row of the table whose
// hash has the new batch bit set belongs to the batch nbatch / 2 above the current one,
// and goes to its file. Rows only ever move to later batches, which the join has not
// read yet.
void HashNode::increase_batches() {
  if (nbatch_ >= kMaxBatches) {
    growth_enabled_ = false;
    return;
  }
  nbatch_ *= 2;
  shown_batches_ = std::max(shown_batches_, nbatch_);
  uint32_t moving = 0;
  auto batch_of_row = [&](uint32_t r) {
    return next_[r] == kNullKey ? null_row_batch(hashes_[r]) : batch_of(hashes_[r]);
  };
  for (uint32_t r = 0; r < rows_.count; ++r) moving += batch_of_row(r) != curbatch_;
  // Nothing or everything moved: the rows share their hash bits, and no doubling will
  // part them (PostgreSQL's growEnabled = false).
  if (moving == 0 || moving == rows_.count) growth_enabled_ = false;
  if (moving == 0) return;
  RowBatch kept;
  kept.shape = shape_;
  kept.width = width_;
  uint32_t n = 0;
  for (uint32_t r = 0; r < rows_.count; ++r) {
    if ((r & 0xfff) == 0) check_for_interrupts();
    const uint32_t batch = batch_of_row(r);
    if (batch != curbatch_) {
      files_.add(batch, rows_, r);
      continue;
    }
    kept.push(rows_, r);
    hashes_[n] = hashes_[r];
    next_[n] = next_[r];
    ++n;
  }
  rows_ = std::move(kept);
  hashes_.resize(n);
  next_.resize(n);
}

// PostgreSQL's table doubles its buckets while it holds more than one row per bucket
// (NTUP_PER_BUCKET = 1); here per batch, each batch's table being fresh.
void HashNode::link_buckets() {
  uint32_t nbuckets = planned_buckets_;
  while (nbuckets < rows_.count && nbuckets < (1u << 30)) nbuckets *= 2;
  buckets_.assign(nbuckets, kNoRow);
  for (uint32_t r = rows_.count; r-- > 0;) {
    if ((r & 0xffff) == 0) check_for_interrupts();
    if (next_[r] == kNullKey) continue;  // a NULL key: in no bucket
    uint32_t& head = buckets_[hashes_[r] & (nbuckets - 1)];
    next_[r] = head;
    head = r;
  }
  shown_buckets_ = std::max(shown_buckets_, nbuckets);
  note_memory();
}

// Room for the rows the planner expects (no more than max_bytes of slots), so the table
// does not grow by doubling, copying every row and faulting in fresh pages each time.
void HashNode::reserve_rows(uint32_t width) {
  const uint64_t row_bytes = uint64_t(width) * sizeof(Datum) + sizeof(uint64_t) + sizeof(uint32_t);
  const uint64_t rows =
      std::min<uint64_t>(uint64_t(std::max(estimate.rows, 0.0)) + 1, max_bytes_ / row_bytes + 1);
  rows_.values.reserve(rows * width);
  hashes_.reserve(rows);
  next_.reserve(rows);
}

void HashNode::build() {
  release_batches();
  built_ = false;
  // Batches need files: without a space the table is the one batch.
  nbatch_ = nbatch_start_ = temp_space_ ? std::min(planned_batches_, kMaxBatches) : 1;
  shown_batches_ = std::max(shown_batches_, nbatch_);
  curbatch_ = 0;
  growth_enabled_ = true;
  total_rows_ = 0;
  null_rows_ = 0;
  fresh_table();
  params_generation_ = child_params_ ? child_params_->generation() : 0;
  try {
    while (const RowBatch* b = child_->next()) {
      if (!shape_) shape_ = b->shape;
      if (total_rows_ == 0) reserve_rows(b->width);
      width_ = rows_.width = b->width;
      if (!rows_.shape) rows_.shape = shape_;
      for (uint32_t r = 0; r < b->count; ++r) total_rows_ += add_row(*b, r);
      note_memory();
    }
    link_buckets();
  } catch (...) {
    release_batches();  // now, not when the plan goes
    throw;
  }
  instr.rows += total_rows_;  // PostgreSQL's Hash counts the rows it hashed, in any batch
  built_ = true;
}

// The inner half of PostgreSQL's ExecHashJoinNewBatch: the batch's rows from its file
// into a fresh table. A row whose batch moved on (nbatch grew since it was written) goes
// to its new batch's file instead, and the table may grow the batches again.
void HashNode::load_batch(uint32_t batch) {
  curbatch_ = batch;
  fresh_table();
  std::unique_ptr<aio::TempFile> file = files_.take(batch);
  if (file) {
    RowBatch in;
    while (files_.read(*file, in)) {
      check_for_interrupts();
      for (uint32_t r = 0; r < in.count; ++r) add_row(in, r);
    }
  }
  file.reset();  // read: its disk space goes back now
  link_buckets();
}

void HashNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!analyze || !built_) return;
  // PostgreSQL's show_hash_info: the original figures only when one changed.
  const bool changed = shown_buckets_ != planned_buckets_ || shown_batches_ != planned_batches_;
  std::string line = "Buckets: " + std::to_string(shown_buckets_);
  if (changed) line += " (originally " + std::to_string(planned_buckets_) + ")";
  line += "  Batches: " + std::to_string(shown_batches_);
  if (changed) line += " (originally " + std::to_string(planned_batches_) + ")";
  line += "  Memory Usage: " + std::to_string((peak_bytes_ + 1023) / 1024) + "kB";
  lines.push_back(line);
}

}  // namespace tp::scans
