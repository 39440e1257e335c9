// PostgreSQL's estimate_rel_size for a heap: the table's pages and tuples as the
// planner assumes them.
#pragma once

#include "engine/storage/catalog.h"
#include "engine/storage/table_stats.h"

namespace tp {

// The file's current pages, and
// tuples from the density ANALYZE, VACUUM or an index build saw (pg_class's
// reltuples / relpages), or from the row width before any of them ran or after
// a TRUNCATE (reltuples -1), with the 10-page floor then.
struct SizeEstimate {
  double pages = 0;
  double tuples = 0;
  // PostgreSQL's allvisfrac: relallvisible over the current pages, 0 when
  // relallvisible is 0 and 1 when it reaches them (a stale count after an
  // INSERT added pages gives less).
  double allvisfrac = 0;
};
// A column's width as the planner takes it: ANALYZE's average width, else the type's
// (get_attavgwidth, then get_typavgwidth).
int32_t column_width(const RelationEntry& rel, size_t column, const TableStats* stats);

SizeEstimate estimate_rel_size(const RelationEntry& rel, const TableStats* stats);

}  // namespace tp
