// The partial paths of a join (joinpath.c's try_partial_*_path, consider_parallel_nestloop
// and consider_parallel_mergejoin) and the Gather over a join relation's cheapest partial
// path (allpaths.c generate_gather_paths). A partial join path runs in every participant
// of a Gather above it: its outer side is partial (each participant reads a share of the
// outer relation's blocks), its inner side whole in each participant, so only joins that
// preserve nothing of the inner side can be partial (no Right or Full join).
#include <optional>

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
      if ((param->required_outer & ~p.outer.relids) != 0 ||
          (param->param_needs & ~p.join.relids) != 0 || !param->parallel_safe)
        continue;
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
  if (p.param_child) return keep_param_join_path(p, std::move(path));
  if (!partial) {
    add_path(p.join.paths, std::move(path), consider_startup_);
    return;
  }
  path->workers = path->outer->workers;
  add_partial_path(p.join.partial_paths, std::move(path));
}

// generate_useful_gather_paths for a relation below the top: a Gather over the cheapest
// partial path (a base relation has it from its scan chooser), and a Gather Merge over
// each participant's Sort of it in the leading ORDER BY keys the relation returns
// (get_useful_pathkeys_for_relation); both return the relation's rows and are not
// parallel-safe themselves.
void JoinSearch::add_gather_path(JoinRelation& r, bool base) const {
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
  if (!base) add_path(r.paths, g, consider_startup_);
  std::vector<PathKey> keys;
  std::vector<scans::SortKey> sort;
  for (const PathKey& k : query_pathkeys_) {
    std::optional<size_t> slot;
    for (size_t i = 0; i < r.vars.size() && !slot; ++i)
      if (var_key_[r.vars[i]] == k.key) slot = i;
    if (!slot) break;
    keys.push_back(k);
    sort.push_back({uint32_t(*slot), k.descending, k.nulls_first});
  }
  if (keys.empty()) return;
  const PlannerSettings& st = ctx_.settings;
  auto gm = std::make_shared<JoinPath>(*g);
  gm->gather_merge = true;
  gm->merge_sort_cost =
      disabled_if(!st.enable_sort, cost_sort(cs_, sub->cost, sub->cost.rows, sub->width, 0, -1));
  gm->cost =
      cost_gather_merge(cs_, gm->merge_sort_cost, r.rows, sub->workers, !st.enable_gathermerge);
  gm->pathkeys = keys;
  gm->merge_keys = std::move(sort);
  for (const scans::SortKey& k : gm->merge_keys) {
    // The relation's member of the key's class, as EXPLAIN prints a sort key.
    gm->merge_text += (gm->merge_text.empty() ? "" : ", ") + q_.var_name(r.vars[k.slot]);
    if (k.descending) gm->merge_text += " DESC";
    if (k.nulls_first != k.descending)
      gm->merge_text += k.nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  add_path(r.paths, std::move(gm), consider_startup_);
}

}  // namespace tp
