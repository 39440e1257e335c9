#include "engine/plan/parallel_cost.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace tp {

namespace {

// One more worker each time the pages are three times larger than the minimum, as
// PostgreSQL compares against an int threshold that grows threefold and stops growing
// before it would overflow.
int workers_for_pages(double pages, double minimum) {
  int threshold = std::max(int(minimum), 1);
  int workers = 1;
  while (pages >= double(uint32_t(threshold) * 3u)) {
    ++workers;
    threshold *= 3;
    if (threshold > INT_MAX / 3) break;
  }
  return workers;
}

}  // namespace

int compute_parallel_worker(double heap_pages, int rel_parallel_workers,
                            double min_parallel_table_scan_size, int max_workers) {
  return compute_parallel_worker(heap_pages, -1, rel_parallel_workers,
                                 {min_parallel_table_scan_size, 0}, max_workers);
}

int compute_parallel_worker(double heap_pages, double index_pages, int rel_parallel_workers,
                            const ParallelScanMinimums& min, int max_workers) {
  int workers = 0;
  if (rel_parallel_workers >= 0) {
    workers = rel_parallel_workers;
  } else {
    if ((heap_pages >= 0 && heap_pages < min.table_pages) ||
        (index_pages >= 0 && index_pages < min.index_pages))
      return 0;
    if (heap_pages >= 0) workers = workers_for_pages(heap_pages, min.table_pages);
    if (index_pages >= 0) {
      const int index_workers = workers_for_pages(index_pages, min.index_pages);
      workers = workers > 0 ? std::min(workers, index_workers) : index_workers;
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
  const double disk_run_cost = seq_scan_disk_cost(cs, rel);
  const double cpu_per_tuple = cs.cpu_tuple_cost + quals.per_tuple;
  const double cpu_run_cost = cpu_per_tuple * rel.tuples / divisor;
  return {startup_cost, startup_cost + cpu_run_cost + disk_run_cost,
          clamp_row_est(rel.rows / divisor)};
}

PathCost divide_cpu_cost(double startup, double noncpu_run_cost, double cpu_run_cost, double rows,
                         double divisor) {
  const double run_cost = noncpu_run_cost + cpu_run_cost / divisor;
  return {startup, startup + run_cost, clamp_row_est(rows / divisor)};
}

PathCost cost_gather(const CostSettings& cs, const PathCost& subpath, double rows) {
  double startup_cost = subpath.startup;
  double run_cost = subpath.total - subpath.startup;
  startup_cost += cs.parallel_setup_cost;
  run_cost += cs.parallel_tuple_cost * rows;
  return {startup_cost, startup_cost + run_cost, rows};
}

PathCost cost_gather_merge(const CostSettings& cs, const PathCost& sorted, double rows, int workers,
                           bool disabled) {
  double startup_cost = disabled ? kDisableCost : 0;
  double run_cost = 0;
  const double n = double(workers) + 1;  // the leader's input counts whether it runs or not
  const double log_n = std::log2(n);
  const double comparison_cost = 2.0 * cs.cpu_operator_cost;
  startup_cost += comparison_cost * n * log_n;
  run_cost += rows * comparison_cost * log_n;
  run_cost += cs.cpu_operator_cost * rows;
  startup_cost += cs.parallel_setup_cost;
  run_cost += cs.parallel_tuple_cost * rows * 1.05;
  return {startup_cost + sorted.startup, startup_cost + run_cost + sorted.total, rows};
}

FuzzyCompare compare_path_costs_fuzzily(const PathCost& p1, const PathCost& p2,
                                        bool consider_startup, double fuzz) {
  if (p1.total > p2.total * fuzz) {
    if (consider_startup && p2.startup > p1.startup * fuzz) return FuzzyCompare::kDifferent;
    return FuzzyCompare::kOldBetter;
  }
  if (p2.total > p1.total * fuzz) {
    if (consider_startup && p1.startup > p2.startup * fuzz) return FuzzyCompare::kDifferent;
    return FuzzyCompare::kNewBetter;
  }
  if (p1.startup > p2.startup * fuzz) return FuzzyCompare::kOldBetter;
  if (p2.startup > p1.startup * fuzz) return FuzzyCompare::kNewBetter;
  return FuzzyCompare::kEqual;
}

void add_same_order_path(std::vector<RelPath>& kept, const RelPath& p, bool consider_startup) {
  // The paths of one order carry equal keys (the default), so add_path's pathkeys
  // comparison never decides.
  add_path(kept, p, consider_startup);
}

namespace {

// add_path's COSTS_EQUAL case: the verdict between two fuzzily equal paths.
void settle_fuzzy_tie(const RelPath& p, const RelPath& old, bool consider_startup, bool& remove_old,
                      bool& accept) {
  if (p.keys != old.keys) {
    const bool more = p.keys > old.keys;
    if (more && p.cost.rows <= old.cost.rows && p.parallel_safe >= old.parallel_safe)
      remove_old = true;
    if (!more && p.cost.rows >= old.cost.rows && p.parallel_safe <= old.parallel_safe)
      accept = false;
  } else if (p.parallel_safe != old.parallel_safe) {
    if (p.parallel_safe)
      remove_old = true;
    else
      accept = false;
  } else if (p.cost.rows < old.cost.rows) {
    remove_old = true;
  } else if (p.cost.rows > old.cost.rows) {
    accept = false;
  } else if (compare_path_costs_fuzzily(p.cost, old.cost, consider_startup, 1.0000000001) ==
             FuzzyCompare::kNewBetter) {
    remove_old = true;
  } else {
    accept = false;
  }
}

}  // namespace

void add_path(std::vector<RelPath>& kept, const RelPath& p, bool consider_startup) {
  // pathnode.c add_path, no parameterization.
  bool accept = true;
  for (auto it = kept.begin(); it != kept.end();) {
    const RelPath& old = *it;
    bool remove_old = false;
    switch (compare_path_costs_fuzzily(p.cost, old.cost, consider_startup)) {
      case FuzzyCompare::kEqual:
        settle_fuzzy_tie(p, old, consider_startup, remove_old, accept);
        break;
      case FuzzyCompare::kNewBetter:
        remove_old = p.keys >= old.keys && p.cost.rows <= old.cost.rows &&
                     p.parallel_safe >= old.parallel_safe;
        break;
      case FuzzyCompare::kOldBetter:
        accept = !(p.keys <= old.keys && p.cost.rows >= old.cost.rows &&
                   p.parallel_safe <= old.parallel_safe);
        break;
      case FuzzyCompare::kDifferent:
        break;
    }
    it = remove_old ? kept.erase(it) : it + 1;
    if (!accept) return;
  }
  kept.push_back(p);
}

bool parallel_path_survives(const PathCost& new_path, const PathCost& old_path,
                            bool consider_startup) {
  FuzzyCompare c = compare_path_costs_fuzzily(new_path, old_path, consider_startup);
  // kOldBetter: the old path dominates. kEqual: on equal rows the parallel-safe
  // old path is preferred.
  return c == FuzzyCompare::kNewBetter || c == FuzzyCompare::kDifferent;
}

}  // namespace tp
