// The verifier: checks an index's structure and, optionally, that every leaf
// item matches a live heap tuple. It stops at the first violation and says
// where it is:
//   index "t_a_idx" block 17 offset 5: key (42) is less than previous key (43)
//
//   VerifyReport r = verify_btree(store, def, [&](Tid tid) { return heap.key_of(tid); });
//   if (!r.ok) throw tp::Error(r.message);
//
// What it checks, level by level from the root (README.md "Invariants"):
//   metapage: magic, version, key columns, root inside the file, fast root = root;
//   every page: header, special space, level, leaf/root flags, item bounds and sizes;
//   ordering: items strictly ascending by (key, heap TID) within a page, every
//     item >= the page's low key (parent separator) and < its high key;
//   links: a level's right links visit exactly its parents' downlinks in order,
//     left links mirror them, the rightmost page has no right link;
//   high keys equal the parent's next separator;
//   internal pages: first item is minus infinity, downlinks inside the file;
//   leaves: unique indexes hold no equal keys; each TID names a live heap tuple
//     whose indexed columns equal the key.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "engine/btree/btree_page.h"
#include "engine/btree/page_store.h"

namespace tp::btree {

// The indexed columns of the live heap tuple at `tid`, or nullopt if none.
using HeapFetch = std::function<std::optional<KeyValues>(Tid)>;

struct VerifyReport {
  bool ok = true;
  std::string message;  // the first violation; empty when ok
  BlockNumber block = kInvalidBlock;
  OffsetNumber offset = 0;  // 0: the page as a whole
  uint64_t pages_checked = 0;
  uint64_t leaf_items_checked = 0;
};

// Never throws for a corrupt index (read errors such as checksum failures
// become the reported violation). `heap` may be empty: no heap cross-check.
VerifyReport verify_btree(PageStore& store, const IndexDef& def, const HeapFetch& heap = {});

}  // namespace tp::btree
