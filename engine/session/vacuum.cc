#include "engine/session/vacuum.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "bufmgr/strategy.h"
#include "engine/core/error.h"
#include "engine/core/page.h"
#include "engine/session/layer_settings.h"
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

// The pages PostgreSQL 15's lazy vacuum reads: all but runs of at least 32 pages the
// old map marks all-visible, and always the last page.
std::vector<BlockNumber> pages_to_scan(const VisibilityMap& old, BlockNumber pages) {
  std::vector<BlockNumber> out;
  for (BlockNumber b = 0; b < pages;) {
    BlockNumber run_end = b;
    while (run_end < pages && old.all_visible(run_end)) ++run_end;
    const bool skip = run_end - b >= kSkipPagesThreshold;
    for (; b < run_end; ++b)
      if (!skip || b == pages - 1) out.push_back(b);
    if (b < pages) out.push_back(b++);  // the page that ends the run is not all-visible
  }
  return out;
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
  bufmgr::BufferPool& pool = storage.pool();
  aio::IoFile& file = storage.file(rel);  // a damaged table is refused here
  // A damaged map is replaced: every page is read then, as before a first VACUUM.
  std::shared_ptr<const VisibilityMap> old = std::make_shared<VisibilityMap>();
  try {
    old = storage.visibility_map(rel);
  } catch (const Error&) {
  }
  const BlockNumber pages = BlockNumber(rel.pages);
  const std::vector<BlockNumber> blocks = pages_to_scan(*old, pages);
  // Read ahead through a ring, as ANALYZE reads its sample (PostgreSQL: the vacuum ring).
  bufmgr::ReadStreamConfig config = stream_config(session.settings());
  std::unique_ptr<bufmgr::BufferStrategy> ring = bufmgr::BufferStrategy::for_seq_scan(
      pool, pages, config.effective_io_concurrency, config.io_combine_limit);
  config.strategy = ring.get();
  size_t next = 0;
  bufmgr::ReadStream stream(pool, file, config, [&](void*) {
    return next < blocks.size() ? blocks[next++] : kInvalidBlock;
  });
  double tuples = 0;
  while (bufmgr::PinGuard pin = stream.next_buffer()) {
    check_cancel_at(CancelPoint::kAnalyzeBlock);
    bufmgr::ReadGuard page = std::move(pin).lock_shared();
    for (OffsetNumber o = 1; o <= page_max_offset(page.page()); ++o)
      tuples += page_item_id(page.page(), o)->state == uint32_t(ItemState::kNormal) ? 1 : 0;
  }
  st.reltuples = estimate_reltuples(st, double(pages), double(blocks.size()), tuples);
  st.relpages = double(pages);
  VisibilityMap map;
  map.set_all_visible(pages);
  return map;
}

}  // namespace tp
