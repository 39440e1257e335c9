// MaterializeNode's temporary file (scans/row_file.h's format): the stored rows' tail
// written as file batches, and file batches read back for a replay.
#include <algorithm>
#include <cstring>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "scans/materialize.h"
#include "scans/row_file.h"

namespace tp::scans {

void MaterializeNode::spill_tail() {
  if (!file_) file_ = temp_space_->create();
  for (uint32_t first = 0; first < rows_.count; first += kOutputBatchRows)
    write_file_batch(first, std::min(kOutputBatchRows, rows_.count - first));
  spilled_rows_ += rows_.count;
  // The first spill empties a store of work_mem's size: give that memory back. Later
  // tails are a batch each; their room is kept.
  if (rows_.values.capacity() > size_t(2) * kOutputBatchRows * rows_.width) {
    rows_.values = {};
    rows_.nulls = {};
  }
  rows_.clear_rows();
  memory_.set(rows_.bytes_held());
}

void MaterializeNode::write_file_batch(uint32_t first, uint32_t n) {
  write_row_file_batch(*file_, rows_, first, n, spill_buffer_);
}

void MaterializeNode::read_file_batch() {
  from_file_first_ += from_file_.count;
  if (!read_row_file_batch(*file_, rows_.shape, rows_.width, from_file_))
    throw Error("temporary file \"" + file_->path() + "\" is damaged")
        .with_sqlstate(sqlstate::kDataCorrupted);
}

}  // namespace tp::scans
