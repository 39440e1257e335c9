// The partial paths of a join (joinpath.c's try_partial_*_path, consider_parallel_nestloop
// and consider_parallel_mergejoin) and the Gather over a join relation's cheapest partial
// path (allpaths.c generate_gather_paths). A partial join path runs in every participant
// of a Gather above it: its outer side is partial (each participant reads a share of the
// outer relation's blocks), its inner side whole in each participant, so only joins that
// preserve nothing of the inner side can be partial (no Right or Full join).
#include "engine/plan/join_search.h"
#include "engine/plan/parallel_cost.h"

namespace tp {

namespace {

// get_cheapest_parallel_safe_total_inner: the list is ordered by total cost.
JoinPathPtr cheapest_safe_total(const std::vector<JoinPathPtr>& paths) {
  for (const JoinPathPtr& p : paths)
    if (p->parallel_safe && p->required_outer == 0) return p;
  return nullptr;
}

}  // namespace

void JoinSearch::prepare_partial(Pair& p) const {
  // PostgreSQL 15 makes no partial Right or Full join (a participant cannot know which
  // inner rows the others matched), and a unique-ified outer side is no partial path.
  if (!consider_parallel_ || p.outer.partial_paths.empty() || p.unique == UniqueSide::kOuter ||
      p.kind == JoinKind::kRight || p.kind == JoinKind::kFull)
    return;
  p.partial_outer = p.outer.partial_paths.front();
  if (p.inner_total->parallel_safe)
    p.safe_inner = p.inner_total;
  else if (p.unique != UniqueSide::kInner)
    p.safe_inner = cheapest_safe_total(p.inner.paths);
}

void JoinSearch::consider_parallel_nestloop(Pair& p) {
  for (const JoinPathPtr& outer : p.outer.partial_paths) {
    const std::vector<PathKey> keys = join_pathkeys(p, outer->pathkeys);
    if (p.unique == UniqueSide::kInner) {
      // Only the unique-ified cheapest inner path (create_unique_path over it).
      if (p.inner_total->parallel_safe) try_nestloop(p, outer, p.inner_total, keys, true);
      continue;
    }
    // cheapest_parameterized_paths: the cheapest total path, then the parameterized
    // ones this outer relation satisfies (no Materialize in a partial nested loop).
    if (p.inner_total->parallel_safe) try_nestloop(p, outer, p.inner_total, keys, true);
    for (const JoinPathPtr& param : p.inner.param_paths) {
      if ((param->required_outer & ~p.outer.relids) != 0 || !param->parallel_safe) continue;
      try_nestloop(p, outer, param, keys, true);
      if (JoinPathPtr memo = memoize_path(p, *outer, param))
        try_nestloop(p, outer, memo, keys, true);
    }
  }
}

void JoinSearch::consider_parallel_mergejoin(Pair& p) {
  if (!p.safe_inner || p.merge.empty()) return;
  for (const JoinPathPtr& outer : p.outer.partial_paths)
    if (!outer->pathkeys.empty())
      merge_paths_for_outer(p, outer, join_pathkeys(p, outer->pathkeys), true);
}

double JoinSearch::path_rows(const Pair& p, const JoinPath& outer, bool partial) const {
  if (!partial) return p.join.rows;
  return partial_rows(p.join.rows, outer.workers, ctx_.settings.parallel_leader_participation);
}

bool JoinSearch::keep_partial(const Pair& p, double initial_total,
                              const std::vector<PathKey>& keys) const {
  return partial_path_precheck(p.join.partial_paths, p.join.paths, initial_total, keys,
                               consider_startup_);
}

void JoinSearch::add_join_path(Pair& p, std::shared_ptr<JoinPath> path, bool partial) {
  path->parallel_safe = path->outer->parallel_safe && path->inner->parallel_safe;
  if (!partial) {
    add_path(p.join.paths, std::move(path), consider_startup_);
    return;
  }
  path->workers = path->outer->workers;
  add_partial_path(p.join.partial_paths, std::move(path));
}

// generate_gather_paths for a join relation below the top: a Gather over the cheapest
// partial path, returning the relation's rows; not parallel-safe itself.
void JoinSearch::add_gather_path(JoinRelation& r) const {
  if (r.partial_paths.empty()) return;
  const JoinPathPtr& sub = r.partial_paths.front();
  auto g = std::make_shared<JoinPath>();
  g->kind = JoinPath::Kind::kGather;
  g->cost = cost_gather(cs_, sub->cost, r.rows);
  g->relids = r.relids;
  g->width = r.width;
  g->outer = sub;
  g->workers = sub->workers;
  g->parallel_safe = false;
  add_path(r.paths, std::move(g), consider_startup_);
}

}  // namespace tp
