// Checking an index against its table (tp_verify, tidepool check), and the bounds-checked
// heap tuple lookup the check (and anything reading a heap page it does not trust) uses.
#pragma once

#include "engine/btree/btree_verify.h"
#include "engine/core/page.h"
#include "engine/storage/catalog.h"
#include "engine/storage/storage.h"

namespace tp {

// The live tuple at `off` of heap page `page`, or nullptr when that slot holds
// none or its line pointer points outside the page or at fewer than
// `tuple_size` bytes: a damaged page whose checksum passed (a writer's bug) is
// reported as a missing row, never read past its end.
const char* heap_tuple_at(const char* page, OffsetNumber off, uint32_t tuple_size);

// Checks an index (tp_verify): structure, ordering, links, metapage, and that
// every entry points at a live heap row whose columns equal its key.
btree::VerifyReport verify_index(Storage& storage, const RelationEntry& table,
                                 const RelationEntry& index);

}  // namespace tp
