#include "scans/tuple_reader.h"

#include <algorithm>

namespace tp::scans {

TupleReader::TupleReader(const std::vector<Column>& table, const std::vector<int>& columns) {
  HeapTupleLayout layout(table);
  std::vector<TypeId> types;
  std::vector<TypeId> all;
  bool integers = true;
  types.reserve(columns.size());
  all.reserve(table.size());
  columns_.reserve(columns.size());
  typlen_.reserve(columns.size());
  fixed_columns_.reserve(columns.size());
  for (const Column& c : table) all.push_back(c.type);
  for (int c : columns) {
    const Column& col = table[size_t(c)];
    columns_.push_back(uint32_t(c));
    deform_columns_ = std::max(deform_columns_, size_t(c) + 1);
    types.push_back(col.type);
    const TypeInfo& info = type_info(col.type);
    typlen_.push_back(info.byval ? 0 : info.len);
    integers = integers && (col.type == TypeId::kInt4 || col.type == TypeId::kInt8);
    if (layout.fixed(size_t(c)))
      fixed_columns_.push_back({layout.offset(size_t(c)), uint8_t(info.len)});
    else
      fixed_ = false;
  }
  // Tables hold NULLs only in columns tidepool lets be NULL; the integer tables of
  // today's experiments have none, and their tuples never carry a null bitmap. Any
  // table may, once a NULL is inserted, so the fast path checks each tuple's flag.
  nullable_ = true;
  format_ = std::make_shared<const TupleFormat>(TupleFormat::of_types(all));
  if (!integers) shape_ = std::make_shared<const RowShape>(types);
}

void TupleReader::deform(const char* tuple, uint32_t len, DeformScratch& scratch,
                         size_t upto) const {
  const size_t natts = format_->natts();
  if (scratch.natts != natts) {
    scratch.values.assign(natts, 0);
    scratch.isnull = std::make_unique<bool[]>(natts);
    scratch.natts = natts;
    scratch.deformed_tuple = nullptr;
  }
  upto = std::min(upto, natts);
  if (scratch.deformed_tuple == tuple && scratch.deformed_columns >= upto) return;
  format_->deform(tuple, len, scratch.values.data(), scratch.isnull.get(), upto);
  scratch.deformed_tuple = tuple;
  scratch.deformed_columns = upto;
}

void TupleReader::read_deformed(const char* tuple, uint32_t len, RowBatch& dst,
                                DeformScratch& scratch) const {
  deform(tuple, len, scratch, deform_columns_);
  scratch.deformed_tuple = nullptr;  // this row is done
  const uint32_t row = dst.count;
  Datum* out = dst.row(row);
  bool any_null = false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const uint32_t c = columns_[i];
    if (scratch.isnull[c]) {
      dst.set_null(row, uint32_t(i));
      any_null = true;
      continue;
    }
    const Datum d = scratch.values[c];
    out[i] = typlen_[i] == 0 ? d : dst.arena.copy(datum_pointer(d), datum_ref_size(typlen_[i], d));
  }
  if (dst.has_nulls && !any_null) std::memset(dst.null_flags(row), 0, dst.width);
  // A row with NULLs may follow one without: reset this row's other flags.
  if (any_null)
    for (size_t i = 0; i < columns_.size(); ++i)
      if (!scratch.isnull[columns_[i]]) dst.null_flags(row)[i] = 0;
  ++dst.count;
}

}  // namespace tp::scans
