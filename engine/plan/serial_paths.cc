#include "engine/plan/serial_paths.h"

#include <algorithm>

#include "engine/plan/parallel_cost.h"

namespace tp {

namespace {

// set_cheapest's cheapest total path: total cost, then startup; on a full tie the
// earlier (PostgreSQL's pathlist keeps equal totals in the order they came).
const RelPath& cheapest_total(const std::vector<RelPath>& paths) {
  const RelPath* best = &paths.front();
  for (const RelPath& p : paths)
    if (p.cost.total < best->cost.total ||
        (p.cost.total == best->cost.total && p.cost.startup < best->cost.startup))
      best = &p;
  return *best;
}

}  // namespace

std::optional<SerialChoice> choose_serial_path(const std::vector<TablePath>& paths,
                                               const SerialQuery& q) {
  // A LIMIT makes the relations weigh startup cost (rel->consider_startup); an
  // Aggregate reads every row.
  const bool startup = q.limit_rows.has_value() && !q.aggregate;
  std::vector<RelPath> rel;
  for (size_t i = 0; i < paths.size(); ++i)
    add_path(rel, {paths[i].cost, paths[i].parallel_safe, int(i), int(paths[i].keys)}, startup);
  if (rel.empty()) return std::nullopt;
  const auto cost_of = [&](size_t i) -> const PathCost& {
    return q.projected.empty() ? paths[i].cost : q.projected[i];
  };
  for (RelPath& r : rel) r.cost = cost_of(size_t(r.id));
  // The pathlist runs cheapest total first, which is the order create_ordered_paths
  // offers its paths in.
  std::stable_sort(rel.begin(), rel.end(),
                   [](const RelPath& a, const RelPath& b) { return a.cost.total < b.cost.total; });
  const RelPath& cheapest = cheapest_total(rel);
  using Kind = SerialChoice::Kind;
  if (q.aggregate || (q.order_keys == 0 && !q.limit_rows)) {
    const PathCost& c = cost_of(size_t(cheapest.id));
    return SerialChoice{size_t(cheapest.id), Kind::kAsIs, c, c};
  }
  std::vector<SerialChoice> tops;
  std::vector<RelPath> upper;
  auto offer = [&](size_t path, Kind kind, const PathCost& top, bool parallel_safe) {
    tops.push_back({path, kind, top, top});
    add_same_order_path(upper, {top, parallel_safe, int(tops.size() - 1)}, startup);
  };
  for (const RelPath& r : rel) {
    const TablePath& t = paths[size_t(r.id)];
    const PathCost& cost = r.cost;
    if (q.order_keys == 0 || t.keys == q.order_keys) {
      offer(size_t(r.id), Kind::kAsIs, cost, t.parallel_safe);
      continue;
    }
    if (&r == &cheapest) offer(size_t(r.id), Kind::kSort, q.sort(cost), t.parallel_safe);
    if (t.keys > 0 && q.incremental_sort)
      offer(size_t(r.id), Kind::kIncrementalSort, q.incremental_sort(cost, t.keys),
            t.parallel_safe);
  }
  if (q.order_keys > 0)
    for (size_t i = 0; i < q.ordered_extra.size(); ++i)
      offer(i, Kind::kOrderedExtra, q.ordered_extra[i], false);
  std::vector<RelPath> final_rel;
  for (RelPath p : upper) {
    if (q.limit_rows) p.cost = cost_limit(p.cost, 0, *q.limit_rows);
    add_same_order_path(final_rel, p, startup);
  }
  const RelPath& winner = cheapest_total(final_rel);
  SerialChoice choice = tops[size_t(winner.id)];
  choice.finished = winner.cost;
  return choice;
}

}  // namespace tp
