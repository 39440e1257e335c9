// Building a B-tree index from its table (CREATE INDEX, PRIMARY KEY, TRUNCATE's empty
// indexes): the catalog index's B-tree definition, PostgreSQL's choice of a new index's
// name, the sorted build, and the height of an index as PostgreSQL counts it. The B-tree
// itself is engine/btree/; its pages live in the buffer pool through PoolPageStore.
#pragma once

#include <string>
#include <vector>

#include "engine/btree/btree.h"
#include "engine/btree/btree_build.h"
#include "engine/storage/catalog.h"
#include "engine/storage/storage.h"

namespace tp {

// The B-tree definition of a catalog index over `table`.
btree::IndexDef index_def(const RelationEntry& table, const RelationEntry& index);

// PostgreSQL's name for a new index: t_a_idx, t_a_b_idx, t_pkey; a number is
// appended (t_a_idx1, ...) while the name is taken.
std::string choose_index_name(const Catalog& catalog, const RelationEntry& table,
                              const std::vector<int>& columns, bool primary);

// Sorted build of `index` (an empty file) from every row of `table`, written
// and fsynced before it returns. Returns the build's statistics; throws
// tp::Error on a duplicate in a unique index or a cancel.
// The table is read through a read stream configured as `stream`; `progress`
// prints a line on stderr for large builds.
btree::BuildStats build_index(Storage& storage, const RelationEntry& table,
                              const RelationEntry& index, const bufmgr::ReadStreamConfig& stream,
                              bool progress);

// Height of a B-tree index as PostgreSQL counts it: the root's level (0 when
// the root is a leaf; 2 for 10 M int4 keys).
int index_height(Storage& storage, const RelationEntry& index);

}  // namespace tp
