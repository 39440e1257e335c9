// PostgreSQL 15's arithmetic of parallel plans, as pure functions: how many
// workers a table's scan gets (allpaths.c compute_parallel_worker), how the
// work divides among them (costsize.c get_parallel_divisor), what a Parallel
// Seq Scan and a Gather cost (cost_seqscan with parallel_workers > 0,
// cost_gather), and add_path's fuzzy comparison (pathnode.c), which decides
// whether a parallel path survives beside the serial ones.
//
//   int w = compute_parallel_worker(1667, -1, 1024, 2);    // 1 (log-base-3 rule)
//   double d = parallel_divisor(w, true);                   // 1.7 (the leader's 0.7)
//   PathCost scan = cost_parallel_seq_scan(cs, rel, {}, d); // CPU / 1.7, disk undivided
//   PathCost gather = cost_gather(cs, scan, rel.rows);      // + 1000 + 0.1 per row
//
// engine/plan/README.md ("Parallel plans") explains the model.
#pragma once

#include <vector>

#include "engine/plan/cost_model.h"

namespace tp {

// compute_parallel_worker for a heap scan of `heap_pages` pages: the table's
// parallel_workers option when set (>= 0); else 0 below
// `min_parallel_table_scan_size` pages, else 1 worker, one more each time the
// table is three times larger (1,024 / 3,072 / 9,216 ... pages at the default
// 8MB). Never more than `max_workers` (max_parallel_workers_per_gather).
int compute_parallel_worker(double heap_pages, int rel_parallel_workers,
                            double min_parallel_table_scan_size, int max_workers);

// The same rule for a scan that reads `heap_pages` heap pages and `index_pages` index
// pages (-1: not counted): none when either is below its minimum
// (`min_parallel_index_scan_size` for the index), else the smaller of the two counts
// the log-base-3 rule gives. A Parallel Index Scan counts both (its heap pages as
// Mackert-Lohman's uncorrelated estimate), a Parallel Index Only Scan its index pages
// only, a Parallel Bitmap Heap Scan its heap pages only.
struct ParallelScanMinimums {
  double table_pages = 1024;  // min_parallel_table_scan_size
  double index_pages = 64;    // min_parallel_index_scan_size
};
int compute_parallel_worker(double heap_pages, double index_pages, int rel_parallel_workers,
                            const ParallelScanMinimums& min, int max_workers);

// get_parallel_divisor: the share of the work each participant does. The
// workers, plus the leader's part when it participates: 1 - 0.3 per worker
// while that is positive (so 1 worker: 1.7, 2: 2.4, 3: 3.1, 4 and more: none).
double parallel_divisor(int workers, bool leader_participation);

// cost_seqscan of a Parallel Seq Scan: the CPU run cost divided by `divisor`,
// the disk run cost not (every page is still read once); rows are per
// participant, clamp_row_est(rows / divisor).
PathCost cost_parallel_seq_scan(const CostSettings& cs, const RelSize& rel, const QualCost& quals,
                                double divisor);

// A partial index or bitmap heap scan's cost (cost_index / cost_bitmap_heap_scan
// with parallel_workers > 0): the serial path's startup and non-CPU run cost, its
// CPU run cost divided by `divisor`; rows per participant, clamp_row_est(rows / divisor).
PathCost divide_cpu_cost(double startup, double noncpu_run_cost, double cpu_run_cost, double rows,
                         double divisor);

// cost_gather: the subpath's costs plus parallel_setup_cost at startup and
// parallel_tuple_cost per row gathered; `rows` is the Gather's own estimate
// (the relation's rows for a plain scan, partial rows * workers under a
// Finalize Aggregate).
PathCost cost_gather(const CostSettings& cs, const PathCost& subpath, double rows);

// cost_gather_merge over `sorted` (each participant's sorted rows): a binary heap
// over N = workers + 1 inputs (N log2 N comparisons to build it, log2 N per row,
// two operators per comparison), cpu_operator_cost per row for the heap's upkeep,
// parallel_setup_cost at startup and parallel_tuple_cost per row with 5% more for
// the workers' waits. `rows` is the Gather Merge's own estimate; `disabled`
// (enable_gathermerge = off) adds the disable cost.
PathCost cost_gather_merge(const CostSettings& cs, const PathCost& sorted, double rows, int workers,
                           bool disabled);

// add_path's verdict on a new path against one already kept, as
// compare_path_costs_fuzzily with STD_FUZZ_FACTOR (1.01) judges costs:
// kNewBetter / kOldBetter when one is cheaper by more than 1% in total cost,
// kEqual when both costs are within 1%, kDifferent when the one worse in
// total is better by 1% at startup and startup counts (`consider_startup`:
// PostgreSQL's rel->consider_startup, true when the query has a LIMIT).
// Within 1% on total, the better startup wins. `fuzz_factor` 1.01 is pathnode.c's
// STD_FUZZ_FACTOR.
enum class FuzzyCompare { kNewBetter, kOldBetter, kEqual, kDifferent };
FuzzyCompare compare_path_costs_fuzzily(const PathCost& new_path, const PathCost& old_path,
                                        bool consider_startup, double fuzz_factor = 1.01);

// A path of one relation as add_path weighs it: its costs and rows, and whether it
// is parallel-safe (a Gather or Gather Merge is not).
struct RelPath {
  PathCost cost;
  bool parallel_safe = true;
  int id = 0;  // the caller's name for it
  // Its useful pathkeys: how many leading keys of the query's ORDER BY it gives (a
  // path giving more is better on pathkeys; the keys of all paths are prefixes of the
  // one order, so they never differ otherwise).
  int keys = 0;
};

// add_path for paths with the same pathkeys (as the paths of an ORDER BY's
// ordered relation): adds `p` to `kept` unless one of them dominates it, and drops
// those it dominates. One fuzzily cheaper path dominates another that returns no
// fewer rows and is no more parallel-safe; on a fuzzy tie the parallel-safe one,
// then the one with fewer rows, then the (barely) cheaper one is kept.
void add_same_order_path(std::vector<RelPath>& kept, const RelPath& p, bool consider_startup);

// pathnode.c's add_path for unparameterized paths whose pathkeys are prefixes of one
// order (`keys`): as add_same_order_path, except that a path with fewer keys never
// dominates one with more, and on a fuzzy cost tie the one with more keys wins
// (returning no more rows and being no less parallel-safe).
void add_path(std::vector<RelPath>& kept, const RelPath& p, bool consider_startup);

// Whether add_path keeps a new parallel-unsafe path (a Gather, a Finalize
// Aggregate over one) beside a parallel-safe `old_path` that returns as many
// rows and offers no order the new one lacks: only when the new one is fuzzily
// cheaper on total cost or better on one of the two costs (on a fuzzy tie,
// PostgreSQL keeps the parallel-safe path).
bool parallel_path_survives(const PathCost& new_path, const PathCost& old_path,
                            bool consider_startup);

}  // namespace tp
