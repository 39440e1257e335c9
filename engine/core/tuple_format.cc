#include "engine/core/tuple_format.h"

#include <algorithm>

#include <cstring>
#include <string>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"

namespace tp {
namespace {

constexpr uint32_t kFrozenXid = 2;
constexpr uint16_t kInfomaskXminFrozen = 0x0100 | 0x0200;  // XMIN_COMMITTED | XMIN_INVALID
constexpr uint16_t kInfomaskXmaxInvalid = 0x0800;
constexpr uint32_t kNullBitmapOffset = kHeapTupleHeaderSize;  // offsetof(t_bits)

uint32_t align_to(uint32_t off, uint32_t align) {
  return (off + align - 1) & ~(align - 1);
}

uint32_t bitmap_bytes(size_t natts) {
  return uint32_t((natts + 7) / 8);
}

uint32_t header_size(size_t natts, bool has_null) {
  return maxalign(kNullBitmapOffset + (has_null ? bitmap_bytes(natts) : 0));
}

// Where a non-NULL value starts when the data so far ends at `off`, and its size there:
// heap_compute_data_size's rules. `packed` says a 4-byte-header varlena goes in with a
// 1-byte header.
struct Placement {
  uint32_t start;
  uint32_t size;
  bool packed;
};

Placement place(const AttrFormat& a, Datum value, uint32_t off) {
  if (a.len >= 0) return {align_to(off, a.align), uint32_t(a.len), false};
  const char* p = datum_pointer(value);
  const uint32_t size = varlena_size(p);
  if (varlena_is_short(p)) return {off, size, false};
  const uint32_t packed_size = size - kVarlenaHeader + 1;
  if (a.packable && packed_size <= kShortVarlenaMax) return {off, packed_size, true};
  return {align_to(off, a.align), size, false};
}

void store_byval(char* at, Datum v, int16_t len) {
  switch (len) {
    case 1:
      *at = char(v);
      break;
    case 2: {
      auto x = int16_t(v);
      std::memcpy(at, &x, 2);
      break;
    }
    case 4: {
      auto x = int32_t(v);
      std::memcpy(at, &x, 4);
      break;
    }
    default:
      std::memcpy(at, &v, 8);
  }
}

[[noreturn]] void damaged(const std::string& what) {
  throw Error("invalid heap tuple: " + what).with_sqlstate(sqlstate::kDataCorrupted);
}

}  // namespace

TupleFormat::TupleFormat(std::vector<AttrFormat> attrs) : attrs_(std::move(attrs)) {}

TupleFormat TupleFormat::of_types(const std::vector<TypeId>& types) {
  std::vector<AttrFormat> attrs;
  attrs.reserve(types.size());
  for (TypeId t : types) attrs.push_back(AttrFormat::of(t));
  return TupleFormat(std::move(attrs));
}

uint32_t TupleFormat::tuple_size(const Datum* values, const bool* isnull) const {
  uint32_t off = 0;
  bool has_null = false;
  for (size_t i = 0; i < attrs_.size(); ++i) {
    if (isnull[i]) {
      has_null = true;
      continue;
    }
    const Placement p = place(attrs_[i], values[i], off);
    off = p.start + p.size;
  }
  return header_size(attrs_.size(), has_null) + off;
}

void TupleFormat::form(const Datum* values, const bool* isnull, Tid self, char* out,
                       uint32_t size) const {
  std::memset(out, 0, size);
  bool has_null = false;
  for (size_t i = 0; i < attrs_.size(); ++i) has_null = has_null || isnull[i];
  const uint32_t hoff = header_size(attrs_.size(), has_null);
  uint16_t infomask = has_null ? kHeapHasNull : 0;
  char* data = out + hoff;
  uint32_t off = 0;
  for (size_t i = 0; i < attrs_.size(); ++i) {
    if (isnull[i]) continue;
    if (has_null) out[kNullBitmapOffset + i / 8] |= char(1 << (i % 8));
    const AttrFormat& a = attrs_[i];
    const Placement p = place(a, values[i], off);
    TP_ASSERT(hoff + p.start + p.size <= size);
    char* at = data + p.start;
    if (a.byval) {
      store_byval(at, values[i], a.len);
    } else if (p.packed) {
      const char* v = datum_pointer(values[i]);
      *at = char(p.size << 1 | 1);
      std::memcpy(at + 1, v + kVarlenaHeader, p.size - 1);
    } else {
      std::memcpy(at, datum_pointer(values[i]), p.size);
    }
    if (a.len < 0) infomask |= kHeapHasVarWidth;
    off = p.start + p.size;
  }
  write_heap_tuple_header(out, self, uint16_t(attrs_.size()), infomask, uint8_t(hoff));
}

void TupleFormat::deform(const char* tuple, uint32_t len, Datum* values, bool* isnull,
                         size_t upto) const {
  if (len < kNullBitmapOffset) damaged("length " + std::to_string(len) + " is below its header");
  uint16_t infomask2, infomask;
  std::memcpy(&infomask2, tuple + 18, 2);
  std::memcpy(&infomask, tuple + 20, 2);
  const size_t natts = infomask2 & kHeapNattsMask;
  const bool has_null = (infomask & kHeapHasNull) != 0;
  const uint32_t hoff = uint8_t(tuple[22]);
  if (hoff < kNullBitmapOffset + (has_null ? bitmap_bytes(natts) : 0) || hoff > len)
    damaged("t_hoff " + std::to_string(hoff) + " does not fit its " + std::to_string(natts) +
            " attributes in " + std::to_string(len) + " bytes");
  const auto* bits = reinterpret_cast<const uint8_t*>(tuple + kNullBitmapOffset);
  uint32_t off = hoff;
  const size_t n = std::min(attrs_.size(), upto);
  size_t i = 0;
  if (!has_null && natts >= n) {
    // Most tuples: no NULL, fixed-width values and packed varlenas, read without the
    // checks below; anything else (a 4-byte header, padding before one, a value running
    // past the end) goes on in the general loop from the same attribute.
    for (; i < n; ++i) {
      const AttrFormat& a = attrs_[i];
      if (a.len > 0) {
        const uint32_t start = align_to(off, a.align);
        if (start + uint32_t(a.len) > len) break;
        isnull[i] = false;
        values[i] = a.byval ? fetch_byval(tuple + start, a.len) : pointer_datum(tuple + start);
        off = start + uint32_t(a.len);
        continue;
      }
      if (off >= len) break;
      const auto first = uint8_t(tuple[off]);
      if ((first & 1) == 0 || first == 1) break;  // not a packed varlena
      const uint32_t size = first >> 1;
      if (size > len - off) break;
      isnull[i] = false;
      values[i] = pointer_datum(tuple + off);
      off += size;
    }
  }
  for (; i < n; ++i) {
    isnull[i] = i >= natts || (has_null && (bits[i / 8] & (1 << (i % 8))) == 0);
    values[i] = 0;
    if (isnull[i]) continue;
    const AttrFormat& a = attrs_[i];
    // A nonzero byte where a varlena may start is a packed one's header: no padding.
    if (a.len >= 0 || off >= len || tuple[off] == 0) off = align_to(off, a.align);
    if (off >= len) damaged("attribute " + std::to_string(i + 1) + " starts past its end");
    uint32_t size = uint32_t(a.len);
    if (a.len < 0) {
      const char* v = tuple + off;
      if (varlena_is_external(v) || varlena_is_compressed(v))
        damaged("attribute " + std::to_string(i + 1) + " is compressed or stored out of line");
      if (!varlena_is_short(v) && off + kVarlenaHeader > len)
        damaged("attribute " + std::to_string(i + 1) + " has a cut length word");
      size = varlena_size(v);
      if (size < varlena_header_size(v))
        damaged("attribute " + std::to_string(i + 1) + " has a length below its header");
    }
    if (size > len - off)
      damaged("attribute " + std::to_string(i + 1) + " runs past the tuple's " +
              std::to_string(len) + " bytes");
    values[i] = a.byval ? fetch_byval(tuple + off, a.len) : pointer_datum(tuple + off);
    off += size;
  }
}

void write_heap_tuple_header(char* out, Tid self, uint16_t natts, uint16_t infomask, uint8_t hoff) {
  const uint32_t xmin = kFrozenXid;
  std::memcpy(out + 0, &xmin, 4);  // t_xmax (4..7) and t_cid (8..11) stay 0
  const auto bi_hi = uint16_t(self.block >> 16), bi_lo = uint16_t(self.block & 0xFFFF);
  std::memcpy(out + 12, &bi_hi, 2);  // t_ctid: points at itself
  std::memcpy(out + 14, &bi_lo, 2);
  std::memcpy(out + 16, &self.offset, 2);
  const uint16_t mask = infomask | kInfomaskXminFrozen | kInfomaskXmaxInvalid;
  std::memcpy(out + 18, &natts, 2);
  std::memcpy(out + 20, &mask, 2);
  out[22] = char(hoff);
}

HeapRowReader::HeapRowReader(const std::vector<Column>& columns)
    : format_(TupleFormat::of_types([&] {
        std::vector<TypeId> types;
        for (const Column& c : columns) types.push_back(c.type);
        return types;
      }())),
      layout_(columns),
      values_(columns.size()),
      isnull_(std::make_unique<bool[]>(columns.size())) {}

void HeapRowReader::load(const char* tuple, uint32_t len) {
  tuple_ = tuple;
  len_ = len;
  uint16_t infomask;
  std::memcpy(&infomask, tuple + 20, 2);
  deformed_ = (infomask & kHeapHasNull) != 0;
  if (deformed_) format_.deform(tuple, len, values_.data(), isnull_.get());
}

std::optional<int64_t> HeapRowReader::integer(size_t col) const {
  if (deformed_) return isnull_[col] ? std::nullopt : std::optional<int64_t>(values_[col]);
  const uint32_t size = layout_.type(col) == TypeId::kInt4 ? 4 : 8;
  if (!layout_.fixed(col) || layout_.offset(col) + size > len_)
    throw Error("a row's column " + std::to_string(col + 1) + " lies beyond its " +
                std::to_string(len_) + " bytes")
        .with_sqlstate(sqlstate::kDataCorrupted);
  return layout_.get(tuple_, col);
}

std::optional<Datum> HeapRowReader::datum(size_t col) {
  if (!deformed_) {
    format_.deform(tuple_, len_, values_.data(), isnull_.get());
    deformed_ = true;
  }
  return isnull_[col] ? std::nullopt : std::optional<Datum>(values_[col]);
}

}  // namespace tp
