// Formulas follow PostgreSQL 15 (costsize.c, selfuncs.c, pathnode.c). The
// order of floating-point operations is kept as PostgreSQL writes it, because
// EXPLAIN rounds to the cent and a different summation order can move the
// last digit.
#include "engine/plan/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "scans/tidbitmap_budget.h"

namespace tp {

namespace {

constexpr double kMaximumRowCount = 1e100;
constexpr double kBlockBytes = 8192;
constexpr double kHeapTupleHeaderAligned = 24;   // MAXALIGN(SizeofHeapTupleHeader = 23)
constexpr double kDescentOperatorsPerPage = 50;  // btcostestimate's per-level charge
constexpr double kBitmapCombineOperators = 100;  // per tbm_union / tbm_intersect

// costsize.c's LOG2: the constant is PostgreSQL's, kept so results match.
double log2_pg(double x) {
  return std::log(x) / 0.693147180559945;
}

double maxalign(double width) {
  return std::ceil(width / 8.0) * 8.0;
}

double relation_byte_size(double tuples, int width) {
  return tuples * (maxalign(width) + kHeapTupleHeaderAligned);
}

// tuplesort_merge_order (PostgreSQL 15): inputs need a tape buffer plus a merge
// buffer each, outputs a tape buffer; at least 6, at most 500 inputs.
double tuplesort_merge_order(double allowed_bytes) {
  const double tape_buffer_overhead = kBlockBytes;
  const double merge_buffer_size = kBlockBytes * 32;
  double order = std::floor(allowed_bytes / (2 * tape_buffer_overhead + merge_buffer_size));
  order = std::max(order, 6.0);
  order = std::min(order, 500.0);
  return order;
}

std::string fmt_setting(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void check_setting(bool ok, const char* name, const std::string& value, const char* range) {
  if (!ok)
    throw Error(std::string(value) + " is outside the valid range for parameter \"" + name +
                "\" (" + range + ")")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
}

}  // namespace

void CostSettings::validate() const {
  auto cost_ok = [](double v) { return v >= 0 && v <= 1.79769e308 && !std::isnan(v); };
  check_setting(cost_ok(seq_page_cost), "seq_page_cost", fmt_setting(seq_page_cost),
                "0 .. 1.79769e+308");
  check_setting(cost_ok(random_page_cost), "random_page_cost", fmt_setting(random_page_cost),
                "0 .. 1.79769e+308");
  check_setting(cost_ok(cpu_tuple_cost), "cpu_tuple_cost", fmt_setting(cpu_tuple_cost),
                "0 .. 1.79769e+308");
  check_setting(cost_ok(cpu_index_tuple_cost), "cpu_index_tuple_cost",
                fmt_setting(cpu_index_tuple_cost), "0 .. 1.79769e+308");
  check_setting(cost_ok(cpu_operator_cost), "cpu_operator_cost", fmt_setting(cpu_operator_cost),
                "0 .. 1.79769e+308");
  check_setting(cost_ok(parallel_setup_cost), "parallel_setup_cost",
                fmt_setting(parallel_setup_cost), "0 .. 1.79769e+308");
  check_setting(cost_ok(parallel_tuple_cost), "parallel_tuple_cost",
                fmt_setting(parallel_tuple_cost), "0 .. 1.79769e+308");
  check_setting(effective_cache_size_pages >= 1 && effective_cache_size_pages <= 2147483647,
                "effective_cache_size", fmt_setting(effective_cache_size_pages),
                "1 .. 2147483647 pages");
  check_setting(work_mem_kb >= 64 && work_mem_kb <= 2147483647, "work_mem",
                std::to_string(work_mem_kb), "64 .. 2147483647 kB");
  check_setting(hash_mem_multiplier >= 1 && hash_mem_multiplier <= 1000, "hash_mem_multiplier",
                fmt_setting(hash_mem_multiplier), "1 .. 1000");
}

double clamp_row_est(double rows) {
  if (rows > kMaximumRowCount || std::isnan(rows)) return kMaximumRowCount;
  if (rows <= 1.0) return 1.0;
  return std::rint(rows);
}

double index_pages_fetched(const CostSettings& cs, double tuples_fetched, double table_pages,
                           double index_pages, double total_table_pages) {
  const double T = table_pages > 1 ? table_pages : 1.0;
  double total_pages = total_table_pages + index_pages;
  total_pages = std::max(total_pages, 1.0);
  // This table's share of the cache, whole pages, at least one.
  double b = cs.effective_cache_size_pages * T / total_pages;
  b = b <= 1.0 ? 1.0 : std::ceil(b);

  double pages_fetched;
  if (T <= b) {
    pages_fetched = (2.0 * T * tuples_fetched) / (2.0 * T + tuples_fetched);
    pages_fetched = pages_fetched >= T ? T : std::ceil(pages_fetched);
  } else {
    const double lim = (2.0 * T * b) / (2.0 * T - b);
    if (tuples_fetched <= lim) {
      pages_fetched = (2.0 * T * tuples_fetched) / (2.0 * T + tuples_fetched);
    } else {
      pages_fetched = b + (tuples_fetched - lim) * (T - b) / T;
    }
    pages_fetched = std::ceil(pages_fetched);
  }
  return pages_fetched;
}

// An index scan's index pages: random_page_cost each, or (prefetch-aware) read ahead
// through the leaf stream when there are several.
static double index_pages_cost(const CostSettings& cs, double pages, const BtreeIndexInfo& index) {
  const PrefetchModel& m = cs.prefetch;
  if (!m.enabled) return pages * cs.random_page_cost;
  return random_pages_cost(m, pages, pages > 2 ? m.leaf_depth : 1, index.cache);
}

// An index scan's heap I/O when every fetch lands on another page (PostgreSQL's max_IO):
// `pages` read for `visits` heap tuples.
// `scans` scans share the pages (a parameterized scan's loops): each starts its stream
// afresh.
static double heap_fetches_cost(const CostSettings& cs, const PrefetchModel& m, double pages,
                                double visits, double scans, const RelSize& rel) {
  if (!m.enabled) return pages * cs.random_page_cost;
  return index_heap_pages_cost(m, pages, visits, rel.cache, scans);
}

// ... and when the heap is in index order (min_IO): one random fetch, then each page in
// turn.
static double heap_in_order_cost(const CostSettings& cs, const PrefetchModel& m, double pages,
                                 const RelSize& rel) {
  if (pages <= 0) return 0;
  if (!m.enabled) return cs.random_page_cost + (pages - 1) * cs.seq_page_cost;
  return index_heap_pages_cost(m, 1, 1, rel.cache) + in_order_pages_cost(m, pages - 1, rel.cache);
}

static double total_pages_of(const RelSize& rel) {
  return rel.total_table_pages > 0 ? rel.total_table_pages : rel.pages;
}

double seq_scan_disk_cost(const CostSettings& cs, const RelSize& rel) {
  const PrefetchModel& m = cs.prefetch;
  if (m.enabled) return sequential_pages_cost(m, rel.pages, m.seq_depth, rel.cache);
  return cs.seq_page_cost * rel.pages;
}

PathCost cost_seq_scan(const CostSettings& cs, const RelSize& rel, const QualCost& quals) {
  const double startup_cost = quals.startup;
  const double disk_run_cost = seq_scan_disk_cost(cs, rel);
  const double cpu_per_tuple = cs.cpu_tuple_cost + quals.per_tuple;
  const double cpu_run_cost = cpu_per_tuple * rel.tuples;
  return {startup_cost, startup_cost + cpu_run_cost + disk_run_cost, rel.rows};
}

IndexCost cost_btree_index(const CostSettings& cs, const RelSize& rel, const BtreeIndexInfo& index,
                           const BtreeQuals& quals, double loop_count) {
  // btcostestimate: only boundary quals decide how many index tuples are read.
  double num_index_tuples;
  if (quals.unique_match) {
    num_index_tuples = 1.0;
  } else {
    num_index_tuples = quals.boundary_selectivity * rel.tuples;
    num_index_tuples = std::rint(num_index_tuples / quals.sa_scans);
  }

  // genericcostestimate.
  const double num_sa_scans = quals.all_sa_scans;
  const double index_selectivity = quals.index_selectivity;
  if (num_index_tuples <= 0.0) {
    num_index_tuples = index_selectivity * rel.tuples;
    num_index_tuples = std::rint(num_index_tuples / num_sa_scans);
  }
  if (num_index_tuples > index.tuples) num_index_tuples = index.tuples;
  if (num_index_tuples < 1.0) num_index_tuples = 1.0;

  // Pro rata of all index pages (PostgreSQL 15 does not subtract the
  // metapage; PostgreSQL 18 does).
  double num_index_pages;
  if (index.pages > 1 && index.tuples > 1) {
    num_index_pages = std::ceil(num_index_tuples * index.pages / index.tuples);
  } else {
    num_index_pages = 1.0;
  }

  const double num_outer_scans = loop_count;
  const double num_scans = num_sa_scans * num_outer_scans;
  double index_total_cost;
  if (num_scans > 1) {
    double pages_fetched = num_index_pages * num_scans;
    pages_fetched =
        index_pages_fetched(cs, pages_fetched, index.pages, index.pages, total_pages_of(rel));
    index_total_cost = index_pages_cost(cs, pages_fetched, index) / num_outer_scans;
  } else {
    index_total_cost = index_pages_cost(cs, num_index_pages, index);
  }

  const double qual_arg_cost = quals.operand_cost_units * cs.cpu_operator_cost;
  const double qual_op_cost = cs.cpu_operator_cost * quals.operator_count;
  double index_startup_cost = qual_arg_cost;
  index_total_cost += qual_arg_cost;
  index_total_cost += num_index_tuples * num_sa_scans * (cs.cpu_index_tuple_cost + qual_op_cost);

  // Descent: about log2(N) comparisons, and 50 operators per page on the way
  // down (the leaf included), once per scan.
  if (index.tuples > 1) {
    const double descent_cost =
        std::ceil(std::log(index.tuples) / std::log(2.0)) * cs.cpu_operator_cost;
    index_startup_cost += descent_cost;
    index_total_cost += num_sa_scans * descent_cost;
  }
  const double descent_cost =
      (index.tree_height + 1) * kDescentOperatorsPerPage * cs.cpu_operator_cost;
  index_startup_cost += descent_cost;
  index_total_cost += num_sa_scans * descent_cost;

  double correlation = quals.leading_correlation;
  if (index.descending) correlation = -correlation;
  if (index.key_columns > 1) correlation = correlation * 0.75;

  IndexCost out;
  out.startup = index_startup_cost;
  out.total = index_total_cost;
  out.selectivity = index_selectivity;
  out.correlation = correlation;
  out.index_tuples = num_index_tuples;
  out.index_pages = num_index_pages;
  return out;
}

namespace {

// An index scan's heap I/O per scan: uncorrelated (max_IO), in index order (min_IO), and
// Mackert-Lohman's pages for one scan.
struct HeapIo {
  double max = 0, min = 0, rand_pages = 0;
};

HeapIo heap_io(const CostSettings& cs, const PrefetchModel& m, const RelSize& rel,
               const BtreeIndexInfo& index, const IndexCost& ic, double tuples_fetched,
               double loop_count, bool index_only) {
  const double total_pages = total_pages_of(rel);
  // cost_index: an index-only scan visits only the pages that are not all-visible.
  auto not_all_visible = [&](double pages) {
    return index_only ? std::ceil(pages * (1.0 - rel.allvisfrac)) : pages;
  };
  HeapIo io;
  if (loop_count > 1) {
    double pages_fetched =
        index_pages_fetched(cs, tuples_fetched * loop_count, rel.pages, index.pages, total_pages);
    const double visits = not_all_visible(tuples_fetched * loop_count);
    io.max = heap_fetches_cost(cs, m, not_all_visible(pages_fetched), visits, loop_count, rel) /
             loop_count;
    pages_fetched = std::ceil(ic.selectivity * rel.pages);
    pages_fetched =
        index_pages_fetched(cs, pages_fetched * loop_count, rel.pages, index.pages, total_pages);
    io.min = heap_fetches_cost(cs, m, not_all_visible(pages_fetched),
                               not_all_visible(pages_fetched), loop_count, rel) /
             loop_count;
  } else {
    const double pages_fetched =
        index_pages_fetched(cs, tuples_fetched, rel.pages, index.pages, total_pages);
    io.rand_pages = not_all_visible(pages_fetched);
    io.max = heap_fetches_cost(cs, m, not_all_visible(pages_fetched),
                               not_all_visible(tuples_fetched), 1, rel);
    io.min = heap_in_order_cost(cs, m, not_all_visible(std::ceil(ic.selectivity * rel.pages)), rel);
  }
  return io;
}

// nestloop_prefetch (prefetch_aware): each loop's heap pages come from one stream kept
// full across the outer rows, none read at depth 1 while a fresh stream waits to start;
// the price is a second descent of the index per outer row (the look-up ahead) and the
// stream's hand-off per page. What it saves per loop when each loop fetches
// `tuples_fetched` heap tuples.
double nestloop_batch_gain(const CostSettings& cs, const RelSize& rel, const BtreeIndexInfo& index,
                           const IndexCost& ic, double tuples_fetched, double loop_count,
                           bool index_only) {
  PrefetchModel batched = cs.prefetch;
  batched.index_prefetch = true;
  batched.index_start_pages = 0;
  batched.index_depth = std::max(batched.index_depth, batched.seq_depth);
  const double csquared = ic.correlation * ic.correlation;
  auto io_cost = [&](const PrefetchModel& m) {
    const HeapIo io = heap_io(cs, m, rel, index, ic, tuples_fetched, loop_count, index_only);
    return io.max + csquared * (io.min - io.max);
  };
  const double probe = ic.startup + ic.index_tuples * cs.cpu_index_tuple_cost;
  return io_cost(cs.prefetch) - io_cost(batched) - probe;
}

}  // namespace

IndexScanCost cost_index_scan(const CostSettings& cs, const RelSize& rel,
                              const BtreeIndexInfo& index, const BtreeQuals& quals,
                              const QualCost& qpquals, double loop_count, bool index_only) {
  IndexScanCost out;
  out.index = cost_btree_index(cs, rel, index, quals, loop_count);
  const IndexCost& ic = out.index;

  double startup_cost = ic.startup;
  double run_cost = ic.total - ic.startup;

  const double tuples_fetched = clamp_row_est(ic.selectivity * rel.tuples);
  const HeapIo io =
      heap_io(cs, cs.prefetch, rel, index, ic, tuples_fetched, loop_count, index_only);
  if (loop_count <= 1) out.rand_heap_pages = io.rand_pages;
  const double csquared = ic.correlation * ic.correlation;
  run_cost += io.max + csquared * (io.min - io.max);
  if (cs.prefetch.enabled && loop_count > 1) {
    out.batch_gain =
        nestloop_batch_gain(cs, rel, index, ic, tuples_fetched, loop_count, index_only);
    // A semi or anti join's look-up ahead reads only the first page of each loop.
    out.batch_gain_first_page = nestloop_batch_gain(cs, rel, index, ic, 1, loop_count, index_only);
  }

  startup_cost += qpquals.startup;
  const double cpu_per_tuple = cs.cpu_tuple_cost + qpquals.per_tuple;
  const double cpu_run_cost = cpu_per_tuple * tuples_fetched;
  out.noncpu_run_cost = run_cost;
  out.cpu_run_cost = cpu_run_cost;
  run_cost += cpu_run_cost;

  out.path = {startup_cost, startup_cost + run_cost, rel.rows};
  out.heap_tuples_fetched = tuples_fetched;
  out.max_io_cost = io.max;
  out.min_io_cost = io.min;
  return out;
}

BitmapPath BitmapPath::index_scan(const IndexCost& ic, double path_rows, double index_relpages) {
  BitmapPath n;
  n.kind = Kind::kIndex;
  n.index = ic;
  n.index_path_rows = path_rows;
  n.index_relpages = index_relpages;
  return n;
}

BitmapPath BitmapPath::and_of(std::vector<BitmapPath> children) {
  TP_ASSERT(children.size() >= 2);
  BitmapPath n;
  n.kind = Kind::kAnd;
  n.children = std::move(children);
  return n;
}

BitmapPath BitmapPath::or_of(std::vector<BitmapPath> children) {
  TP_ASSERT(children.size() >= 2);
  BitmapPath n;
  n.kind = Kind::kOr;
  n.children = std::move(children);
  return n;
}

BitmapCombineCost cost_bitmap_and(const CostSettings& cs, const std::vector<BitmapPath>& children) {
  // Inputs are assumed independent: selectivities multiply.
  double total_cost = 0.0;
  double selec = 1.0;
  for (size_t i = 0; i < children.size(); ++i) {
    const BitmapTreeCost sub = cost_bitmap_tree_node(cs, children[i]);
    selec *= sub.selectivity;
    total_cost += sub.cost;
    if (i != 0) total_cost += kBitmapCombineOperators * cs.cpu_operator_cost;
  }
  return {total_cost, selec};
}

BitmapCombineCost cost_bitmap_or(const CostSettings& cs, const std::vector<BitmapPath>& children) {
  // Inputs are assumed disjoint (the "x IN (list)" case): selectivities add.
  double total_cost = 0.0;
  double selec = 0.0;
  for (size_t i = 0; i < children.size(); ++i) {
    const BitmapTreeCost sub = cost_bitmap_tree_node(cs, children[i]);
    selec += sub.selectivity;
    total_cost += sub.cost;
    // Unions of plain index scans are folded into the index scans themselves.
    if (i != 0 && children[i].kind != BitmapPath::Kind::kIndex) {
      total_cost += kBitmapCombineOperators * cs.cpu_operator_cost;
    }
  }
  return {total_cost, std::min(selec, 1.0)};
}

BitmapTreeCost cost_bitmap_tree_node(const CostSettings& cs, const BitmapPath& node) {
  switch (node.kind) {
    case BitmapPath::Kind::kIndex: {
      // A small charge per retrieved tuple for building the bitmap, so that a
      // one-row bitmap scan never ties with a plain index scan.
      double cost = node.index.total;
      cost += 0.1 * cs.cpu_operator_cost * node.index_path_rows;
      return {cost, node.index.selectivity};
    }
    case BitmapPath::Kind::kAnd: {
      const BitmapCombineCost c = cost_bitmap_and(cs, node.children);
      return {c.cost, c.selectivity};
    }
    case BitmapPath::Kind::kOr: {
      const BitmapCombineCost c = cost_bitmap_or(cs, node.children);
      return {c.cost, c.selectivity};
    }
  }
  TP_ASSERT(false);
  return {};
}

PathCost explain_bitmap_node(const CostSettings& cs, const BitmapPath& node, double rel_tuples) {
  if (node.kind == BitmapPath::Kind::kIndex) {
    return {0.0, node.index.total, clamp_row_est(node.index.selectivity * rel_tuples)};
  }
  const BitmapCombineCost c = node.kind == BitmapPath::Kind::kAnd
                                  ? cost_bitmap_and(cs, node.children)
                                  : cost_bitmap_or(cs, node.children);
  return {c.cost, c.cost, clamp_row_est(c.selectivity * rel_tuples)};
}

static double sum_index_pages(const BitmapPath& node) {
  if (node.kind == BitmapPath::Kind::kIndex) return node.index_relpages;
  double pages = 0;
  for (const BitmapPath& c : node.children) pages += sum_index_pages(c);
  return pages;
}

BitmapPages compute_bitmap_pages(const CostSettings& cs, const RelSize& rel,
                                 const BitmapPath& bitmap, double loop_count) {
  const BitmapTreeCost tree = cost_bitmap_tree_node(cs, bitmap);
  BitmapPages out;
  out.bitmap_cost = tree.cost;
  out.selectivity = tree.selectivity;

  double tuples_fetched = clamp_row_est(tree.selectivity * rel.tuples);
  const double T = rel.pages > 1 ? rel.pages : 1.0;
  // Mackert-Lohman for T <= b: a bitmap scan never re-reads a page.
  double pages_fetched = (2.0 * T * tuples_fetched) / (2.0 * T + tuples_fetched);
  // The bitmap holds one scan's pages at a time, even when repeated.
  const double heap_pages = std::min(pages_fetched, rel.pages);
  const int64_t maxentries = tbm_max_entries(static_cast<double>(cs.work_mem_kb) * 1024.0);

  if (loop_count > 1) {
    pages_fetched = index_pages_fetched(cs, tuples_fetched * loop_count, rel.pages,
                                        sum_index_pages(bitmap), total_pages_of(rel));
    pages_fetched /= loop_count;
  }
  pages_fetched = pages_fetched >= T ? T : std::ceil(pages_fetched);

  out.exact_pages = heap_pages;
  if (static_cast<double>(maxentries) < heap_pages) {
    // A crude model of tbm_lossify: past the budget, everything beyond half of
    // it goes lossy, and every tuple on a lossy page is fetched.
    const double lossy_pages = std::max(0.0, heap_pages - static_cast<double>(maxentries / 2));
    const double exact_pages = heap_pages - lossy_pages;
    if (lossy_pages > 0) {
      tuples_fetched = clamp_row_est(tree.selectivity * (exact_pages / heap_pages) * rel.tuples +
                                     (lossy_pages / heap_pages) * rel.tuples);
    }
    out.exact_pages = exact_pages;
    out.lossy_pages = lossy_pages;
  }
  out.heap_pages = heap_pages;
  out.pages_fetched = pages_fetched;
  out.tuples_fetched = tuples_fetched;
  return out;
}

BitmapHeapScanCost cost_bitmap_heap_scan(const CostSettings& cs, const RelSize& rel,
                                         const BitmapPath& bitmap, const QualCost& quals,
                                         double loop_count) {
  BitmapHeapScanCost out;
  out.pages = compute_bitmap_pages(cs, rel, bitmap, loop_count);
  const double pages_fetched = out.pages.pages_fetched;

  double startup_cost = out.pages.bitmap_cost;
  double run_cost = 0;
  const double T = rel.pages > 1 ? rel.pages : 1.0;
  // Few pages cost random_page_cost each; reading nearly all of them costs
  // seq_page_cost each; PostgreSQL interpolates with a square root.
  double cost_per_page;
  if (cs.prefetch.enabled) {
    cost_per_page =
        pages_fetched > 0
            ? bitmap_pages_cost(cs.prefetch, pages_fetched, T, rel.cache) / pages_fetched
            : 0;
  } else if (pages_fetched >= 2.0) {
    cost_per_page = cs.random_page_cost -
                    (cs.random_page_cost - cs.seq_page_cost) * std::sqrt(pages_fetched / T);
  } else {
    cost_per_page = cs.random_page_cost;
  }
  run_cost += pages_fetched * cost_per_page;

  startup_cost += quals.startup;
  const double cpu_per_tuple = cs.cpu_tuple_cost + quals.per_tuple;
  const double cpu_run_cost = cpu_per_tuple * out.pages.tuples_fetched;
  out.noncpu_run_cost = run_cost;
  out.cpu_run_cost = cpu_run_cost;
  run_cost += cpu_run_cost;

  out.path = {startup_cost, startup_cost + run_cost, rel.rows};
  out.cost_per_page = cost_per_page;
  return out;
}

PathCost cost_sort(const CostSettings& cs, const PathCost& input, double tuples, int width,
                   double extra_comparison_cost, double limit_tuples) {
  const double rows = tuples;
  const double input_bytes = relation_byte_size(tuples, width);
  const double sort_mem_bytes = static_cast<double>(cs.work_mem_kb) * 1024.0;
  // Never estimate a sort as free, and never take log(0).
  if (tuples < 2.0) tuples = 2.0;
  const double comparison_cost = extra_comparison_cost + 2.0 * cs.cpu_operator_cost;

  double output_tuples, output_bytes;
  if (limit_tuples > 0 && limit_tuples < tuples) {
    output_tuples = limit_tuples;
    output_bytes = relation_byte_size(output_tuples, width);
  } else {
    output_tuples = tuples;
    output_bytes = input_bytes;
  }

  double startup_cost;
  if (output_bytes > sort_mem_bytes) {
    // External merge sort: N log2 N comparisons plus writing and reading every
    // page once per merge pass, 3/4 sequential and 1/4 random.
    const double npages = std::ceil(input_bytes / kBlockBytes);
    const double nruns = input_bytes / sort_mem_bytes;
    const double mergeorder = tuplesort_merge_order(sort_mem_bytes);
    startup_cost = comparison_cost * tuples * log2_pg(tuples);
    const double log_runs =
        nruns > mergeorder ? std::ceil(std::log(nruns) / std::log(mergeorder)) : 1.0;
    const double npageaccesses = 2.0 * npages * log_runs;
    startup_cost += npageaccesses * (cs.seq_page_cost * 0.75 + cs.random_page_cost * 0.25);
  } else if (tuples > 2 * output_tuples || input_bytes > sort_mem_bytes) {
    // Bounded heap sort keeping only the LIMIT rows: N log2 K comparisons,
    // scaled so the curve is continuous with quicksort.
    startup_cost = comparison_cost * tuples * log2_pg(2.0 * output_tuples);
  } else {
    startup_cost = comparison_cost * tuples * log2_pg(tuples);
  }
  const double run_cost = cs.cpu_operator_cost * tuples;
  startup_cost += input.total;
  return {startup_cost, startup_cost + run_cost, rows};
}

PathCost cost_limit(const PathCost& input, double offset_rows, double count_rows) {
  PathCost out = input;
  const double input_rows = input.rows;
  const double input_run = input.total - input.startup;
  if (offset_rows > 0) {
    double skip = std::min(offset_rows, out.rows);
    if (input_rows > 0) out.startup += input_run * skip / input_rows;
    out.rows -= skip;
    if (out.rows < 1) out.rows = 1;
  }
  if (count_rows >= 0) {
    double take = std::max(count_rows, 1.0);  // LIMIT 0 is planned as LIMIT 1
    take = std::min(take, out.rows);
    if (input_rows > 0) out.total = out.startup + input_run * take / input_rows;
    out.rows = take;
    if (out.rows < 1) out.rows = 1;
  }
  return out;
}

}  // namespace tp
