#include "engine/session/vacuum.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "bufmgr/buffer_pool.h"
#include "engine/core/error.h"
#include "engine/core/page.h"
#include "engine/storage/cancel_points.h"

namespace tp {
namespace {

// PostgreSQL's SKIP_PAGES_THRESHOLD: shorter runs of skippable pages are read anyway
// (skipping a few pages defeats the kernel's read-ahead).
constexpr BlockNumber kSkipPagesThreshold = 32;

// vac_estimate_reltuples of PostgreSQL 15: the tuples counted on the scanned pages,
// and the old density (reltuples / relpages) for the pages skipped.
double estimate_reltuples(const TableStats& old, double total_pages, double scanned_pages,
                          double scanned_tuples) {
  if (scanned_pages >= total_pages) return scanned_tuples;
  const double old_pages = old.relpages;
  const double old_tuples = old.reltuples;
  // Keep the old count when the size is unchanged and under 2% was scanned, or at
  // most one page was: a few pages read again and again would distort it.
  if (old_pages == total_pages && scanned_pages < total_pages * 0.02) return old_tuples;
  if (scanned_pages <= 1) return old_tuples;
  if (old_tuples < 0 || old_pages == 0)
    return std::floor((scanned_tuples / scanned_pages) * total_pages + 0.5);
  const double density = old_tuples / old_pages;
  return std::floor(density * (total_pages - scanned_pages) + scanned_tuples + 0.5);
}

}  // namespace

bool vacuum_analyzes(const std::vector<std::string>& options) {
  bool analyze = false;
  for (const std::string& o : options) {
    if (o != "analyze" && o != "analyse")
      throw Error("VACUUM option \"" + o + "\" is not supported", "",
                  "tidepool's VACUUM marks every page all-visible in the visibility map, and "
                  "runs ANALYZE when asked (VACUUM ANALYZE t, VACUUM (ANALYZE) t).")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    analyze = true;
  }
  return analyze;
}

VisibilityMap vacuum_relation(Session& session, const RelationEntry& rel, TableStats& st) {
  Storage& storage = session.storage();
  aio::IoFile& file = storage.file(rel);  // a damaged table is refused here
  // A damaged map is replaced: every page is read then, as before a first VACUUM.
  std::shared_ptr<const VisibilityMap> old = std::make_shared<VisibilityMap>();
  try {
    old = storage.visibility_map(rel);
  } catch (const Error&) {
  }
  const BlockNumber pages = BlockNumber(rel.pages);
  double scanned = 0, tuples = 0;
  auto scan = [&](BlockNumber b) {
    check_cancel_at(CancelPoint::kAnalyzeBlock);
    bufmgr::ReadGuard page = storage.pool().read_buffer(file, b).lock_shared();
    for (OffsetNumber o = 1; o <= page_max_offset(page.page()); ++o)
      tuples += page_item_id(page.page(), o)->state == uint32_t(ItemState::kNormal) ? 1 : 0;
    ++scanned;
  };
  for (BlockNumber b = 0; b < pages;) {
    BlockNumber run_end = b;
    while (run_end < pages && old->all_visible(run_end)) ++run_end;
    // A run of all-visible pages is skipped when long enough, but never the last page.
    const bool skip = run_end - b >= kSkipPagesThreshold;
    for (; b < run_end; ++b)
      if (!skip || b == pages - 1) scan(b);
    if (b < pages) scan(b++);  // the page that ends the run is not all-visible
  }
  st.reltuples = estimate_reltuples(st, double(pages), scanned, tuples);
  st.relpages = double(pages);
  VisibilityMap map;
  map.set_all_visible(pages);
  return map;
}

}  // namespace tp
