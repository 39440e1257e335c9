#include "engine/btree/btree_page.h"

#include <algorithm>
#include <limits>

#include "engine/core/datum_ops.h"

namespace tp::btree {

KeyValues::KeyValues(std::initializer_list<int64_t> values) {
  TP_ASSERT(values.size() <= size_t(kMaxKeyColumns));
  for (int64_t value : values) push(value);
}

KeyValues KeyValues::of(const int64_t* values, int count) {
  TP_ASSERT(count >= 0 && count <= kMaxKeyColumns);
  KeyValues key;
  for (int i = 0; i < count; ++i) key.push(values[i]);
  return key;
}

namespace {

struct KeyTypeName {
  KeyType key;
  TypeId type;
};
constexpr KeyTypeName kKeyTypes[] = {
    {KeyType::kInt4, TypeId::kInt4},         {KeyType::kInt8, TypeId::kInt8},
    {KeyType::kInt2, TypeId::kInt2},         {KeyType::kBool, TypeId::kBool},
    {KeyType::kFloat4, TypeId::kFloat4},     {KeyType::kFloat8, TypeId::kFloat8},
    {KeyType::kDate, TypeId::kDate},         {KeyType::kTimestamp, TypeId::kTimestamp},
    {KeyType::kInterval, TypeId::kInterval}, {KeyType::kNumeric, TypeId::kNumeric},
    {KeyType::kText, TypeId::kText},         {KeyType::kVarchar, TypeId::kVarchar},
    {KeyType::kBpchar, TypeId::kBpchar},     {KeyType::kTimestamptz, TypeId::kTimestamptz},
};

// PostgreSQL 15's allequalimage per operator class: whether equal values are equal
// images, so posting lists lose nothing. float (-0 = 0), numeric (1.0 = 1.00) and
// interval (1 day = 24 hours) are not: an index over any of them never deduplicates.
// char(n) is (btvarstrequalimage under a deterministic collation: bt_metap shows
// allequalimage true for a char(8) index; its values are stored padded to n).
bool type_has_equal_image(TypeId t) {
  return t != TypeId::kFloat4 && t != TypeId::kFloat8 && t != TypeId::kNumeric &&
         t != TypeId::kInterval;
}

uint32_t align_to(uint32_t off, uint32_t align) {
  return (off + align - 1) & ~(align - 1);
}

// A varlena index_form_tuple stores with a 1-byte header: already packed, or short
// enough to pack.
bool packs_short(const AttrFormat& a, const char* v) {
  if (varlena_is_short(v)) return true;
  return a.packable && varlena_size(v) - kVarlenaHeader + 1 <= kShortVarlenaMax;
}

// Places the non-NULL value `d` of a column at `off` (writing it when `out` is set);
// returns the offset after it.
uint32_t place_value(const AttrFormat& a, Datum d, uint32_t off, char* out) {
  if (a.byval) {
    off = align_to(off, a.align);
    if (out) {
      const int64_t v = d;
      std::memcpy(out + off, &v, size_t(a.len));  // little-endian: the low bytes
    }
    return off + uint32_t(a.len);
  }
  const char* v = datum_pointer(d);
  if (a.len > 0) {
    off = align_to(off, a.align);
    if (out) std::memcpy(out + off, v, size_t(a.len));
    return off + uint32_t(a.len);
  }
  if (packs_short(a, v)) {
    const std::string_view payload = varlena_payload(v);
    if (out) {
      out[off] = char(uint8_t(((payload.size() + 1) << 1) | 1));
      std::memcpy(out + off + 1, payload.data(), payload.size());
    }
    return off + 1 + uint32_t(payload.size());
  }
  off = align_to(off, a.align);
  const uint32_t size = varlena_size(v);
  if (out) std::memcpy(out + off, v, size);
  return off + size;
}

// Forms the header's info bits and the values of the first `natts` columns of `key`;
// returns the unaligned size. `out` (zeroed by the caller) may be null: measure only.
uint32_t form_key(const TupleLayout& layout, const KeyValues& key, int natts, char* out,
                  uint16_t* info) {
  bool has_null = false, var_width = false;
  for (int i = 0; i < natts; ++i) {
    if (key.is_null(i))
      has_null = true;
    else if (layout.attrs[size_t(i)].len < 0)
      var_width = true;
  }
  uint32_t off = has_null ? kNullTupleHeaderSize : kTupleHeaderSize;
  for (int i = 0; i < natts; ++i) {
    if (key.is_null(i)) continue;
    if (out && has_null) out[kTupleHeaderSize + i / 8] |= char(1 << (i % 8));
    off = place_value(layout.attrs[size_t(i)], key[i], off, out);
  }
  if (info) *info = uint16_t((has_null ? kInfoHasNulls : 0) | (var_width ? kInfoHasVarWidth : 0));
  return off;
}

uint16_t checked_size(uint32_t size) {
  TP_ASSERT(size <= kMaxTupleSize);
  return uint16_t(size);
}

}  // namespace

KeyType key_type_of(TypeId type) {
  for (const KeyTypeName& k : kKeyTypes)
    if (k.type == type) return k.key;
  TP_ASSERT(false);
  return KeyType::kInt4;
}

TypeId key_type_id(KeyType type) {
  for (const KeyTypeName& k : kKeyTypes)
    if (k.key == type) return k.type;
  TP_ASSERT(false);
  return TypeId::kInt4;
}

bool valid_key_type(uint8_t code) {
  for (const KeyTypeName& k : kKeyTypes)
    if (uint8_t(k.key) == code) return true;
  return false;
}

Datum TupleView::walk_to(const TupleLayout& layout, int col) const {
  if (is_null(col)) return 0;
  uint32_t off = has_nulls() ? kNullTupleHeaderSize : kTupleHeaderSize;
  for (int i = 0;; ++i) {
    if (is_null(i)) continue;
    const AttrFormat& a = layout.attrs[size_t(i)];
    // A varlena starts right here when the byte is not padding (a packed header is
    // odd, padding zero), as att_align_pointer decides.
    if (a.len > 0 || p[off] == 0) off = align_to(off, a.align);
    if (i == col) return a.byval ? fetch_byval(p + off, a.len) : pointer_datum(p + off);
    off += a.len > 0 ? uint32_t(a.len) : varlena_size(p + off);
  }
}

std::optional<uint32_t> checked_key_end(const TupleLayout& layout, TupleView t, int natts,
                                        uint32_t limit) {
  const uint32_t start = t.has_nulls() ? kNullTupleHeaderSize : kTupleHeaderSize;
  if (start > limit) return std::nullopt;
  uint32_t off = start;
  for (int i = 0; i < natts; ++i) {
    if (t.is_null(i)) continue;
    const AttrFormat& a = layout.attrs[size_t(i)];
    if (off >= limit) return std::nullopt;
    if (a.len > 0 || t.p[off] == 0) off = align_to(off, a.align);
    if (a.len > 0) {
      off += uint32_t(a.len);
    } else {
      if (off >= limit || (!varlena_is_short(t.p + off) && off + kVarlenaHeader > limit))
        return std::nullopt;
      const char* v = t.p + off;
      if (varlena_is_external(v) || varlena_is_compressed(v) ||
          varlena_size(v) < varlena_header_size(v))
        return std::nullopt;
      off += varlena_size(v);
    }
    if (off > limit) return std::nullopt;
  }
  return off;
}

KeyValues TupleView::key(const TupleLayout& layout) const {
  KeyValues key;
  int n = natts(layout);
  for (int i = 0; i < n; ++i) {
    if (is_null(i))
      key.push_null();
    else
      key.push(value(layout, i));
  }
  return key;
}

uint32_t TupleView::key_size(const TupleLayout& layout) const {
  if (is_posting()) return posting_offset();  // maxaligned: the same tuple size
  return form_key(layout, key(layout), natts(layout), nullptr, nullptr);
}

int TupleLayout::compare_values(int col, Datum a, Datum b) const {
  if (integral || datum_is_integral(type_ids[size_t(col)])) return a < b ? -1 : (a > b ? 1 : 0);
  return compare_datums(type_ids[size_t(col)], a, b);
}

int compare_columns(const TupleLayout& layout, int col, const KeyValues& a, const KeyValues& b) {
  const bool an = a.is_null(col), bn = b.is_null(col);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return layout.compare_values(col, a[col], b[col]);
}

bool keys_equal(const TupleLayout& layout, const KeyValues& a, const KeyValues& b) {
  if (a.n != b.n) return false;
  for (int i = 0; i < a.n; ++i)
    if (compare_columns(layout, i, a, b) != 0) return false;
  return true;
}

// Built with append() only: GCC 12 warns falsely (-Wrestrict) about
// "literal" + std::string chains at -O3.
std::string format_key(const KeyValues& key) {
  std::string s("(");
  for (int i = 0; i < key.n; ++i) {
    if (i > 0) s.append(", ");
    s.append(key.is_null(i) ? std::string("null") : std::to_string(key[i]));
  }
  s.append(")");
  return s;
}

std::string format_key(const TupleLayout& layout, const KeyValues& key) {
  std::string s("(");
  for (int i = 0; i < key.n; ++i) {
    if (i > 0) s.append(", ");
    s.append(key.is_null(i) ? std::string("null") : datum_out(layout.type_ids[size_t(i)], key[i]));
  }
  s.append(")");
  return s;
}

std::string key_detail(const IndexDef& def, const TupleLayout& layout, const KeyValues& key) {
  std::string columns;
  for (size_t i = 0; i < def.columns.size(); ++i)
    columns += (i > 0 ? ", " : "") + def.columns[i].name;
  return "Key (" + columns + ")=" + format_key(layout, key);
}

std::string format_tid(Tid tid) {
  std::string s("(");
  s.append(std::to_string(tid.block)).append(",").append(std::to_string(tid.offset)).append(")");
  return s;
}

uint32_t key_tuple_size(const TupleLayout& layout, const KeyValues& key, int natts) {
  return form_key(layout, key, natts, nullptr, nullptr);
}

TupleLayout TupleLayout::from(const IndexDef& def) {
  if (def.columns.empty() || def.columns.size() > size_t(kMaxKeyColumns))
    throw Error("index \"" + def.name + "\" must have between 1 and " +
                std::to_string(kMaxKeyColumns) + " key columns, not " +
                std::to_string(def.columns.size()))
        .with_sqlstate(sqlstate::kTooManyColumns);
  TupleLayout layout;
  layout.ncols = int(def.columns.size());
  uint32_t end = kTupleHeaderSize;
  layout.ends[0] = uint16_t(end);
  bool fixed = true;
  for (int i = 0; i < layout.ncols; ++i) {
    const KeyType type = def.columns[size_t(i)].type;
    if (!valid_key_type(uint8_t(type)))
      throw Error("index \"" + def.name + "\" column \"" + def.columns[size_t(i)].name +
                  "\" has an unknown key type " + std::to_string(int(type)))
          .with_sqlstate(sqlstate::kIndexCorrupted);
    const TypeId id = key_type_id(type);
    const AttrFormat a = AttrFormat::of(id);
    layout.types[size_t(i)] = type;
    layout.type_ids[size_t(i)] = id;
    layout.attrs[size_t(i)] = a;
    layout.integral = layout.integral && datum_is_integral(id);
    layout.equal_image = layout.equal_image && type_has_equal_image(id);
    if (!fixed || a.len < 0) {
      fixed = false;
      continue;
    }
    end = align_to(end, a.align);
    layout.offsets[size_t(i)] = uint16_t(end);
    end += uint32_t(a.len);
    layout.ends[size_t(i) + 1] = uint16_t(end);
    layout.fixed_cols = i + 1;
  }
  layout.int_first =
      layout.fixed_cols > 0 && layout.attrs[0].byval && datum_is_integral(layout.type_ids[0]);
  return layout;
}

void check_item_size(const IndexDef& def, const TupleLayout& layout, const KeyValues& key,
                     Tid tid) {
  const uint32_t size = maxalign(key_tuple_size(layout, key, layout.ncols));
  if (size <= kBtMaxItemSize) return;
  std::string detail;
  if (!def.table.empty())
    detail =
        "Index row references tuple " + format_tid(tid) + " in relation \"" + def.table + "\".";
  throw Error("index row size " + std::to_string(size) + " exceeds btree version " +
                  std::to_string(kBtVersion) + " maximum " + std::to_string(kBtMaxItemSize) +
                  " for index \"" + def.name + "\"",
              detail,
              "Values larger than 1/3 of a buffer page cannot be indexed.\nConsider a function "
              "index of an MD5 hash of the value, or use full text indexing.")
      .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

void check_key_range(const IndexDef& def, const KeyValues& key) {
  if (key.n != int(def.columns.size()))
    throw Error("index \"" + def.name + "\" has " + std::to_string(def.columns.size()) +
                " key columns, but " + std::to_string(key.n) + " values were given");
  for (int i = 0; i < key.n; ++i) {
    if (def.columns[size_t(i)].type != KeyType::kInt4 || key.is_null(i)) continue;
    if (key[i] < std::numeric_limits<int32_t>::min() ||
        key[i] > std::numeric_limits<int32_t>::max())
      throw Error("value " + std::to_string(key[i]) + " is out of range for int4 column \"" +
                  def.columns[size_t(i)].name + "\" of index \"" + def.name + "\"")
          .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  }
}

void bt_page_init(char* page, uint32_t level, uint16_t flags) {
  page_init(page, sizeof(BtSpecial));
  BtSpecial* special = bt_special(page);
  special->prev = kInvalidBlock;
  special->next = kInvalidBlock;
  special->level = level;
  special->flags = flags;
  special->cycle_id = 0;
}

void bt_meta_init(char* page, const TupleLayout& layout, bool unique, bool deduplicate) {
  bt_page_init(page, 0, kBtMeta);
  BtMeta* meta = bt_meta(page);
  std::memset(meta, 0, sizeof(BtMeta));
  meta->magic = kBtMagic;
  meta->version = kBtVersion;
  meta->root = kInvalidBlock;
  meta->level = 0;
  meta->fast_root = kInvalidBlock;
  meta->fast_level = 0;
  meta->ncols = uint32_t(layout.ncols);
  for (int i = 0; i < layout.ncols; ++i) meta->types[i] = uint8_t(layout.types[size_t(i)]);
  meta->unique = unique ? 1 : 0;
  meta->deduplicate = deduplicate && !unique && layout.equal_image ? 1 : 0;
  // Like PostgreSQL, pd_lower covers the metadata so it is not mistaken for a hole.
  page_header(page)->lower = uint16_t(kPageHeaderSize + sizeof(BtMeta));
}

uint16_t make_leaf_tuple(const TupleLayout& layout, const KeyValues& key, Tid tid, char* out) {
  TP_ASSERT(key.n == layout.ncols);
  uint16_t info = 0;
  const uint16_t size = checked_size(form_key(layout, key, layout.ncols, nullptr, nullptr));
  std::memset(out, 0, maxalign(size));
  form_key(layout, key, layout.ncols, out, &info);
  store_tid(out, tid);
  store_u16(out + 6, size | info);
  return size;
}

uint16_t make_posting(const TupleLayout& layout, const KeyValues& key, const Tid* tids, int n,
                      char* out) {
  TP_ASSERT(key.n == layout.ncols && n >= 2 && n <= int(kPostingCountMask));
  uint16_t info = 0;
  const uint32_t key_size = form_key(layout, key, layout.ncols, nullptr, nullptr);
  const uint32_t array = maxalign(key_size);
  const uint32_t size = posting_size(key_size, n);
  TP_ASSERT(size <= kBtMaxItemSize);
  std::memset(out, 0, size);
  form_key(layout, key, layout.ncols, out, &info);
  store_tid(out, Tid{array, uint16_t(uint16_t(n) | kPosting)});
  store_u16(out + 6, uint16_t(size) | kInfoAltTid | info);
  for (int i = 0; i < n; ++i) store_tid(out + array + uint32_t(i) * kHeapTidSize, tids[i]);
  return uint16_t(size);
}

uint16_t make_pivot(const TupleLayout& layout, const KeyValues& key, int natts, const Tid* heap_tid,
                    BlockNumber downlink, char* out) {
  TP_ASSERT(natts >= 0 && natts <= layout.ncols && natts <= key.n);
  TP_ASSERT(heap_tid == nullptr || natts == layout.ncols);
  uint16_t info = 0;
  uint32_t size = form_key(layout, key, natts, nullptr, nullptr);
  if (heap_tid != nullptr) size = maxalign(size) + 8;
  std::memset(out, 0, maxalign(checked_size(size)));
  form_key(layout, key, natts, out, &info);
  uint16_t natts_field = uint16_t(natts) | (heap_tid != nullptr ? kPivotHeapTid : 0);
  store_tid(out, Tid{downlink, natts_field});
  store_u16(out + 6, uint16_t(size) | kInfoAltTid | info);
  if (heap_tid != nullptr) store_tid(out + size - 6, *heap_tid);
  return uint16_t(size);
}

int separator_natts(const TupleLayout& layout, TupleView lastleft, TupleView firstright) {
  const KeyValues left = lastleft.key(layout), right = firstright.key(layout);
  for (int i = 0; i < layout.ncols; ++i)
    if (compare_columns(layout, i, left, right) != 0) return i + 1;
  return layout.ncols + 1;
}

uint16_t make_separator(const TupleLayout& layout, TupleView lastleft, TupleView firstright,
                        char* out) {
  TP_ASSERT(!lastleft.is_pivot() && !firstright.is_pivot());
  const KeyValues right = firstright.key(layout);
  const int natts = separator_natts(layout, lastleft, firstright);
  if (natts <= layout.ncols) return make_pivot(layout, right, natts, nullptr, kInvalidBlock, out);
  Tid tid = firstright.heap_tid();
  return make_pivot(layout, right, layout.ncols, &tid, kInvalidBlock, out);
}

uint16_t separator_size(const TupleLayout& layout, TupleView lastleft, TupleView firstright) {
  const int natts = separator_natts(layout, lastleft, firstright);
  if (natts <= layout.ncols) return uint16_t(key_tuple_size(layout, firstright.key(layout), natts));
  return uint16_t(maxalign(firstright.key_size(layout)) + 8);
}

uint16_t copy_pivot(TupleView pivot, BlockNumber downlink, bool minus_infinity, char* out) {
  TP_ASSERT(pivot.is_pivot());
  if (minus_infinity) {
    std::memset(out, 0, kTupleHeaderSize);
    store_tid(out, Tid{downlink, 0});
    store_u16(out + 6, uint16_t(kTupleHeaderSize) | kInfoAltTid);
    return kTupleHeaderSize;
  }
  uint16_t size = pivot.size();
  std::memcpy(out, pivot.p, size);
  store_tid(out, Tid{downlink, load_u16(pivot.p + 4)});
  return size;
}

static int cmp_i64(int64_t a, int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

static int cmp_tid(Tid a, Tid b) {
  if (a.block != b.block) return a.block < b.block ? -1 : 1;
  return cmp_i64(a.offset, b.offset);
}

// Column `col` of a key and of a tuple by the index's order (NULLs last).
static int compare_column(const TupleLayout& layout, int col, const KeyValues& key,
                          TupleView tuple) {
  const bool kn = key.is_null(col), tn = tuple.is_null(col);
  if (kn || tn) return kn == tn ? 0 : (kn ? 1 : -1);
  return layout.compare_values(col, key[col], tuple.value(layout, col));
}

static int compare_tuple_columns(const TupleLayout& layout, int col, TupleView a, TupleView b) {
  const bool an = a.is_null(col), bn = b.is_null(col);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return layout.compare_values(col, a.value(layout, col), b.value(layout, col));
}

int compare_general(const TupleLayout& layout, const Probe& probe, TupleView tuple) {
  int natts = tuple.natts(layout);
  int common = std::min(probe.key.n, natts);
  for (int i = 0; i < common; ++i) {
    int c = compare_column(layout, i, probe.key, tuple);
    if (c != 0) return c;
  }
  if (natts < probe.key.n) return 1;  // the tuple's missing columns are minus infinity
  if (probe.key.n < natts) return probe.after ? 1 : -1;
  if (natts < layout.ncols) return probe.after ? 1 : 0;  // both end in minus infinity
  bool tuple_has_tid = tuple.has_heap_tid();
  if (!probe.has_tid) {
    if (probe.after) return 1;
    return tuple_has_tid ? -1 : 0;
  }
  if (!tuple_has_tid) return 1;
  int c = cmp_tid(probe.tid, tuple.heap_tid());
  if (c <= 0 || !tuple.is_posting()) return c;
  return cmp_tid(probe.tid, tuple.max_heap_tid()) > 0 ? 1 : 0;
}

static int compare_tuples_by(const TupleLayout& layout, TupleView a, TupleView b, bool a_last) {
  int na = a.natts(layout), nb = b.natts(layout);
  int common = std::min(na, nb);
  for (int i = 0; i < common; ++i) {
    int c = compare_tuple_columns(layout, i, a, b);
    if (c != 0) return c;
  }
  if (na != nb) return na < nb ? -1 : 1;
  if (na < layout.ncols) return 0;
  bool ta = a.has_heap_tid(), tb = b.has_heap_tid();
  if (!ta || !tb) return ta == tb ? 0 : (ta ? 1 : -1);
  return cmp_tid(a_last ? a.max_heap_tid() : a.heap_tid(), b.heap_tid());
}

int compare_tuples(const TupleLayout& layout, TupleView a, TupleView b) {
  return compare_tuples_by(layout, a, b, false);
}

int compare_tuples_last(const TupleLayout& layout, TupleView a, TupleView b) {
  return compare_tuples_by(layout, a, b, true);
}

int compare_keys(const TupleLayout& layout, TupleView a, TupleView b) {
  for (int i = 0; i < layout.ncols; ++i) {
    int c = compare_tuple_columns(layout, i, a, b);
    if (c != 0) return c;
  }
  return 0;
}

void page_delete_item(char* page, OffsetNumber off) {
  PageHeader* h = page_header(page);
  OffsetNumber max = page_max_offset(page);
  TP_ASSERT(off >= 1 && off <= max);
  ItemId* id = page_item_id(page, off);
  uint32_t start = id->off;
  uint32_t size = maxalign(id->len);
  TP_ASSERT(start >= h->upper && start + size <= h->special);
  // Slide the tuples stored below the removed one up over its space.
  std::memmove(page + h->upper + size, page + h->upper, start - h->upper);
  for (OffsetNumber i = 1; i <= max; ++i) {
    ItemId* other = page_item_id(page, i);
    if (i != off && other->off < start) other->off += size;
  }
  std::memmove(id, id + 1, size_t(max - off) * kItemIdSize);
  h->upper = uint16_t(h->upper + size);
  h->lower = uint16_t(h->lower - kItemIdSize);
}

}  // namespace tp::btree
