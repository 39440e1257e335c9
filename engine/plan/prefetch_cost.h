// The prefetch-aware cost model (cost_model = prefetch_aware): what a page fetch costs
// when the plan's real look-ahead, the measured device and the pool's contents are
// known. PostgreSQL 15 charges seq_page_cost or random_page_cost per page whatever the
// scan's prefetching and whatever is cached; here each page fetch is priced as time:
//
//   - a page the pool holds costs page_hit_us (lookup, pin, lock) when visited in block
//     order, random_page_hit_us out of it (CPU caches missed);
//   - a page it does not hold adds page_read_cpu_us and either os_cache_page_us (a
//     buffered read the kernel's cache answers) or the device: one read of n blocks
//     with d reads in flight takes random_read_us(d) + (n - 1) * seq_us (the curve of
//     engine/plan/device_curve.h for the session's io_method and io_direct);
//   - d is the look-ahead the plan will have: a seq scan's and a bitmap heap scan's
//     stream keep min(effective_io_concurrency, io_max_concurrency) reads in flight (1
//     when effective_io_concurrency = 0); an index scan reads one page at a time without
//     index_prefetch and as many as its stream has with it.
//
// Costs stay in PostgreSQL's unit, one sequential page read (the curve's seq_us), so
// the other formulas (sorts, aggregates, Gather) keep their meaning; the CPU constants
// become the measured microseconds divided by that unit. engine/plan/README.md
// ("The prefetch-aware cost model") derives each formula.
#pragma once

#include <string>

#include "engine/plan/device_curve.h"

namespace tp {

struct PrefetchModel {
  bool enabled = false;             // cost_model = prefetch_aware
  DeviceCurve device;               // the session's io_method and io_direct
  std::string device_setting;       // the setting it came from (device_io_uring_direct, ...)
  bool buffered = false;            // io_direct = off: the kernel's page cache sits in front
  double page_hit_us = 0.15;        // a page visited in block order (seq scan)
  double random_page_hit_us = 1.2;  // out of block order (index heap fetch, bitmap page)
  double stream_block_us = 0.3;     // a block handed out by a prefetching read stream
  double bitmap_page_us = 0.8;      // a bitmap heap scan's page: TID bitmap, stream, visit
  double page_read_cpu_us = 0.5;
  double os_cache_page_us = 2;
  // Reads in flight each scan kind will have (>= 1).
  double seq_depth = 1;
  double bitmap_depth = 1;
  bool index_prefetch = false;   // index scans read their heap pages through a stream
  double index_depth = 1;        // heap pages of an index scan (1 without index_prefetch)
  double leaf_depth = 1;         // index leaf pages (index_leaf_readahead)
  double index_start_pages = 0;  // heap pages an index scan reads before prefetching starts
  double io_combine_limit = 16;

  // Microseconds per cost unit: one sequential page read.
  double unit_us() const { return device.seq_us; }
  double units(double us) const { return us / unit_us(); }
};

// What EXPLAIN prints on its "Cost Model:" line: the model, the curve it priced
// with, and each scan kind's look-ahead.
std::string describe_cost_model(const PrefetchModel& m);

// Where a relation's pages are, as fractions of its pages (0..1).
struct CacheState {
  double pool = 0;  // in the buffer pool
  double os = 0;    // of the rest, in the kernel's page cache (buffered I/O only)
};

// Cost (in units) of reading `pages` pages in block order, combined into reads of
// io_combine_limit blocks, `depth` reads in flight: bandwidth-bound (seq_us per page)
// with two or more in flight, each read's latency paid with one.
double sequential_pages_cost(const PrefetchModel& m, double pages, double depth,
                             const CacheState& cache);
// Cost of `pages` pages each read alone (8 kB random reads), `depth` in flight.
double random_pages_cost(const PrefetchModel& m, double pages, double depth,
                         const CacheState& cache);
// Cost of a bitmap heap scan's `pages` of a `table_pages` table, in block order: pages
// spread uniformly, so a page starts a new read when the page before it is not in the
// bitmap (pages * (1 - density) reads, io_combine_limit blocks at most each).
double bitmap_pages_cost(const PrefetchModel& m, double pages, double table_pages,
                         const CacheState& cache);
// An index scan's heap pages: `pages` fetched (Mackert-Lohman's count: the reads when
// nothing is cached) over `visits` page visits (one per heap tuple when the heap is not
// in index order) of `scans` scans (a parameterized scan's loops); each scan's first
// index_start_pages at depth 1 (its stream starts afresh), the rest at index_depth; each
// visit after a stream started also pays stream_block_us.
double index_heap_pages_cost(const PrefetchModel& m, double pages, double visits,
                             const CacheState& cache, double scans = 1);
// An index scan's heap pages when they come in block order (a perfectly correlated
// index): the stream combines them into sequential reads when it prefetches; without it
// each is an 8 kB read of its own, which the kernel's read-ahead turns into a sequential
// read for buffered I/O and which pays a read's latency with direct I/O.
double in_order_pages_cost(const PrefetchModel& m, double pages, const CacheState& cache);

}  // namespace tp
