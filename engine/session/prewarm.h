// pg_prewarm(relation [, mode [, fork [, first_block [, last_block]]]]): reads a
// relation's blocks into the buffer pool, as PostgreSQL's pg_prewarm extension does in
// its 'buffer' mode, and returns how many it read. Experiments and labs use it to put a
// chosen share of a table in the pool (the cached sweep, a partly cached table).
#pragma once

#include <vector>

#include "bufmgr/read_stream.h"
#include "engine/sql/ast.h"
#include "engine/sql/value.h"
#include "engine/storage/catalog.h"
#include "engine/storage/storage.h"

namespace tp {

// Throws tp::Error (PostgreSQL's messages) for a missing relation, a mode other than
// 'buffer' ('read' and 'prefetch' are PostgreSQL's and are refused by name), a fork
// other than 'main', or a block out of the relation's range.
Value prewarm_relation(const Catalog& catalog, Storage& storage,
                       const bufmgr::ReadStreamConfig& stream, const sql::Expr& call,
                       const std::vector<Value>& args);

}  // namespace tp
