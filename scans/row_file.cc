#include "scans/row_file.h"

#include <cstring>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"

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

void write_row_file_batch(aio::TempFile& file, const RowBatch& rows, uint32_t first, uint32_t n,
                          std::string& scratch) {
  const uint32_t width = rows.width;
  const size_t slots = size_t(n) * width;
  const std::vector<RowShape::ByRef> none;
  const auto& by_ref = rows.shape ? rows.shape->by_ref : none;
  const bool nulls = rows.has_nulls;
  FileBatchHeader header{n, nulls ? 1u : 0u, 0};
  for (uint32_t r = first; r < first + n; ++r)
    for (const RowShape::ByRef& ref : by_ref)
      if (!rows.is_null(r, ref.slot))
        header.payload_bytes += padded(datum_ref_size(ref.typlen, rows.row(r)[ref.slot]));

  const size_t values_at = sizeof header, nulls_at = values_at + slots * sizeof(Datum);
  const size_t payload_at = nulls_at + (nulls ? slots : 0);
  scratch.assign(payload_at + header.payload_bytes, '\0');
  char* out = scratch.data();
  std::memcpy(out, &header, sizeof header);
  if (slots > 0) std::memcpy(out + values_at, rows.row(first), slots * sizeof(Datum));
  if (nulls) std::memcpy(out + nulls_at, rows.nulls.data() + size_t(first) * width, slots);
  // A by-reference slot holds its value's size in the file; the value follows the flags.
  size_t at = payload_at;
  for (uint32_t i = 0; i < n; ++i)
    for (const RowShape::ByRef& ref : by_ref) {
      if (rows.is_null(first + i, ref.slot)) continue;
      const Datum v = rows.row(first + i)[ref.slot];
      const Datum size = datum_ref_size(ref.typlen, v);
      std::memcpy(out + values_at + (size_t(i) * width + ref.slot) * sizeof(Datum), &size,
                  sizeof size);
      std::memcpy(out + at, datum_pointer(v), size_t(size));
      at += padded(size_t(size));
    }
  file.append(out, scratch.size());
}

bool read_row_file_batch(aio::TempFile& file, const std::shared_ptr<const RowShape>& shape,
                         uint32_t width, RowBatch& out) {
  FileBatchHeader header;
  const size_t got = file.read(&header, sizeof header);
  if (got == 0) return false;
  if (got != sizeof header)
    throw Error("temporary file \"" + file.path() + "\" is damaged")
        .with_sqlstate(sqlstate::kDataCorrupted);
  const size_t slots = size_t(header.rows) * width;
  out.shape = shape;
  out.reset(width, header.rows);
  if (slots > 0) file.read_exact(out.row(0), slots * sizeof(Datum));
  if (header.has_nulls) file.read_exact(out.null_flags(0), slots);
  // The values' bytes in one piece of the batch's arena, each 8-aligned as a copy's.
  char* payload = header.payload_bytes ? out.arena.allocate(header.payload_bytes) : nullptr;
  file.read_exact(payload, header.payload_bytes);
  if (shape) {
    uint64_t at = 0;
    for (uint32_t i = 0; i < header.rows; ++i)
      for (const RowShape::ByRef& ref : shape->by_ref) {
        if (out.is_null(i, ref.slot)) continue;
        Datum& v = out.row(i)[ref.slot];
        const uint64_t size = uint64_t(v);
        if (at + size > header.payload_bytes)
          throw Error("temporary file \"" + file.path() + "\" is damaged")
              .with_sqlstate(sqlstate::kDataCorrupted);
        v = pointer_datum(payload + at);
        at += padded(size);
      }
  }
  out.count = header.rows;
  return true;
}

}  // namespace tp::scans
