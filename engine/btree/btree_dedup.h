// Posting lists on leaf pages: the deduplication pass an insert runs before it
// splits a full page, and the edits an insert or removal makes inside a list
// (PostgreSQL 13+'s nbtdedup.c; README.md, "Deduplication").
//
//   alignas(8) char out[kBlockSize];
//   if (dedup_leaf_page(layout, page, new_key, maxalign(new_size), out)) copy out over page;
#pragma once

#include "engine/btree/btree_page.h"

namespace tp::btree {

// Merges each run of equal keys on the leaf `page` into posting lists of at
// most kMaxPostingSize bytes, writing the result to `out` (kBlockSize bytes).
// False (and `out` undefined) when no run of two or more was found: the page
// would not change. `new_key` and `new_item_size` (maxaligned) describe the
// item whose insert found the page full: when it equals the page's first and
// last keys (a page of one value) the pass leaves room at the page's end, as
// PostgreSQL's single value strategy does, so the split that follows can pack
// the left half 96% full.
bool dedup_leaf_page(const TupleLayout& layout, const char* page, const KeyValues& new_key,
                     uint32_t new_item_size, char* out);

// Whether the posting list holds `tid` (binary search).
bool posting_contains(TupleView posting, Tid tid);

// A posting list split (PostgreSQL's _bt_swap_posting): `tid` lies inside the
// range of `posting` but is not in it. Writes to `replacement` the same-size
// list with `tid` in its place and without its largest TID, and to `new_item`
// the plain item that carries that largest TID and goes right after the list.
// Returns the new item's size.
uint16_t swap_posting(const TupleLayout& layout, TupleView posting, Tid tid, char* replacement,
                      char* new_item);

// The posting list without `tid` (which it holds): a shorter list, or a plain
// item when one TID is left. Returns its size.
uint16_t posting_without(const TupleLayout& layout, TupleView posting, Tid tid, char* out);

}  // namespace tp::btree
