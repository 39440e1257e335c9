// Heap tuples of any row type, as PostgreSQL 15's heap_form_tuple and
// heap_deform_tuple make and read them:
//
//   header (23 bytes) | null bitmap (if a value is NULL) | pad to 8 = t_hoff | data
//
// In the data each non-NULL value follows the last, aligned to its type (1, 2, 4 or 8
// bytes from the tuple's start), except that a varlena of at most 126 payload bytes
// is packed with a 1-byte length word and no alignment (the type's storage allows it
// for every varlena tidepool has). NULLs take no data bytes; bit i of the bitmap is set
// when attribute i is present. t_infomask has HEAP_HASNULL when the bitmap is there
// and HEAP_HASVARWIDTH when a varlena value is. Padding bytes are zero, which is how a
// reader tells a packed varlena (first byte odd) from the padding before an aligned one.
//
// HeapTupleLayout (heap_tuple.h) is the fast path for rows of int4/int8 columns without
// NULLs, whose every column has a fixed offset; it writes the same bytes.
//
//   TupleFormat f = TupleFormat::of_types({TypeId::kInt4, TypeId::kText});
//   uint32_t len = f.tuple_size(values, isnull);
//   f.form(values, isnull, tid, buf, len);
//   f.deform(buf, len, values, isnull);   // text values point into buf
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/block.h"
#include "engine/core/datum.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/types.h"

namespace tp {

// How one attribute is stored (pg_attribute's attlen, attalign, attbyval and whether
// attstorage lets a varlena be packed).
struct AttrFormat {
  int16_t len = 4;  // -1: varlena
  uint8_t align = 4;
  bool byval = true;
  bool packable = false;

  static AttrFormat of(TypeId t) {
    const TypeInfo& i = type_info(t);
    return {i.len, i.align, i.byval, i.packable};
  }
};

inline constexpr uint16_t kHeapHasNull = 0x0001;
inline constexpr uint16_t kHeapHasVarWidth = 0x0002;
inline constexpr uint16_t kHeapNattsMask = 0x07FF;
inline constexpr uint32_t kMaxHeapAttributes = 1600;  // MaxHeapAttributeNumber

class TupleFormat {
 public:
  explicit TupleFormat(std::vector<AttrFormat> attrs);
  static TupleFormat of_types(const std::vector<TypeId>& types);

  size_t natts() const { return attrs_.size(); }
  const AttrFormat& attr(size_t i) const { return attrs_[i]; }

  // t_len of the tuple holding these values (header, bitmap, padding and data).
  uint32_t tuple_size(const Datum* values, const bool* isnull) const;
  // Writes the tuple (tuple_size bytes, given as `size`) into `out`: xmin frozen,
  // t_ctid `self`.
  void form(const Datum* values, const bool* isnull, Tid self, char* out, uint32_t size) const;
  // Reads every attribute of the `len`-byte tuple: by-value ones as Datums,
  // by-reference ones as pointers into `tuple`. Attributes past the tuple's own count
  // (added to the table later) are NULL. A damaged tuple (an offset past `len`, a
  // compressed or out-of-line value, a header that does not add up) throws tp::Error
  // XX001 rather than reading beyond it. `upto`: only the first `upto` attributes are
  // read (PostgreSQL's slot_getsomeattrs); the rest of `values` is left as it was.
  void deform(const char* tuple, uint32_t len, Datum* values, bool* isnull,
              size_t upto = SIZE_MAX) const;

 private:
  std::vector<AttrFormat> attrs_;
};

// Header bytes every heap tuple tidepool writes share: t_xmin FrozenTransactionId,
// t_xmax invalid, t_ctid `self`, t_infomask2 natts, t_infomask the frozen and
// xmax-invalid hint bits plus `infomask`, t_hoff `hoff`.
void write_heap_tuple_header(char* out, Tid self, uint16_t natts, uint16_t infomask, uint8_t hoff);

// Reads a heap tuple's integer columns for the paths that know a row by its integer
// columns (index builds and checks, ANALYZE): at their fixed offsets when the tuple has
// no NULL (HeapTupleLayout), else from the deformed tuple, a NULL as nullopt.
//
//   HeapRowReader r(table.columns);
//   r.load(tuple, len);                     // throws XX001 for a damaged tuple with NULLs
//   std::optional<int64_t> a = r.integer(0);
class HeapRowReader {
 public:
  explicit HeapRowReader(const std::vector<Column>& columns);
  void load(const char* tuple, uint32_t len);
  // Column `col` (int4 or int8 at a fixed offset) of the loaded tuple.
  std::optional<int64_t> integer(size_t col) const;
  // Any column: its Datum (by-reference values point into the tuple), nullopt for NULL.
  std::optional<Datum> datum(size_t col);

 private:
  TupleFormat format_;
  HeapTupleLayout layout_;  // the fixed offsets of a tuple without NULLs
  const char* tuple_ = nullptr;
  uint32_t len_ = 0;
  bool deformed_ = false;  // values_ hold the loaded tuple
  std::vector<Datum> values_;
  std::unique_ptr<bool[]> isnull_;
};

}  // namespace tp
