// Rows in a temporary file (aio/temp_file.h), as the nodes that spill write and read
// them: a file batch is a header (rows, whether NULL flags follow, the by-reference
// bytes), the rows' Datums as in a RowBatch (a by-reference slot holding its value's
// size), the NULL flags if any, then the by-reference values, each padded to 8 bytes.
// MaterializeNode replays its rows from one; a spilling HashAggregate writes each
// partition's rows to one and reads them back as its next batch's input.
//
//   write_row_file_batch(file, rows, first, n, scratch);
//   file.rewind();
//   while (read_row_file_batch(file, rows.shape, rows.width, batch)) use(batch);
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "aio/temp_file.h"
#include "scans/row_batch.h"

namespace tp::scans {

// Appends rows [first, first + n) of `rows` as one file batch (`scratch`: its bytes).
void write_row_file_batch(aio::TempFile& file, const RowBatch& rows, uint32_t first, uint32_t n,
                          std::string& scratch);

// Reads the next file batch into `out` (rows of `width` slots typed by `shape`, their
// bytes in its arena); false at the file's end. A batch cut short or pointing past its
// bytes is damage: tp::Error naming the file (XX001).
bool read_row_file_batch(aio::TempFile& file, const std::shared_ptr<const RowShape>& shape,
                         uint32_t width, RowBatch& out);

}  // namespace tp::scans
