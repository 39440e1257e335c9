#include "engine/btree/btree_page.h"

#include <algorithm>
#include <limits>

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

KeyValues TupleView::key(const TupleLayout& layout) const {
  KeyValues key;
  int n = natts(layout);
  for (int i = 0; i < n; ++i) key.push(value(layout, i));
  return key;
}

// Built with append() only: GCC 12 warns falsely (-Wrestrict) about
// "literal" + std::string chains at -O3.
std::string format_key(const KeyValues& key) {
  std::string s("(");
  for (int i = 0; i < key.n; ++i) {
    if (i > 0) s.append(", ");
    s.append(std::to_string(key[i]));
  }
  s.append(")");
  return s;
}

std::string format_tid(Tid tid) {
  std::string s("(");
  s.append(std::to_string(tid.block)).append(",").append(std::to_string(tid.offset)).append(")");
  return s;
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
  for (int i = 0; i < layout.ncols; ++i) {
    KeyType type = def.columns[size_t(i)].type;
    if (type != KeyType::kInt4 && type != KeyType::kInt8)
      throw Error("index \"" + def.name + "\" column \"" + def.columns[size_t(i)].name +
                  "\" has an unsupported key type (only int4 and int8 are)")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    uint32_t width = type == KeyType::kInt4 ? 4 : 8;  // alignment equals width
    end = (end + width - 1) & ~(width - 1);
    layout.types[size_t(i)] = type;
    layout.offsets[size_t(i)] = uint16_t(end);
    end += width;
    layout.ends[size_t(i) + 1] = uint16_t(end);
  }
  return layout;
}

void check_key_range(const IndexDef& def, const KeyValues& key) {
  if (key.n != int(def.columns.size()))
    throw Error("index \"" + def.name + "\" has " + std::to_string(def.columns.size()) +
                " key columns, but " + std::to_string(key.n) + " values were given");
  for (int i = 0; i < key.n; ++i) {
    if (def.columns[size_t(i)].type != KeyType::kInt4) continue;
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
  meta->deduplicate = deduplicate && !unique ? 1 : 0;
  // Like PostgreSQL, pd_lower covers the metadata so it is not mistaken for a hole.
  page_header(page)->lower = uint16_t(kPageHeaderSize + sizeof(BtMeta));
}

static void store_value(const TupleLayout& layout, int col, int64_t value, char* out) {
  char* at = out + layout.offsets[size_t(col)];
  if (layout.types[size_t(col)] == KeyType::kInt4) {
    int32_t v = int32_t(value);
    std::memcpy(at, &v, 4);
  } else {
    std::memcpy(at, &value, 8);
  }
}

uint16_t make_leaf_tuple(const TupleLayout& layout, const KeyValues& key, Tid tid, char* out) {
  TP_ASSERT(key.n == layout.ncols);
  uint16_t size = layout.leaf_size();
  std::memset(out, 0, maxalign(size));
  store_tid(out, tid);
  store_u16(out + 6, size);
  for (int i = 0; i < layout.ncols; ++i) store_value(layout, i, key[i], out);
  return size;
}

uint16_t make_posting(const TupleLayout& layout, const KeyValues& key, const Tid* tids, int n,
                      char* out) {
  TP_ASSERT(key.n == layout.ncols && n >= 2 && n <= int(kPostingCountMask));
  const uint32_t array = maxalign(layout.leaf_size());
  const uint32_t size = posting_size(layout, n);
  TP_ASSERT(size <= kBtMaxItemSize);
  std::memset(out, 0, size);
  store_tid(out, Tid{array, uint16_t(uint16_t(n) | kPosting)});
  store_u16(out + 6, uint16_t(size) | kInfoAltTid);
  for (int i = 0; i < layout.ncols; ++i) store_value(layout, i, key[i], out);
  for (int i = 0; i < n; ++i) store_tid(out + array + uint32_t(i) * kHeapTidSize, tids[i]);
  return uint16_t(size);
}

uint16_t make_pivot(const TupleLayout& layout, const KeyValues& key, int natts, const Tid* heap_tid,
                    BlockNumber downlink, char* out) {
  TP_ASSERT(natts >= 0 && natts <= layout.ncols && natts <= key.n);
  TP_ASSERT(heap_tid == nullptr || natts == layout.ncols);
  uint16_t size = layout.ends[size_t(natts)];
  if (heap_tid != nullptr) size = uint16_t(maxalign(size) + 8);
  std::memset(out, 0, maxalign(size));
  uint16_t natts_field = uint16_t(natts) | (heap_tid != nullptr ? kPivotHeapTid : 0);
  store_tid(out, Tid{downlink, natts_field});
  store_u16(out + 6, size | kInfoAltTid);
  for (int i = 0; i < natts; ++i) store_value(layout, i, key[i], out);
  if (heap_tid != nullptr) store_tid(out + size - 6, *heap_tid);
  return size;
}

uint16_t make_separator(const TupleLayout& layout, TupleView lastleft, TupleView firstright,
                        char* out) {
  TP_ASSERT(!lastleft.is_pivot() && !firstright.is_pivot());
  KeyValues right = firstright.key(layout);
  for (int i = 0; i < layout.ncols; ++i)
    if (lastleft.value(layout, i) != right[i])
      return make_pivot(layout, right, i + 1, nullptr, kInvalidBlock, out);
  Tid tid = firstright.heap_tid();
  return make_pivot(layout, right, layout.ncols, &tid, kInvalidBlock, out);
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

int compare(const TupleLayout& layout, const Probe& probe, TupleView tuple) {
  int natts = tuple.natts(layout);
  int common = std::min(probe.key.n, natts);
  for (int i = 0; i < common; ++i) {
    int c = cmp_i64(probe.key[i], tuple.value(layout, i));
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
    int c = cmp_i64(a.value(layout, i), b.value(layout, i));
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
    int c = cmp_i64(a.value(layout, i), b.value(layout, i));
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
