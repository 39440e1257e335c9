#include "engine/plan/rel_size.h"

#include <cmath>

#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"

namespace tp {

int32_t column_width(const RelationEntry& rel, size_t column, const TableStats* stats) {
  if (stats && column < stats->columns.size() && stats->columns[column].avg_width > 0)
    return stats->columns[column].avg_width;
  return column_avg_width(rel.columns[column]);
}

SizeEstimate estimate_rel_size(const RelationEntry& rel, const TableStats* stats) {
  double curpages = double(rel.pages);
  const bool counted = stats != nullptr && stats->reltuples >= 0;
  if (curpages < 10 && !counted) curpages = 10;
  if (curpages == 0) return {0, 0};
  double density;
  if (counted && stats->relpages > 0) {
    density = stats->reltuples / stats->relpages;
  } else {
    int32_t data_width = 0;
    for (size_t c = 0; c < rel.columns.size(); ++c) data_width += column_width(rel, c, stats);
    int32_t tuple_width =
        data_width + int32_t(maxalign(kHeapTupleHeaderSize)) + int32_t(kItemIdSize);
    density = double((int32_t(kBlockSize) - int32_t(kPageHeaderSize)) / tuple_width);
  }
  const double relallvisible = double(rel.all_visible);
  const double allvisfrac = relallvisible == 0          ? 0
                            : relallvisible >= curpages ? 1
                                                        : relallvisible / curpages;
  return {curpages, std::rint(density * curpages), allvisfrac};
}

}  // namespace tp
