#include "engine/plan/parallel_cost.h"

#include <algorithm>
#include <climits>

namespace tp {

namespace {
// pathnode.c's STD_FUZZ_FACTOR: costs within 1% are the same.
constexpr double kFuzzFactor = 1.01;
}  // namespace

int compute_parallel_worker(double heap_pages, int rel_parallel_workers,
                            double min_parallel_table_scan_size, int max_workers) {
  int workers = 0;
  if (rel_parallel_workers >= 0) {
    workers = rel_parallel_workers;
  } else {
    if (heap_pages >= 0 && heap_pages < min_parallel_table_scan_size) return 0;
    // PostgreSQL compares against an int threshold that grows threefold, and
    // stops growing before it would overflow.
    int threshold = std::max(int(min_parallel_table_scan_size), 1);
    workers = 1;
    while (heap_pages >= double(uint32_t(threshold) * 3u)) {
      ++workers;
      threshold *= 3;
      if (threshold > INT_MAX / 3) break;
    }
  }
  return std::min(workers, max_workers);
}

double parallel_divisor(int workers, bool leader_participation) {
  double divisor = workers;
  if (leader_participation) {
    double leader_contribution = 1.0 - (0.3 * workers);
    if (leader_contribution > 0) divisor += leader_contribution;
  }
  return divisor;
}

PathCost cost_parallel_seq_scan(const CostSettings& cs, const RelSize& rel, const QualCost& quals,
                                double divisor) {
  const double startup_cost = quals.startup;
  const double disk_run_cost = cs.seq_page_cost * rel.pages;
  const double cpu_per_tuple = cs.cpu_tuple_cost + quals.per_tuple;
  const double cpu_run_cost = cpu_per_tuple * rel.tuples / divisor;
  return {startup_cost, startup_cost + cpu_run_cost + disk_run_cost,
          clamp_row_est(rel.rows / divisor)};
}

PathCost cost_gather(const CostSettings& cs, const PathCost& subpath, double rows) {
  double startup_cost = subpath.startup;
  double run_cost = subpath.total - subpath.startup;
  startup_cost += cs.parallel_setup_cost;
  run_cost += cs.parallel_tuple_cost * rows;
  return {startup_cost, startup_cost + run_cost, rows};
}

FuzzyCompare compare_path_costs_fuzzily(const PathCost& p1, const PathCost& p2,
                                        bool consider_startup) {
  if (p1.total > p2.total * kFuzzFactor) {
    if (consider_startup && p2.startup > p1.startup * kFuzzFactor) return FuzzyCompare::kDifferent;
    return FuzzyCompare::kOldBetter;
  }
  if (p2.total > p1.total * kFuzzFactor) {
    if (consider_startup && p1.startup > p2.startup * kFuzzFactor) return FuzzyCompare::kDifferent;
    return FuzzyCompare::kNewBetter;
  }
  if (p1.startup > p2.startup * kFuzzFactor) return FuzzyCompare::kOldBetter;
  if (p2.startup > p1.startup * kFuzzFactor) return FuzzyCompare::kNewBetter;
  return FuzzyCompare::kEqual;
}

bool parallel_path_survives(const PathCost& new_path, const PathCost& old_path,
                            bool consider_startup) {
  FuzzyCompare c = compare_path_costs_fuzzily(new_path, old_path, consider_startup);
  // kOldBetter: the old path dominates. kEqual: on equal rows the parallel-safe
  // old path is preferred.
  return c == FuzzyCompare::kNewBetter || c == FuzzyCompare::kDifferent;
}

}  // namespace tp
