// TupleReader: how a heap-reading node (Seq Scan, Index Scan, Bitmap Heap Scan) turns a
// heap tuple into its output row, the executor's per-row hot path.
//
// Two ways, chosen per tuple:
//   fixed offsets  every output column sits at an offset known from the row type (no
//                  varlena before it) and the tuple has no NULL: each value is one load
//                  at its offset (the int4/int8 tables of the experiments never leave
//                  this path);
//   deform         otherwise (a column after a text or numeric, a NULL in the tuple):
//                  the tuple is deformed as PostgreSQL's heap_deform_tuple does
//                  (engine/core/tuple_format.h) and by-reference values are copied into
//                  the batch's arena, since the page is released after the batch.
//
//   TupleReader reader(table.columns, {0, 3});    // output slots: columns 0 and 3
//   batch.shape = reader.shape();
//   reader.read(page + item->off, item->len, batch, scratch);   // appends one row
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/core/datetime.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/tuple_format.h"
#include "scans/qual.h"
#include "scans/row_batch.h"

namespace tp::scans {

// A by-value column at a fixed offset inside a tuple.
struct OutputColumn {
  uint32_t offset = 0;  // byte offset inside the tuple
  uint8_t len = 4;      // 1, 2, 4 or 8 bytes; 1 (boolean) zero-extended, 2 and 4 sign-extended

  Datum load(const char* tuple) const { return fetch_byval(tuple + offset, len); }
};

// A deformed tuple's values, kept by the node between rows (no allocation per row).
struct DeformScratch {
  std::vector<Datum> values;
  std::unique_ptr<bool[]> isnull;
  size_t natts = 0;
  // The tuple passes() deformed for its qual and how many leading columns, which read()
  // of the same row reuses; cleared by each passes() and read(), so no other row can
  // take it.
  const char* deformed_tuple = nullptr;
  size_t deformed_columns = 0;
  // Where a typed qual's intermediate values go (emptied per row), and the statement's
  // time for CURRENT_DATE.
  ValueArena arena;
  EvalState eval{nullptr, timestamp_now()};
};

class TupleReader {
 public:
  TupleReader() = default;
  // Output slot i holds table column columns[i].
  TupleReader(const std::vector<Column>& table, const std::vector<int>& columns);

  uint32_t width() const { return uint32_t(columns_.size()); }
  // The output slots' types; null when every slot is an integer (int4 / int8).
  const std::shared_ptr<const RowShape>& shape() const { return shape_; }

  // Appends the tuple's output row at dst.count (room reserved) and counts it.
  void read(const char* tuple, uint32_t len, RowBatch& dst, DeformScratch& scratch) const {
    // No column to copy (count(*)): the tuple is not touched at all.
    if (columns_.empty()) {
      ++dst.count;
      return;
    }
    if (fixed_ && (!nullable_ || !tuple_has_nulls(tuple))) {
      Datum* out = dst.row(dst.count);
      for (size_t c = 0; c < fixed_columns_.size(); ++c) out[c] = fixed_columns_[c].load(tuple);
      if (dst.has_nulls) std::memset(dst.null_flags(dst.count), 0, dst.width);
      ++dst.count;
      return;
    }
    read_deformed(tuple, len, dst, scratch);
  }

  // Whether the tuple passes `qual` (columns of the same table): tested at byte offsets,
  // or by its values with three-valued logic when the tuple has NULLs.
  bool passes(const CompiledQual& qual, const char* tuple, uint32_t len,
              DeformScratch& scratch) const {
    // A row's values are deformed afresh for its first qual (the same address may hold
    // another row by now: an index-only scan forms each in one buffer).
    scratch.deformed_tuple = nullptr;
    if (!qual.needs_values && !tuple_has_nulls(tuple)) return qual.evaluate(tuple);
    deform(tuple, len, scratch, qual.deform_columns);
    scratch.arena.clear();
    scratch.eval.arena = &scratch.arena;  // set here: a moved scratch keeps no stale pointer
    return qual.evaluate_values(scratch.values.data(), scratch.isnull.get(), scratch.eval);
  }

  static bool tuple_has_nulls(const char* tuple) {
    uint16_t infomask;
    std::memcpy(&infomask, tuple + 20, 2);
    return (infomask & kHeapHasNull) != 0;
  }

 private:
  void read_deformed(const char* tuple, uint32_t len, RowBatch& dst, DeformScratch& scratch) const;
  // Deforms the first `upto` columns of `tuple` into `scratch`, unless passes() already
  // did for this row.
  void deform(const char* tuple, uint32_t len, DeformScratch& scratch, size_t upto) const;

  std::vector<uint32_t> columns_;            // table column per output slot
  size_t deform_columns_ = 0;                // one past the highest output column
  bool fixed_ = true;                        // every output column at a fixed offset
  bool nullable_ = false;                    // the table's tuples may carry NULLs
  std::vector<OutputColumn> fixed_columns_;  // when fixed_
  std::shared_ptr<const TupleFormat> format_;
  std::vector<int16_t> typlen_;  // per output slot; by-value: 0
  std::shared_ptr<const RowShape> shape_;
};

}  // namespace tp::scans
