// Where a relation's pages are at planning time, for the prefetch-aware cost model: the
// share the buffer pool holds (it knows, BufferPool::cached_blocks) and, for buffered
// I/O, the share the kernel's page cache holds (mincore over a read-only mapping of
// the file, the kernel's own answer). PostgreSQL's planner sees neither; its
// effective_cache_size is a guess the user types in.
#pragma once

#include "engine/plan/prefetch_cost.h"
#include "engine/storage/catalog.h"
#include "engine/storage/storage.h"

namespace tp {

// `pages` is the planner's page count for the relation (the pool share is the pool's
// blocks over it, at most 1). With `buffered`, `os` is the share of the file's pages
// resident in the page cache (taken as independent of the pool's share); 0 otherwise
// or if the kernel cannot tell.
CacheState relation_cache_state(Storage& storage, const RelationEntry& rel, double pages,
                                bool buffered);

}  // namespace tp
