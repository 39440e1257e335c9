// Heap tuples: PostgreSQL's 23-byte header padded to t_hoff = 24, then the
// column values, each aligned to its type (int4: 4, int8: 8). An (int4, int4)
// row is 32 bytes; with its line pointer it takes 36 bytes of page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/page.h"
#include "engine/core/types.h"

namespace tp {

// A column's type is any stored type (engine/core/types.h).
using ColumnType = TypeId;

inline std::string column_type_name(ColumnType t, int32_t typmod = kNoTypmod) {
  return format_type(t, typmod);
}
struct Column {
  std::string name;
  ColumnType type = ColumnType::kInt4;
  int32_t typmod = kNoTypmod;  // atttypmod: varchar(n)'s n + 4, numeric(p, s)'s ...
  bool not_null = false;       // attnotnull: NOT NULL, or a primary key's column
};

// The width the planner assumes for the column without statistics (get_typavgwidth).
inline int32_t column_avg_width(const Column& c) {
  return type_avg_width(c.type, c.typmod);
}

inline constexpr uint32_t kHeapTupleHeaderSize = 23;  // before padding
inline constexpr uint32_t kHeapTupleDataOffset = 24;  // t_hoff
// The most free space a fillfactor target asks of a page: PostgreSQL's
// MaxHeapTupleSize less MaxHeapTuplesPerPage / 8 line pointers (hio.c's
// "nearly empty" page), so a large row still goes into an empty page.
inline constexpr uint32_t kMaxHeapTupleSize = 8016;
// The largest tuple an empty page takes (PostgreSQL's MaxHeapTupleSize, 8160): a
// longer row is refused, as tidepool has no TOAST to move values out of line.
inline constexpr uint32_t kMaxStoredTuple = kBlockSize - maxalign(kPageHeaderSize + kItemIdSize);

// Where each column of a row type sits inside a tuple without NULLs: a by-value column
// with no varlena before it has a fixed offset (fixed()); the others are found by
// deforming the tuple (engine/core/tuple_format.h). Rows of int4/int8 columns only
// (all_integers()) are formed here too, the fast path of loading them.
class HeapTupleLayout {
 public:
  static constexpr uint32_t kNoFixedOffset = UINT32_MAX;
  explicit HeapTupleLayout(const std::vector<Column>& columns);

  size_t columns() const { return types_.size(); }
  ColumnType type(size_t col) const { return types_[col]; }
  bool fixed(size_t col) const { return offsets_[col] != kNoFixedOffset; }
  uint32_t offset(size_t col) const { return offsets_[col]; }
  // Every column int4 or int8: form() and tuple_size() apply.
  bool all_integers() const { return all_integers_; }
  uint32_t tuple_size() const { return tuple_size_; }  // unaligned t_len; 0 with a varlena

  // Writes a complete tuple (header + values) into `out` (tuple_size() bytes), for an
  // all_integers() layout. Values are range-checked by the caller (int4 columns hold
  // int4 values).
  void form(const int64_t* values, Tid self, char* out) const;

  // A fixed-offset by-value column's value.
  int64_t get(const char* tuple, size_t col) const {
    return fetch_byval(tuple + offsets_[col], type_info(types_[col]).len);
  }

 private:
  std::vector<ColumnType> types_;
  std::vector<uint32_t> offsets_;
  uint32_t tuple_size_ = 0;
  bool all_integers_ = true;
};

// PostgreSQL's fillfactor rule: may a heap page with `free` bytes (as
// page_free_space reports) take a tuple of aligned length `len`?
bool heap_page_accepts(const char* page, uint32_t aligned_len, int fillfactor);
// Its parts: the free space a tuple of aligned length `len` asks of a page (hio.c's
// targetFreeSpace: the row plus the fillfactor's reserve, at most a nearly empty page),
// and a heap page's free space (PageGetHeapFreeSpace: none once it has
// MaxHeapTuplesPerPage line pointers).
uint32_t heap_target_free_space(uint32_t aligned_len, int fillfactor);
uint32_t heap_page_free_space(const char* page);

// Rows per page of a bulk load into empty pages (closed form; tests compare it
// with real loads).
uint32_t heap_rows_per_page(uint32_t tuple_size, int fillfactor);

}  // namespace tp
