#include "engine/plan/prefetch_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tp {

namespace {

// Microseconds beyond the pool for `pages` page fetches, when a page read from the
// device takes `device_us_per_page` (the reads' time spread over their pages).
double miss_us(const PrefetchModel& m, double pages, const CacheState& cache,
               double device_us_per_page) {
  const double miss = pages * (1.0 - cache.pool);
  const double from_os = miss * cache.os;
  return miss * m.page_read_cpu_us + from_os * m.os_cache_page_us +
         (miss - from_os) * device_us_per_page;
}

}  // namespace

std::string describe_cost_model(const PrefetchModel& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "; reads in flight: seq %g, bitmap %g, index %g; 1.0 = %.3g us",
                m.seq_depth, m.bitmap_depth, m.index_depth, m.unit_us());
  return "prefetch_aware (" + m.device_setting + " = '" + format_device_curve(m.device) + "'" +
         buf + ")";
}

double sequential_pages_cost(const PrefetchModel& m, double pages, double depth,
                             const CacheState& cache) {
  if (pages <= 0) return 0;
  const double n = std::max(1.0, std::min(m.io_combine_limit, pages));
  const double per_page_us = m.device.sequential_us(n, depth);
  return m.units(pages * m.page_hit_us + miss_us(m, pages, cache, per_page_us));
}

double random_pages_cost(const PrefetchModel& m, double pages, double depth,
                         const CacheState& cache) {
  if (pages <= 0) return 0;
  return m.units(pages * m.random_page_hit_us +
                 miss_us(m, pages, cache, m.device.random_read_us(depth)));
}

double bitmap_pages_cost(const PrefetchModel& m, double pages, double table_pages,
                         const CacheState& cache) {
  if (pages <= 0) return 0;
  const double density = std::clamp(pages / std::max(1.0, table_pages), 0.0, 1.0);
  const double reads = std::max({1.0, pages * (1.0 - density), pages / m.io_combine_limit});
  const double device_us =
      reads * m.device.random_read_us(m.bitmap_depth) + (pages - reads) * m.device.seq_us;
  return m.units(pages * m.bitmap_page_us + miss_us(m, pages, cache, device_us / pages));
}

double index_heap_pages_cost(const PrefetchModel& m, double pages, double visits,
                             const CacheState& cache, double scans) {
  if (pages <= 0) return 0;
  const double first = std::min(pages, m.index_start_pages * std::max(1.0, scans));
  const double device_us =
      first * m.device.random_read_us(1) + (pages - first) * m.device.random_read_us(m.index_depth);
  // A visit per heap tuple (the scan keeps its page only while the next TID is on it),
  // each through the stream once prefetching has started.
  visits = std::max(visits, pages);
  const double streamed = m.index_prefetch ? std::max(0.0, visits - first) : 0;
  return m.units(visits * m.random_page_hit_us + streamed * m.stream_block_us +
                 miss_us(m, pages, cache, device_us / pages));
}

double in_order_pages_cost(const PrefetchModel& m, double pages, const CacheState& cache) {
  if (m.index_prefetch)
    return sequential_pages_cost(m, pages, m.index_depth, cache) +
           m.units(pages * m.stream_block_us);
  if (m.buffered) return sequential_pages_cost(m, pages, 2, cache);
  return random_pages_cost(m, pages, 1, cache);
}

}  // namespace tp
