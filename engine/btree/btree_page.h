// nbtree page and tuple layout: the metapage, the 16-byte special space, index
// tuples (leaf items and pivots), and the total order every comparison uses.
// README.md draws the layout; this file is the byte-level truth.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/error.h"
#include "engine/core/page.h"
#include "engine/core/tuple_format.h"
#include "engine/core/types.h"

namespace tp::btree {

// ---- Key schema -------------------------------------------------------------

inline constexpr int kMaxKeyColumns = 8;

// A key column's type as the metapage records it (one byte per column; int4 and
// int8 kept their codes from before the other types).
enum class KeyType : uint8_t {
  kInt4 = 1,
  kInt8 = 2,
  kInt2 = 3,
  kBool = 4,
  kFloat4 = 5,
  kFloat8 = 6,
  kDate = 7,
  kTimestamp = 8,
  kInterval = 9,
  kNumeric = 10,
  kText = 11,
  kVarchar = 12,
  kBpchar = 13,
  kTimestamptz = 14,
};
KeyType key_type_of(TypeId type);
TypeId key_type_id(KeyType type);
// Whether a metapage's byte names a key type.
bool valid_key_type(uint8_t code);

struct KeyColumn {
  std::string name;
  KeyType type = KeyType::kInt4;
};

// What the catalog knows about an index.
struct IndexDef {
  std::string name;                // for messages: index "t_a_idx"
  std::vector<KeyColumn> columns;  // 1..kMaxKeyColumns key columns
  bool unique = false;
  // PostgreSQL's deduplicate_items (on by default): store runs of equal keys as
  // posting lists. Read when the index is created or built; afterwards the
  // metapage says whether it deduplicates (never for a unique index).
  bool deduplicate = true;
  std::string table = {};  // for messages (may be empty): relation "t"
};

// Key column values as Datums (engine/core/datum.h): integers sign-extended, a
// by-reference value (text, numeric, interval) a pointer to bytes the caller keeps
// alive; a NULL column has its bit in `nulls`. Fixed capacity: no allocation.
struct KeyValues {
  std::array<Datum, kMaxKeyColumns> v{};
  int n = 0;
  uint8_t nulls = 0;  // bit i: column i is NULL

  KeyValues() = default;
  KeyValues(std::initializer_list<int64_t> values);
  static KeyValues of(const int64_t* values, int count);
  Datum operator[](int i) const { return v[size_t(i)]; }
  bool is_null(int i) const { return ((nulls >> i) & 1) != 0; }
  bool has_null() const { return nulls != 0; }
  void push(Datum value) {
    TP_ASSERT(n < kMaxKeyColumns);
    v[size_t(n++)] = value;
  }
  void push_null() {
    TP_ASSERT(n < kMaxKeyColumns);
    nulls = uint8_t(nulls | (1u << n));
    v[size_t(n++)] = 0;
  }
  // The same Datums (by-reference values: the same pointers); keys_equal compares
  // values.
  friend bool operator==(const KeyValues& a, const KeyValues& b) {
    if (a.n != b.n || a.nulls != b.nulls) return false;
    for (int i = 0; i < a.n; ++i)
      if (a.v[size_t(i)] != b.v[size_t(i)]) return false;
    return true;
  }
};

// "(1, 2)": an integer key (tests and traces; messages use the layout's format_key).
std::string format_key(const KeyValues& key);
// "(0,1)": a TID as messages print it.
std::string format_tid(Tid tid);

// How key columns sit inside an index tuple, as index_form_tuple places them: after
// the 8-byte header (16 when a NULL bitmap follows it), each value aligned to its type
// from the tuple's start, a varlena of at most 126 bytes packed with a 1-byte header
// and no alignment. The leading fixed-width columns of a tuple without NULLs have fixed
// offsets (`fixed_cols` of them); the rest are found by walking the tuple.
struct TupleLayout {
  int ncols = 0;
  std::array<KeyType, kMaxKeyColumns> types{};
  std::array<TypeId, kMaxKeyColumns> type_ids{};
  std::array<AttrFormat, kMaxKeyColumns> attrs{};
  std::array<uint16_t, kMaxKeyColumns> offsets{};   // columns < fixed_cols, no NULLs
  std::array<uint16_t, kMaxKeyColumns + 1> ends{};  // ends[k], k <= fixed_cols
  int fixed_cols = 0;
  bool integral = true;     // every column's Datum order is its value order
  bool equal_image = true;  // PostgreSQL's allequalimage: deduplication is safe
  // Column 0 has a fixed offset and orders as its Datum (an integer-like type):
  // compare()'s fast path reads it straight from the tuple.
  bool int_first = false;

  // Checks the definition (1..8 columns, a name) and computes offsets.
  // Throws tp::Error for a definition a user could write wrongly.
  static TupleLayout from(const IndexDef& def);
  bool fixed() const { return fixed_cols == ncols; }
  // A leaf item's size when every column has a fixed width (and none is NULL).
  uint16_t leaf_size() const {
    TP_ASSERT(fixed());
    return ends[size_t(ncols)];
  }
  // Non-NULL values of column `col`, by the type's btree order.
  int compare_values(int col, Datum a, Datum b) const;
};

// Column `col` of two keys by the index's order: NULLs last and equal to each other.
int compare_columns(const TupleLayout& layout, int col, const KeyValues& a, const KeyValues& b);
// Every column equal (NULL equal to NULL, as deduplication and suffix truncation see it).
bool keys_equal(const TupleLayout& layout, const KeyValues& a, const KeyValues& b);
// "(abc, 2)": a key as a unique violation's detail prints it (NULL as "null").
std::string format_key(const TupleLayout& layout, const KeyValues& key);
// "Key (a, b)=(abc, 2)": a unique violation's detail up to its verb.
std::string key_detail(const IndexDef& def, const TupleLayout& layout, const KeyValues& key);

// Bytes (unaligned) of a tuple holding the first `natts` columns of `key`: the header,
// the NULL bitmap if one of them is NULL, and the values.
uint32_t key_tuple_size(const TupleLayout& layout, const KeyValues& key, int natts);

// Throws tp::Error if a value does not fit its column (int4 range).
void check_key_range(const IndexDef& def, const KeyValues& key);
// Throws PostgreSQL's 54000 "index row size ... exceeds btree version 4 maximum 2704"
// when the leaf item for `key` would be longer than kBtMaxItemSize.
void check_item_size(const IndexDef& def, const TupleLayout& layout, const KeyValues& key, Tid tid);

// ---- Special space and metapage ---------------------------------------------

// PostgreSQL's BTPageOpaqueData: 16 bytes at the end of every page.
struct BtSpecial {
  BlockNumber prev;  // left sibling, kInvalidBlock if leftmost
  BlockNumber next;  // right sibling, kInvalidBlock if rightmost
  uint32_t level;    // 0 for leaves
  uint16_t flags;
  uint16_t cycle_id;  // unused (no VACUUM), kept for layout
};
static_assert(sizeof(BtSpecial) == 16);

inline constexpr uint16_t kBtLeaf = 1 << 0;
inline constexpr uint16_t kBtRoot = 1 << 1;
inline constexpr uint16_t kBtMeta = 1 << 3;

inline BtSpecial* bt_special(char* page) {
  return reinterpret_cast<BtSpecial*>(page_special(page));
}
inline const BtSpecial* bt_special(const char* page) {
  return reinterpret_cast<const BtSpecial*>(page_special(page));
}
inline bool bt_rightmost(const char* page) {
  return bt_special(page)->next == kInvalidBlock;
}
inline bool bt_leaf(const char* page) {
  return (bt_special(page)->flags & kBtLeaf) != 0;
}
// Offset of the high key (non-rightmost pages only) and of the first data item.
inline constexpr OffsetNumber kHighKeyOffset = 1;
inline OffsetNumber bt_first_data(const char* page) {
  return bt_rightmost(page) ? 1 : 2;
}

// Formats a B-tree page: empty, 16-byte special space, no siblings.
void bt_page_init(char* page, uint32_t level, uint16_t flags);

inline constexpr uint32_t kBtMagic = 0x053162;  // PostgreSQL's BTREE_MAGIC
inline constexpr uint32_t kBtVersion = 4;
inline constexpr BlockNumber kMetaBlock = 0;

// Block 0, right after the page header (PostgreSQL's BTMetaPageData, plus the
// key schema so an index file describes itself).
struct BtMeta {
  uint32_t magic;
  uint32_t version;
  BlockNumber root;       // kInvalidBlock while the index is empty
  uint32_t level;         // root's level
  BlockNumber fast_root;  // equals root: pages are never deleted
  uint32_t fast_level;
  uint32_t ncols;
  uint8_t types[kMaxKeyColumns];
  uint32_t unique;
  // 1 when inserts and builds deduplicate (PostgreSQL keeps the reloption in its
  // catalog and btm_allequalimage here). Zero in metapages written before
  // deduplication existed, so those indexes go on without it.
  uint32_t deduplicate;
};

inline BtMeta* bt_meta(char* page) {
  return reinterpret_cast<BtMeta*>(page + kPageHeaderSize);
}
inline const BtMeta* bt_meta(const char* page) {
  return reinterpret_cast<const BtMeta*>(page + kPageHeaderSize);
}
void bt_meta_init(char* page, const TupleLayout& layout, bool unique, bool deduplicate);

// ---- Index tuples -----------------------------------------------------------
//
//  0      2      4       6       8
//  +------+------+-------+-------+---------------------------+------------+
//  | blk hi  lo  | posid | info  | key columns, each aligned | [heap TID] |
//  +------+------+-------+-------+---------------------------+------------+
//
// Leaf item: the TID is the heap tuple's; all key columns present.
// Pivot (high key or internal item): info has kAltTid; the TID's block is the
// downlink (internal items), its offset holds the number of key columns kept
// (trailing columns truncated = minus infinity) and kPivotHeapTid if a heap
// TID follows at the end of the tuple (needed when neighbours differ only by
// heap TID).

inline constexpr uint32_t kTupleHeaderSize = 8;
// Header plus PostgreSQL's 4-byte NULL bitmap (IndexAttributeBitMapData), maxaligned:
// where values start in a tuple with a NULL.
inline constexpr uint32_t kNullTupleHeaderSize = 16;
inline constexpr uint16_t kInfoSizeMask = 0x1FFF;
inline constexpr uint16_t kInfoHasNulls = 0x8000;     // INDEX_NULL_MASK
inline constexpr uint16_t kInfoHasVarWidth = 0x4000;  // INDEX_VAR_MASK
inline constexpr uint16_t kInfoAltTid = 0x2000;
inline constexpr uint16_t kPivotNattsMask = 0x0FFF;
inline constexpr uint16_t kPivotHeapTid = 0x1000;
inline constexpr uint16_t kPosting = 0x2000;  // PostgreSQL's BT_IS_POSTING
inline constexpr uint16_t kPostingCountMask = 0x0FFF;
inline constexpr uint32_t kHeapTidSize = 6;
// PostgreSQL's BTMaxItemSize for 8 kB pages: a third of a page, less a heap TID.
// A leaf item longer than this is refused (54000), as PostgreSQL refuses it.
inline constexpr uint32_t kBtMaxItemSize = 2704;
// Largest pivot or plain leaf item: the largest leaf item plus a pivot's heap TID.
inline constexpr uint32_t kMaxTupleSize = kBtMaxItemSize + 8;
// Largest posting list a deduplication pass forms (half of kBtMaxItemSize, as
// PostgreSQL's); a sorted build stops at kBuildMaxPostingSize.
inline constexpr uint32_t kMaxPostingSize = kBtMaxItemSize / 2;

inline uint16_t load_u16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline void store_u16(char* p, uint16_t v) {
  std::memcpy(p, &v, 2);
}

inline Tid load_tid(const char* p) {
  return Tid{(BlockNumber(load_u16(p)) << 16) | load_u16(p + 2), load_u16(p + 4)};
}
inline void store_tid(char* p, Tid tid) {
  store_u16(p, uint16_t(tid.block >> 16));
  store_u16(p + 2, uint16_t(tid.block & 0xFFFF));
  store_u16(p + 4, tid.offset);
}

// A read-only view of one index tuple on a page.
struct TupleView {
  const char* p;

  uint16_t size() const { return load_u16(p + 6) & kInfoSizeMask; }
  bool alt_tid() const { return (load_u16(p + 6) & kInfoAltTid) != 0; }
  bool is_pivot() const { return alt_tid() && (load_u16(p + 4) & kPosting) == 0; }
  bool is_posting() const { return alt_tid() && (load_u16(p + 4) & kPosting) != 0; }
  // Plain leaf items: the heap TID (posting lists: heap_tid(), posting_tid()).
  Tid tid() const { return load_tid(p); }
  // Posting lists: the number of heap TIDs and where their array starts.
  int posting_count() const { return load_u16(p + 4) & kPostingCountMask; }
  uint32_t posting_offset() const { return load_u16(p + 2); }
  Tid posting_tid(int i) const {
    return load_tid(p + posting_offset() + uint32_t(i) * kHeapTidSize);
  }
  // Heap TIDs a leaf item stands for: 1, or a posting list's count.
  int heap_tid_count() const { return is_posting() ? posting_count() : 1; }
  // Internal items: the child block.
  BlockNumber downlink() const { return load_tid(p).block; }
  int natts(const TupleLayout& layout) const {
    return is_pivot() ? (load_u16(p + 4) & kPivotNattsMask) : layout.ncols;
  }
  bool has_heap_tid() const { return !is_pivot() || (load_u16(p + 4) & kPivotHeapTid) != 0; }
  // The item's (first) heap TID; a posting list's smallest.
  Tid heap_tid() const {
    if (is_posting()) return posting_tid(0);
    return is_pivot() ? load_tid(p + size() - 6) : load_tid(p);
  }
  // A posting list's largest heap TID; heap_tid() for any other tuple.
  Tid max_heap_tid() const { return is_posting() ? posting_tid(posting_count() - 1) : heap_tid(); }
  bool has_nulls() const { return (load_u16(p + 6) & kInfoHasNulls) != 0; }
  // Column `col` (of the tuple's natts) is NULL.
  bool is_null(int col) const {
    return has_nulls() && ((uint8_t(p[kTupleHeaderSize + col / 8]) >> (col % 8)) & 1) == 0;
  }
  // Column `col`'s Datum (0 for NULL); a by-reference value points into the tuple.
  Datum value(const TupleLayout& layout, int col) const {
    if (col < layout.fixed_cols && !has_nulls()) {
      const char* at = p + layout.offsets[size_t(col)];
      const AttrFormat& a = layout.attrs[size_t(col)];
      return a.byval ? fetch_byval(at, a.len) : pointer_datum(at);
    }
    return walk_to(layout, col);
  }
  // The first natts(layout) columns, pointing into the tuple.
  KeyValues key(const TupleLayout& layout) const;
  // Bytes of the header and key values (a posting list's TIDs and a pivot's heap TID
  // not counted), unaligned.
  uint32_t key_size(const TupleLayout& layout) const;

 private:
  Datum walk_to(const TupleLayout& layout, int col) const;
};

// The end of the first `natts` key values of `t`, walked without reading past `limit`
// bytes; none when a value does not fit or a varlena header is impossible (the
// verifier's check before it trusts a damaged page's tuple).
std::optional<uint32_t> checked_key_end(const TupleLayout& layout, TupleView t, int natts,
                                        uint32_t limit);

inline TupleView tuple_at(const char* page, OffsetNumber off) {
  return TupleView{page_item(page, off)};
}

// Builders write into `out` (at least kMaxTupleSize bytes) and return the size.
uint16_t make_leaf_tuple(const TupleLayout& layout, const KeyValues& key, Tid tid, char* out);
// A posting list of `key` with `n` (>= 2, ascending) heap TIDs; `out` holds at
// least posting_size(layout, n) bytes.
uint16_t make_posting(const TupleLayout& layout, const KeyValues& key, const Tid* tids, int n,
                      char* out);
inline uint32_t posting_size(uint32_t key_size, int n) {
  return maxalign(maxalign(key_size) + uint32_t(n) * kHeapTidSize);
}
// A pivot keeping the first `natts` columns of `key`, optionally with a heap TID.
uint16_t make_pivot(const TupleLayout& layout, const KeyValues& key, int natts, const Tid* heap_tid,
                    BlockNumber downlink, char* out);
// The shortest pivot p with lastleft < p <= firstright (suffix truncation): the
// columns of firstright up to the first that differs from lastleft's (whole values:
// nbtree truncates no text), or all of them and its heap TID.
uint16_t make_separator(const TupleLayout& layout, TupleView lastleft, TupleView firstright,
                        char* out);
// make_separator's size without building it.
uint16_t separator_size(const TupleLayout& layout, TupleView lastleft, TupleView firstright);
// Copies a pivot with a different downlink (or truncates it to "minus
// infinity" when `minus_infinity`).
uint16_t copy_pivot(TupleView pivot, BlockNumber downlink, bool minus_infinity, char* out);

// ---- Ordering ---------------------------------------------------------------
//
// Items are ordered by (key columns..., heap TID). A Probe is a point in that
// order: given columns and maybe a TID; when all given parts are equal to an
// item's, `after` places the probe after (true) or before (false) it.
struct Probe {
  KeyValues key;
  Tid tid{};
  bool has_tid = false;
  bool after = false;
};

// <0, 0, >0 as probe is before, at, after the tuple. A pivot's truncated
// columns and missing heap TID are minus infinity. A probe with a heap TID is
// "at" a posting list of its key when the TID lies within the list's range.
int compare_general(const TupleLayout& layout, const Probe& probe, TupleView tuple);
// The same, inline for the binary searches' common step: with an integer first column
// and no NULL on either side, a first column that differs decides without the
// per-column machinery; anything else is compare_general's.
inline int compare(const TupleLayout& layout, const Probe& probe, TupleView tuple) {
  if (layout.int_first && probe.key.n > 0 && (probe.key.nulls & 1) == 0 && !tuple.has_nulls() &&
      tuple.natts(layout) > 0) {
    const Datum k = probe.key.v[0];
    const Datum t = fetch_byval(tuple.p + layout.offsets[0], layout.attrs[0].len);
    if (k != t) return k < t ? -1 : 1;
  }
  return compare_general(layout, probe, tuple);
}

// Orders two tuples (leaf items or pivots) the same way, by their first heap
// TIDs. Used by the verifier.
int compare_tuples(const TupleLayout& layout, TupleView a, TupleView b);
// The same with a's largest heap TID: < 0 when all of a lies before b.
int compare_tuples_last(const TupleLayout& layout, TupleView a, TupleView b);

// Compares only key column values (leaf items): equal keys, any TIDs -> 0.
int compare_keys(const TupleLayout& layout, TupleView a, TupleView b);

// ---- Page edits -------------------------------------------------------------

// Removes the item at `off`, closing the gap in the line pointer array and in
// the tuple space (PostgreSQL's PageIndexTupleDelete).
void page_delete_item(char* page, OffsetNumber off);

// Bytes an item costs on a page: aligned tuple + line pointer.
inline uint32_t item_cost(uint32_t tuple_size) {
  return maxalign(tuple_size) + kItemIdSize;
}

}  // namespace tp::btree
