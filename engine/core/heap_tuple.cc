#include "engine/core/heap_tuple.h"

#include <algorithm>

#include "engine/core/tuple_format.h"

namespace tp {

HeapTupleLayout::HeapTupleLayout(const std::vector<Column>& columns) {
  uint32_t off = kHeapTupleDataOffset;
  bool known = true;  // no varlena so far: this column's offset is fixed
  types_.reserve(columns.size());
  offsets_.reserve(columns.size());
  for (const Column& c : columns) {
    const TypeInfo& info = type_info(c.type);
    types_.push_back(c.type);
    if (!known || info.len < 0) {
      known = false;
      offsets_.push_back(kNoFixedOffset);
      continue;
    }
    off = (off + info.align - 1) & ~uint32_t(info.align - 1);
    offsets_.push_back(info.byval ? off : kNoFixedOffset);
    off += uint32_t(info.len);
    all_integers_ = all_integers_ && (c.type == ColumnType::kInt4 || c.type == ColumnType::kInt8);
  }
  all_integers_ = all_integers_ && known;
  tuple_size_ = known ? off : 0;
}

void HeapTupleLayout::form(const int64_t* values, Tid self, char* out) const {
  std::memset(out, 0, tuple_size_);
  write_heap_tuple_header(out, self, uint16_t(types_.size()), 0, uint8_t(kHeapTupleDataOffset));
  for (size_t c = 0; c < types_.size(); ++c) {
    if (types_[c] == ColumnType::kInt4) {
      int32_t v = int32_t(values[c]);
      std::memcpy(out + offsets_[c], &v, 4);
    } else {
      std::memcpy(out + offsets_[c], &values[c], 8);
    }
  }
}

uint32_t heap_target_free_space(uint32_t aligned_len, int fillfactor) {
  uint32_t save = kBlockSize * uint32_t(100 - fillfactor) / 100;
  uint32_t target = aligned_len + save;
  if (target > kMaxHeapTupleSize) target = std::max(aligned_len, kMaxHeapTupleSize);
  return target;
}

uint32_t heap_page_free_space(const char* page) {
  if (page_max_offset(page) >= kMaxHeapTuplesPerPage) return 0;
  return page_free_space(page);
}

bool heap_page_accepts(const char* page, uint32_t aligned_len, int fillfactor) {
  return heap_page_free_space(page) >= heap_target_free_space(aligned_len, fillfactor);
}

uint32_t heap_rows_per_page(uint32_t tuple_size, int fillfactor) {
  uint32_t len = maxalign(tuple_size);
  uint32_t save = kBlockSize * uint32_t(100 - fillfactor) / 100;
  uint32_t target = len + save;
  if (target > kMaxHeapTupleSize) target = std::max(len, kMaxHeapTupleSize);
  // After k tuples: free = 8192 - 24 - k*(len + 4) - 4; a page takes one more while free >= target.
  int64_t base = int64_t(kBlockSize) - kPageHeaderSize - kItemIdSize - target;
  if (base < 0) return 1;
  uint32_t k = uint32_t(base / (len + kItemIdSize)) + 1;
  return std::min(k, kMaxHeapTuplesPerPage);
}

}  // namespace tp
