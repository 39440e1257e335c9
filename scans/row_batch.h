// RowBatch: the rows one call of ExecNode::next() hands up, a page's worth at a time.
//
// A row is `width` Datums (engine/core/datum.h), one per slot, row-major in `values`;
// the slot layout is part of the plan (the planner names each node's slots). A
// by-value type (integers, bool, real, double precision, date, timestamp) sits in its
// slot; a by-reference one (text, varchar, char(n), numeric, interval) is a pointer to
// its bytes in the batch's own arena, copied out of the page (a page is unlocked and
// unpinned once its rows are copied, never kept across next() calls). NULLs are flags
// beside the values, one byte per slot, kept only once a batch holds a NULL
// (`has_nulls`), so tables without NULLs pay nothing.
//
// The slots' types travel with the batch (`shape`, shared by every batch of a node and
// its copies): a node that keeps rows (Sort, HashAggregate, Unique's previous row,
// Gather's queues) copies them with append()/push(), which copy the by-reference
// bytes too, and compares them by type (rows_compare). A batch without a shape holds
// integers only, the fast path of tidepool's int4/int8 tables.
//
//   batch.reset(width, rows);              // room for `rows` rows, none yet
//   Datum* r = batch.row(batch.count);     // fill a row in place ...
//   batch.set_null(batch.count, 2);        // ... slot 2 NULL
//   ++batch.count;
//   out.append(batch, i);                  // another batch takes a copy of row i
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/datum_ops.h"
#include "engine/core/types.h"
#include "engine/core/value_arena.h"

namespace tp::scans {

// The types of a node's row slots.
struct RowShape {
  struct ByRef {
    uint32_t slot;
    int16_t typlen;  // -1: varlena
  };
  std::vector<TypeId> types;  // per slot
  std::vector<ByRef> by_ref;  // the slots holding pointers

  RowShape() = default;
  explicit RowShape(std::vector<TypeId> slot_types);
  TypeId type(uint32_t slot) const { return types[slot]; }
};

// One row of a batch, for comparing: its values and its NULL flags (null: none NULL).
struct RowRef {
  const Datum* values;
  const uint8_t* nulls;
  bool is_null(uint32_t slot) const { return nulls != nullptr && nulls[slot] != 0; }
};

struct RowBatch {
  uint32_t width = 0;          // slots per row
  uint32_t count = 0;          // rows in the batch
  std::vector<Datum> values;   // count * width slots (or more room), row-major
  std::vector<uint8_t> nulls;  // as values, when has_nulls: 1 = NULL
  bool has_nulls = false;
  std::shared_ptr<const RowShape> shape;  // null: every slot an integer
  ValueArena arena;                       // the by-reference values' bytes

  const Datum* row(uint32_t i) const { return values.data() + size_t(i) * width; }
  Datum* row(uint32_t i) { return values.data() + size_t(i) * width; }
  bool is_null(uint32_t i, uint32_t slot) const {
    return has_nulls && nulls[size_t(i) * width + slot] != 0;
  }
  RowRef ref(uint32_t i) const {
    return {row(i), has_nulls ? nulls.data() + size_t(i) * width : nullptr};
  }
  // Marks slot `slot` of row `i` NULL (its value is left 0).
  void set_null(uint32_t i, uint32_t slot) {
    if (!has_nulls) start_nulls();
    nulls[size_t(i) * width + slot] = 1;
    values[size_t(i) * width + slot] = 0;
  }
  uint8_t* null_flags(uint32_t i) {
    if (!has_nulls) start_nulls();
    return nulls.data() + size_t(i) * width;
  }

  // Makes room for `rows` rows and empties the batch (the shape stays).
  void reset(uint32_t slots_per_row, uint32_t rows) {
    width = slots_per_row;
    if (values.size() < size_t(rows) * width) values.resize(size_t(rows) * width);
    clear_rows();
  }
  // Room for row `count`, doubling the batch's room up to `most` rows: a node that
  // fills its batch row by row starts small, so a one-row lookup clears no room for
  // hundreds.
  void room_for_next_row(uint32_t most) {
    const size_t need = size_t(count + 1) * width;
    if (need <= values.size()) return;
    const size_t rows = std::min<size_t>(most, std::max<size_t>(8, size_t(count) * 2));
    values.resize(std::max(need, rows * width));
    if (has_nulls) nulls.resize(values.size(), 0);
  }
  // Empties the batch, keeping its room.
  void clear_rows() {
    count = 0;
    has_nulls = false;
    arena.clear();
  }
  // Copies row `i` of `src` (same width) into row `count`, within reset()'s room, then
  // counts it; by-reference values are copied into this batch's arena.
  void append(const RowBatch& src, uint32_t i);
  // Copies rows [first, first + n) of `src` the same way.
  void append_rows(const RowBatch& src, uint32_t first, uint32_t n);
  // Appends a copy of row `i` of `src`, growing the batch (a node that keeps rows).
  void push(const RowBatch& src, uint32_t i);
  // Forgets the last row (its by-reference bytes stay in the arena until clear).
  void pop() { --count; }
  // Bytes the batch holds (values, NULL flags, arena), for memory accounting.
  size_t bytes_held() const {
    return values.capacity() * sizeof(Datum) + nulls.capacity() + arena.bytes_held();
  }

 private:
  void start_nulls();
  void copy_refs(uint32_t dst_row);
};

// Sort order of one slot: the type's btree order, DESC reversing it, NULLs first or
// last (PostgreSQL's default: last for ASC, first for DESC).
struct SortKey {
  uint32_t slot = 0;  // position in the child's row
  bool descending = false;
  bool nulls_first = false;
};

// -1 / 0 / 1: row `a` against row `b` by keys[from..to) (Sort compares by all keys,
// Incremental Sort by those after its presorted ones). `shape` null: integer slots.
inline int rows_compare(const std::vector<SortKey>& keys, size_t from, size_t to,
                        const RowShape* shape, RowRef a, RowRef b) {
  for (size_t k = from; k < to; ++k) {
    const SortKey& key = keys[k];
    const bool an = a.is_null(key.slot), bn = b.is_null(key.slot);
    if (an || bn) {
      if (an && bn) continue;
      return an == key.nulls_first ? -1 : 1;
    }
    const Datum x = a.values[key.slot], y = b.values[key.slot];
    int c;
    if (!shape || datum_is_integral(shape->types[key.slot]))
      c = x < y ? -1 : x > y ? 1 : 0;
    else
      c = compare_datums(shape->types[key.slot], x, y);
    if (c != 0) return key.descending ? -c : c;
  }
  return 0;
}
inline bool rows_less(const std::vector<SortKey>& keys, size_t from, const RowShape* shape,
                      RowRef a, RowRef b) {
  return rows_compare(keys, from, keys.size(), shape, a, b) < 0;
}

// The bytes a node keeping these rows reports (EXPLAIN's Memory, work_mem checks): the
// rows' slots and the by-reference values' chunks.
inline uint64_t held_bytes(const RowBatch& b) {
  return uint64_t(b.count) * b.width * sizeof(Datum) + b.arena.bytes_held();
}

// Equality of the listed slots, NULL equal to NULL (DISTINCT's and grouping's rule).
inline bool slots_equal(const std::vector<uint32_t>& slots, const RowShape* shape, RowRef a,
                        RowRef b) {
  for (uint32_t s : slots) {
    const bool an = a.is_null(s), bn = b.is_null(s);
    if (an || bn) {
      if (an != bn) return false;
      continue;
    }
    const Datum x = a.values[s], y = b.values[s];
    if (!shape || datum_is_integral(shape->types[s])) {
      if (x != y) return false;
    } else if (!datums_equal(shape->types[s], x, y)) {
      return false;
    }
  }
  return true;
}

// A hash of the listed slots consistent with slots_equal.
uint64_t hash_slots(const std::vector<uint32_t>& slots, const RowShape* shape, RowRef r);

}  // namespace tp::scans
