#include "scans/row_batch.h"

#include <algorithm>
#include <cstring>

namespace tp::scans {

RowShape::RowShape(std::vector<TypeId> slot_types) : types(std::move(slot_types)) {
  for (uint32_t s = 0; s < types.size(); ++s) {
    const TypeInfo& info = type_info(types[s]);
    if (!info.byval) by_ref.push_back({s, info.len});
  }
}

void RowBatch::start_nulls() {
  nulls.assign(values.size(), 0);
  has_nulls = true;
}

void RowBatch::copy_refs(uint32_t dst_row) {
  Datum* v = row(dst_row);
  const uint8_t* n = has_nulls ? nulls.data() + size_t(dst_row) * width : nullptr;
  for (const RowShape::ByRef& r : shape->by_ref) {
    if (n && n[r.slot]) continue;
    const char* p = datum_pointer(v[r.slot]);
    v[r.slot] = arena.copy(p, datum_ref_size(r.typlen, v[r.slot]));
  }
}

void RowBatch::append(const RowBatch& src, uint32_t i) {
  append_rows(src, i, 1);
}

void RowBatch::append_rows(const RowBatch& src, uint32_t first, uint32_t n) {
  if (n == 0) return;
  if (!shape) shape = src.shape;
  std::copy_n(src.row(first), size_t(n) * width, row(count));
  if (src.has_nulls) {
    if (!has_nulls) start_nulls();
    std::copy_n(src.nulls.data() + size_t(first) * width, size_t(n) * width,
                nulls.data() + size_t(count) * width);
  } else if (has_nulls) {
    std::fill_n(nulls.data() + size_t(count) * width, size_t(n) * width, uint8_t(0));
  }
  if (shape && !shape->by_ref.empty())
    for (uint32_t r = 0; r < n; ++r) copy_refs(count + r);
  count += n;
}

void RowBatch::push(const RowBatch& src, uint32_t i) {
  if (values.size() < size_t(count + 1) * width) {
    values.resize(std::max(size_t(count + 1) * width, values.size() * 2));
    if (has_nulls) nulls.resize(values.size(), 0);
  }
  append_rows(src, i, 1);
}

uint64_t hash_slots(const std::vector<uint32_t>& slots, const RowShape* shape, RowRef r) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint32_t s : slots) {
    uint64_t v;
    if (r.is_null(s))
      v = 0x5bd1e995u;
    else if (!shape || datum_is_integral(shape->types[s]))
      v = uint64_t(r.values[s]);
    else
      v = hash_datum(shape->types[s], r.values[s]);
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

}  // namespace tp::scans
