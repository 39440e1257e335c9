#include "engine/plan/rel_size.h"

#include <cmath>

#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"

namespace tp {

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
    for (const Column& c : rel.columns) data_width += column_avg_width(c);
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
