// MaterializeNode's temporary file (materialize.h draws the format): the stored rows'
// tail written as file batches, and file batches read back for a replay.
#include <algorithm>
#include <cstring>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "scans/materialize.h"

namespace tp::scans {

namespace {

struct FileBatchHeader {
  uint32_t rows;
  uint32_t has_nulls;
  uint64_t payload_bytes;  // the by-reference values, each padded to 8 bytes
};

size_t padded(size_t n) {
  return (n + 7) & ~size_t(7);
}

}  // namespace

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
  const uint32_t width = rows_.width;
  const size_t slots = size_t(n) * width;
  const std::vector<RowShape::ByRef> none;
  const auto& by_ref = rows_.shape ? rows_.shape->by_ref : none;
  FileBatchHeader header{n, rows_.has_nulls ? 1u : 0u, 0};
  for (uint32_t r = first; r < first + n; ++r)
    for (const RowShape::ByRef& ref : by_ref)
      if (!rows_.is_null(r, ref.slot))
        header.payload_bytes += padded(datum_ref_size(ref.typlen, rows_.row(r)[ref.slot]));

  const size_t values_at = sizeof header, nulls_at = values_at + slots * sizeof(Datum);
  const size_t payload_at = nulls_at + (header.has_nulls ? slots : 0);
  spill_buffer_.assign(payload_at + header.payload_bytes, '\0');
  char* out = spill_buffer_.data();
  std::memcpy(out, &header, sizeof header);
  std::memcpy(out + values_at, rows_.row(first), slots * sizeof(Datum));
  if (header.has_nulls)
    std::memcpy(out + nulls_at, rows_.nulls.data() + size_t(first) * width, slots);
  // A by-reference slot holds its value's size in the file; the value follows the flags.
  size_t at = payload_at;
  for (uint32_t i = 0; i < n; ++i)
    for (const RowShape::ByRef& ref : by_ref) {
      if (rows_.is_null(first + i, ref.slot)) continue;
      const Datum v = rows_.row(first + i)[ref.slot];
      const Datum size = datum_ref_size(ref.typlen, v);
      std::memcpy(out + values_at + (size_t(i) * width + ref.slot) * sizeof(Datum), &size,
                  sizeof size);
      std::memcpy(out + at, datum_pointer(v), size_t(size));
      at += padded(size_t(size));
    }
  file_->append(out, spill_buffer_.size());
}

void MaterializeNode::read_file_batch() {
  from_file_first_ += from_file_.count;
  FileBatchHeader header;
  file_->read_exact(&header, sizeof header);
  const uint32_t width = rows_.width;
  const size_t slots = size_t(header.rows) * width;
  from_file_.shape = rows_.shape;
  from_file_.reset(width, header.rows);
  file_->read_exact(from_file_.row(0), slots * sizeof(Datum));
  if (header.has_nulls) file_->read_exact(from_file_.null_flags(0), slots);
  // The values' bytes in one piece of the batch's arena, each 8-aligned as a copy's.
  char* payload = header.payload_bytes ? from_file_.arena.allocate(header.payload_bytes) : nullptr;
  file_->read_exact(payload, header.payload_bytes);
  if (rows_.shape) {
    uint64_t at = 0;
    for (uint32_t i = 0; i < header.rows; ++i)
      for (const RowShape::ByRef& ref : rows_.shape->by_ref) {
        if (from_file_.is_null(i, ref.slot)) continue;
        Datum& v = from_file_.row(i)[ref.slot];
        const uint64_t size = uint64_t(v);
        if (at + size > header.payload_bytes)
          throw Error("temporary file \"" + file_->path() + "\" is damaged")
              .with_sqlstate(sqlstate::kDataCorrupted);
        v = pointer_datum(payload + at);
        at += padded(size);
      }
  }
  from_file_.count = header.rows;
}

}  // namespace tp::scans
