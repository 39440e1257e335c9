// PostgreSQL 15's cost model for single-table scans, as pure functions.
//
// Costs are in PostgreSQL's units (one sequential page fetch = 1.0) and follow
// costsize.c, selfuncs.c (genericcostestimate, btcostestimate) and pathnode.c
// down to the order of floating-point operations, so that for the same
// statistics tidepool prints the same `cost=S..T rows=R` as PostgreSQL's
// EXPLAIN. engine/plan/README.md ("Cost model and statistics") explains the model.
//
//   CostSettings cs;                                   // PostgreSQL defaults
//   RelSize rel{.pages = 454546, .tuples = 10000012, .rows = 10000012};
//   PathCost seq = cost_seq_scan(cs, rel, {});         // 0.00..554546.12
//
// Inputs the planner derives elsewhere: selectivities (engine/plan/selectivity.h),
// relation and index sizes (catalog), the leading index column's correlation
// (engine/storage/table_stats.h). Nothing here allocates or throws except on settings a
// user can set wrongly (validate()).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/plan/prefetch_cost.h"

namespace tp {

// Every planner setting the formulas read, with PostgreSQL's defaults.
struct CostSettings {
  double seq_page_cost = 1.0;
  double random_page_cost = 4.0;
  double cpu_tuple_cost = 0.01;
  double cpu_index_tuple_cost = 0.005;
  double cpu_operator_cost = 0.0025;
  double effective_cache_size_pages = 524288;  // 4 GB of 8 kB pages
  int64_t work_mem_kb = 4096;                  // 4 MB
  double parallel_setup_cost = 1000;           // a Gather's start-up (workers, queues)
  double parallel_tuple_cost = 0.1;            // per row passed from a worker to the leader
  // hash_mem_multiplier: hash tables (Hash Join, HashAggregate, Memoize) may use
  // work_mem times this before they batch, spill or evict (engine/plan/join_cost.h).
  double hash_mem_multiplier = 2.0;
  // cost_model = prefetch_aware (disabled: PostgreSQL 15's formulas, exactly). When
  // enabled the cpu_* constants above hold the measured microseconds in its unit.
  PrefetchModel prefetch;

  // Throws tp::Error naming the first setting out of PostgreSQL's range
  // (costs >= 0, effective_cache_size >= 1, work_mem >= 64 kB, hash_mem_multiplier
  // 1 .. 1000).
  void validate() const;
};

// A path's estimate, what EXPLAIN prints as (cost=startup..total rows=rows).
struct PathCost {
  double startup = 0;
  double total = 0;
  double rows = 0;
};

// Evaluation cost of a list of quals (PostgreSQL's QualCost).
struct QualCost {
  double startup = 0;
  double per_tuple = 0;
};

// The base relation as the planner sees it.
struct RelSize {
  double pages = 0;   // relpages (heap blocks)
  double tuples = 0;  // reltuples estimate
  double rows = 0;    // estimated output rows: clamp_row_est(tuples * sel(all quals))
  // Pages of all base tables in the query (root->total_table_pages); 0 means
  // "this table only". Feeds the effective_cache_size pro-rating.
  double total_table_pages = 0;
  // Fraction of the pages the visibility map marks all-visible (PostgreSQL's
  // allvisfrac, from relallvisible): heap fetches an index-only scan saves.
  double allvisfrac = 0;
  // Where its pages are now (read by the prefetch-aware model only).
  CacheState cache{};
};

// PostgreSQL's clamp_row_est: at least 1, rounded to an integer (rint), NaN
// and > 1e100 clamp to 1e100.
double clamp_row_est(double rows);

// Mackert-Lohman pages fetched for `tuples_fetched` tuples from a table of
// `table_pages`, with `index_pages` competing for effective_cache_size
// (index_pages_fetched in costsize.c).
double index_pages_fetched(const CostSettings& cs, double tuples_fetched, double table_pages,
                           double index_pages, double total_table_pages);

// A sequential scan's page reads: seq_page_cost each, or (prefetch-aware) at the
// stream's depth with the relation's cached pages as hits.
double seq_scan_disk_cost(const CostSettings& cs, const RelSize& rel);

// Sequential scan: every page at seq_page_cost, every tuple at cpu_tuple_cost
// plus the quals.
PathCost cost_seq_scan(const CostSettings& cs, const RelSize& rel, const QualCost& quals);

// A btree index as the planner sees it.
struct BtreeIndexInfo {
  double pages = 0;     // relpages of the index, metapage included
  double tuples = 0;    // index reltuples
  int tree_height = 0;  // levels above the leaves (0 = root is a leaf)
  int key_columns = 1;
  bool unique = false;
  bool descending = false;  // leading column sorted DESC: correlation sign flips
  CacheState cache{};       // where its pages are now (prefetch-aware model only)
};

// Index clauses summarised as btcostestimate needs them (engine/plan/btree_qual_summary.h
// derives this from an expression list).
struct BtreeQuals {
  double index_selectivity = 1;     // all index quals (clauselist_selectivity)
  double boundary_selectivity = 1;  // boundary quals only: leading '=' + next column
  int operator_count = 0;           // index qual operators (BETWEEN counts 2)
  // cost_qual_eval's calls in the quals' operands that are expressions, not constants
  // (`CURRENT_DATE - 7`): evaluated once per scan (index_other_operands_eval_cost).
  double operand_cost_units = 0;
  double sa_scans = 1;             // product of IN-list lengths among boundary quals
  double all_sa_scans = 1;         // product of IN-list lengths among all index quals
  bool unique_match = false;       // unique index, '=' on every column, no IN / IS NULL
  double leading_correlation = 0;  // pg_stats.correlation of the first index column
};

// What the index side costs (amcostestimate's outputs) plus bookkeeping the
// bitmap scan and EXPLAIN need.
struct IndexCost {
  double startup = 0;       // indexStartupCost
  double total = 0;         // indexTotalCost
  double selectivity = 0;   // indexSelectivity
  double correlation = 0;   // indexCorrelation
  double index_tuples = 0;  // numIndexTuples (per scan)
  double index_pages = 0;   // numIndexPages (per scan)
};

// btcostestimate + genericcostestimate (PostgreSQL 15): index pages pro rata of
// the index size, random_page_cost each, cpu_index_tuple_cost plus one
// operator per qual per index tuple, the descent charge, and the correlation.
IndexCost cost_btree_index(const CostSettings& cs, const RelSize& rel, const BtreeIndexInfo& index,
                           const BtreeQuals& quals, double loop_count = 1);

struct IndexScanCost {
  PathCost path;
  IndexCost index;
  double heap_tuples_fetched = 0;
  double max_io_cost = 0;  // uncorrelated heap I/O (Mackert-Lohman pages * random_page_cost)
  double min_io_cost = 0;  // perfectly correlated heap I/O
  // The run cost in two parts, as a parallel path divides only the CPU part.
  double noncpu_run_cost = 0;
  double cpu_run_cost = 0;
  // Mackert-Lohman's heap pages (not all-visible ones for an index-only scan): what
  // compute_parallel_worker counts for a Parallel Index Scan.
  double rand_heap_pages = 0;
  // prefetch_aware, a parameterized scan (loop_count > 1): what nestloop_prefetch saves
  // per loop, its look-ups ahead paid for (below 0: it does not pay).
  double batch_gain = 0;
  double batch_gain_first_page = 0;  // the same when only each loop's first page is read
};

// cost_index for a plain index scan: the index's cost plus heap I/O
// interpolated by correlation^2 between max_IO and min_IO, plus
// (cpu_tuple_cost + qpquals) per fetched tuple. `qpquals` are the quals that
// are not index quals. An index-only scan fetches only the heap pages that are
// not all-visible: pages_fetched * (1 - allvisfrac), rounded up.
IndexScanCost cost_index_scan(const CostSettings& cs, const RelSize& rel,
                              const BtreeIndexInfo& index, const BtreeQuals& quals,
                              const QualCost& qpquals, double loop_count = 1,
                              bool index_only = false);

// The cost model's view of a bitmap tree (PostgreSQL's bitmapqual paths): an index
// scan, or BitmapAnd/BitmapOr of paths. The executor's nodes are scans/bitmap_scan.h.
struct BitmapPath {
  enum class Kind : uint8_t { kIndex, kAnd, kOr };
  Kind kind = Kind::kIndex;
  // kIndex: the index scan's cost (from cost_index_scan) and the path rows
  // that PostgreSQL's IndexPath carries (the relation's output rows).
  IndexCost index;
  double index_path_rows = 0;
  double index_relpages = 0;         // for repeated scans: pages that compete for cache
  std::vector<BitmapPath> children;  // kAnd / kOr

  static BitmapPath index_scan(const IndexCost& ic, double path_rows, double index_relpages);
  static BitmapPath and_of(std::vector<BitmapPath> children);
  static BitmapPath or_of(std::vector<BitmapPath> children);
};

// cost_bitmap_tree_node: the node's total cost and selectivity as its parent
// sees them (an index scan adds 0.1 * cpu_operator_cost per path row).
struct BitmapTreeCost {
  double cost = 0;
  double selectivity = 0;
};
BitmapTreeCost cost_bitmap_tree_node(const CostSettings& cs, const BitmapPath& node);

// cost_bitmap_and_node / cost_bitmap_or_node: startup = total = sum of the
// children plus 100 * cpu_operator_cost per combine (BitmapOr skips it for
// plain index children); selectivity multiplied (AND) or summed, capped at 1 (OR).
struct BitmapCombineCost {
  double cost = 0;
  double selectivity = 0;
};
BitmapCombineCost cost_bitmap_and(const CostSettings& cs, const std::vector<BitmapPath>& children);
BitmapCombineCost cost_bitmap_or(const CostSettings& cs, const std::vector<BitmapPath>& children);

// What EXPLAIN shows on a Bitmap Index Scan / BitmapAnd / BitmapOr node.
PathCost explain_bitmap_node(const CostSettings& cs, const BitmapPath& node, double rel_tuples);

struct BitmapPages {
  double pages_fetched = 0;   // heap pages the scan reads
  double tuples_fetched = 0;  // tuples it examines (all tuples of lossy pages)
  double heap_pages = 0;      // distinct pages holding matches (before ceil)
  double exact_pages = 0;     // estimated, when the bitmap would not fit
  double lossy_pages = 0;
  double bitmap_cost = 0;  // the bitmap tree's cost (startup of the heap scan)
  double selectivity = 0;
};

// compute_bitmap_pages: Mackert-Lohman without re-reads, and when the pages
// exceed the TID bitmap's entries for work_mem, the lossy share whose every
// tuple is fetched.
BitmapPages compute_bitmap_pages(const CostSettings& cs, const RelSize& rel,
                                 const BitmapPath& bitmap, double loop_count = 1);

struct BitmapHeapScanCost {
  PathCost path;
  BitmapPages pages;
  double cost_per_page = 0;
  double noncpu_run_cost = 0;  // the pages
  double cpu_run_cost = 0;     // the tuples: what a parallel path divides
};

// cost_bitmap_heap_scan: pages at a cost interpolated between random and
// sequential by sqrt(pages / T), and every fetched tuple pays cpu_tuple_cost
// plus *all* the relation's quals (`quals`), since rechecks are assumed.
BitmapHeapScanCost cost_bitmap_heap_scan(const CostSettings& cs, const RelSize& rel,
                                         const BitmapPath& bitmap, const QualCost& quals,
                                         double loop_count = 1);

// cost_sort: quicksort comparison_cost * N * log2(N) (two operators per
// comparison plus `extra_comparison_cost`), a bounded heap sort for a LIMIT
// whose rows fit, an external merge when the data exceeds work_mem; plus
// cpu_operator_cost per output tuple. `width` is the tuple width in bytes;
// limit_tuples <= 0 means no bound.
PathCost cost_sort(const CostSettings& cs, const PathCost& input, double tuples, int width,
                   double extra_comparison_cost = 0, double limit_tuples = -1);

// PostgreSQL's disable_cost: what enable_* = off adds to a path, which stays possible
// (it still wins when nothing else can answer).
inline constexpr double kDisableCost = 1.0e10;
inline PathCost disabled_if(bool disabled, PathCost p) {
  if (disabled) {
    p.startup += kDisableCost;
    p.total += kDisableCost;
  }
  return p;
}

// Limit / OFFSET: interpolates the input's run cost. offset_rows and
// count_rows < 0 mean "not given"; 0 count means none of PostgreSQL's
// "estimate 10%" cases (tidepool only has constant LIMIT/OFFSET).
PathCost cost_limit(const PathCost& input, double offset_rows, double count_rows);

}  // namespace tp
