#include "scans/hash_batches.h"

#include <algorithm>

#include "engine/core/datum_ops.h"
#include "scans/row_file.h"

namespace tp::scans {
namespace {

// What a staged row costs: its slots and its by-reference values (padded as the arena
// pads them). The arena's own figure counts whole 32 kB chunks, and the chunks it keeps
// after a clear, so it cannot say when the stage is full.
uint64_t row_bytes(const RowBatch& rows, uint32_t r) {
  uint64_t bytes = uint64_t(rows.width) * sizeof(Datum);
  if (rows.shape)
    for (const RowShape::ByRef& ref : rows.shape->by_ref)
      if (!rows.is_null(r, ref.slot))
        bytes += (datum_ref_size(ref.typlen, rows.row(r)[ref.slot]) + 7) & ~uint64_t(7);
  return bytes;
}

}  // namespace

void HashBatchFiles::add(uint32_t batch, const RowBatch& rows, uint32_t r) {
  if (files_.size() <= batch) files_.resize(size_t(batch) + 1);
  if (!files_[batch]) files_[batch] = space_->create();
  if (stage_.count == 0) {
    width_ = stage_.width = rows.width;
    if (!shape_) shape_ = rows.shape;
    stage_.shape = shape_;
  }
  stage_.push(rows, r);
  stage_to_.push_back(batch);
  staged_bytes_ += row_bytes(rows, r);
  if (staged_bytes_ >= kStageBytes) flush();
}

// Writes the staged rows, each batch's as one file batch: grouped by batch first (a
// counting sort, stable, so a batch's rows keep their order), since a file batch is a
// run of rows.
void HashBatchFiles::flush() {
  if (stage_.count == 0) return;
  run_start_.assign(files_.size() + 1, 0);
  for (uint32_t b : stage_to_) ++run_start_[b + 1];
  for (size_t b = 1; b < run_start_.size(); ++b) run_start_[b] += run_start_[b - 1];
  std::vector<uint32_t> at(run_start_.begin(), run_start_.end() - 1);
  std::vector<uint32_t> order(stage_.count);
  for (uint32_t r = 0; r < stage_.count; ++r) order[at[stage_to_[r]]++] = r;
  sorted_.shape = shape_;
  sorted_.reset(width_, stage_.count);
  for (uint32_t r : order) sorted_.append(stage_, r);
  memory_.set(stage_.bytes_held() + sorted_.bytes_held() + scratch_.capacity());
  for (size_t b = 0; b + 1 < run_start_.size(); ++b) {
    const uint32_t first = run_start_[b], n = run_start_[b + 1] - first;
    // A dropped batch's rows go nowhere: nothing will read them.
    if (n > 0 && files_[b]) write_row_file_batch(*files_[b], sorted_, first, n, scratch_);
  }
  stage_.clear_rows();
  sorted_.clear_rows();
  stage_to_.clear();
  staged_bytes_ = 0;
}

std::unique_ptr<aio::TempFile> HashBatchFiles::take(uint32_t batch) {
  if (!has(batch)) return nullptr;
  flush();
  std::unique_ptr<aio::TempFile> file = std::move(files_[batch]);
  file->rewind();
  return file;
}

void HashBatchFiles::drop(uint32_t batch) {
  if (batch < files_.size()) files_[batch].reset();
}

bool HashBatchFiles::read(aio::TempFile& file, RowBatch& out) const {
  return read_row_file_batch(file, shape_, width_, out);
}

void HashBatchFiles::clear() {
  files_.clear();
  stage_ = RowBatch();
  sorted_ = RowBatch();
  stage_to_.clear();
  staged_bytes_ = 0;
  std::string().swap(scratch_);
  memory_.set(0);
}

uint32_t HashBatchFiles::files() const {
  return uint32_t(
      std::count_if(files_.begin(), files_.end(), [](const auto& f) { return f != nullptr; }));
}

}  // namespace tp::scans
