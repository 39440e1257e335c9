#include "engine/plan/join_path.h"

#include "engine/plan/parallel_cost.h"

namespace tp {

PathKeysComparison compare_pathkeys(const std::vector<PathKey>& a, const std::vector<PathKey>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (!(a[i] == b[i])) return PathKeysComparison::kDifferent;
  if (a.size() == b.size()) return PathKeysComparison::kEqual;
  return a.size() > b.size() ? PathKeysComparison::kBetter1 : PathKeysComparison::kBetter2;
}

size_t common_pathkeys(const std::vector<PathKey>& have, const std::vector<PathKey>& wanted) {
  size_t n = 0;
  while (n < have.size() && n < wanted.size() && have[n] == wanted[n]) ++n;
  return n;
}

bool pathkeys_contained_in(const std::vector<PathKey>& wanted, const std::vector<PathKey>& have) {
  const PathKeysComparison c = compare_pathkeys(wanted, have);
  return c == PathKeysComparison::kEqual || c == PathKeysComparison::kBetter2;
}

namespace {

// What the new path does to one already kept: removes it, and whether it survives it.
struct Verdict {
  bool remove_old = false;
  bool accept = true;
};

// add_path's and add_partial_path's walk over the list, kept in total-cost order.
template <typename Judge>
void insert_judged(std::vector<JoinPathPtr>& list, JoinPathPtr p, Judge judge) {
  size_t insert_at = 0;
  for (size_t i = 0; i < list.size();) {
    const JoinPath& old = *list[i];
    const Verdict v = judge(*p, old);
    if (v.remove_old) {
      list.erase(list.begin() + std::ptrdiff_t(i));
      continue;
    }
    if (p->cost.total >= old.cost.total) insert_at = i + 1;
    if (!v.accept) return;
    ++i;
  }
  list.insert(list.begin() + std::ptrdiff_t(insert_at), std::move(p));
}

// add_path's comparison: fuzzy costs, then pathkeys, parallel safety and rows.
Verdict judge_path(const JoinPath& p, const JoinPath& old, bool consider_startup) {
  bool remove_old = false, accept = true;
  const FuzzyCompare costs = compare_path_costs_fuzzily(p.cost, old.cost, consider_startup);
  if (costs != FuzzyCompare::kDifferent) {
    const PathKeysComparison keys = compare_pathkeys(p.pathkeys, old.pathkeys);
    if (keys != PathKeysComparison::kDifferent) {
      switch (costs) {
        case FuzzyCompare::kEqual:
          if (keys == PathKeysComparison::kBetter1) {
            remove_old = p.cost.rows <= old.cost.rows && p.parallel_safe >= old.parallel_safe;
          } else if (keys == PathKeysComparison::kBetter2) {
            accept = !(p.cost.rows >= old.cost.rows && p.parallel_safe <= old.parallel_safe);
          } else if (p.parallel_safe && !old.parallel_safe) {
            remove_old = true;
          } else if (!p.parallel_safe && old.parallel_safe) {
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
          break;
        case FuzzyCompare::kNewBetter:
          if (keys != PathKeysComparison::kBetter2)
            remove_old = p.cost.rows <= old.cost.rows && p.parallel_safe >= old.parallel_safe;
          break;
        case FuzzyCompare::kOldBetter:
          if (keys != PathKeysComparison::kBetter1 && p.cost.rows >= old.cost.rows &&
              p.parallel_safe <= old.parallel_safe)
            accept = false;
          break;
        case FuzzyCompare::kDifferent:
          break;
      }
    }
  }
  return {remove_old, accept};
}

// add_partial_path's: total cost alone (a partial path's startup never counts).
Verdict judge_partial(const JoinPath& p, const JoinPath& old) {
  constexpr double kFuzz = 1.01;
  bool remove_old = false, accept = true;
  const PathKeysComparison keys = compare_pathkeys(p.pathkeys, old.pathkeys);
  if (keys != PathKeysComparison::kDifferent) {
    if (p.cost.total > old.cost.total * kFuzz) {
      accept = keys == PathKeysComparison::kBetter1;
    } else if (old.cost.total > p.cost.total * kFuzz) {
      remove_old = keys != PathKeysComparison::kBetter2;
    } else if (keys == PathKeysComparison::kBetter1) {
      remove_old = true;
    } else if (keys == PathKeysComparison::kBetter2) {
      accept = false;
    } else if (old.cost.total > p.cost.total * 1.0000000001) {
      remove_old = true;
    } else {
      accept = false;
    }
  }
  return {remove_old, accept};
}

}  // namespace

void add_path(std::vector<JoinPathPtr>& list, JoinPathPtr p, bool consider_startup) {
  insert_judged(list, std::move(p), [&](const JoinPath& n, const JoinPath& old) {
    return judge_path(n, old, consider_startup);
  });
}

void add_partial_path(std::vector<JoinPathPtr>& list, JoinPathPtr p) {
  insert_judged(list, std::move(p), judge_partial);
}

bool partial_path_precheck(const std::vector<JoinPathPtr>& partial,
                           const std::vector<JoinPathPtr>& regular, double total,
                           const std::vector<PathKey>& pathkeys, bool consider_startup) {
  constexpr double kFuzz = 1.01;
  for (const JoinPathPtr& old : partial) {
    const PathKeysComparison keys = compare_pathkeys(pathkeys, old->pathkeys);
    if (keys == PathKeysComparison::kDifferent) continue;
    if (total > old->cost.total * kFuzz && keys != PathKeysComparison::kBetter1) return false;
    if (old->cost.total > total * kFuzz && keys != PathKeysComparison::kBetter2) return true;
  }
  // add_path_precheck with the total as the startup cost too: the list is ordered by
  // total cost, so the first dearer path ends the look.
  for (const JoinPathPtr& old : regular) {
    if (total <= old->cost.total * kFuzz) break;
    if (consider_startup && total <= old->cost.startup * kFuzz) continue;  // wins on startup
    const PathKeysComparison keys = compare_pathkeys(pathkeys, old->pathkeys);
    if (keys == PathKeysComparison::kEqual || keys == PathKeysComparison::kBetter2) return false;
  }
  return true;
}

double partial_rows(double rows, int workers, bool leader_participation) {
  return clamp_row_est(rows / parallel_divisor(workers, leader_participation));
}

}  // namespace tp
