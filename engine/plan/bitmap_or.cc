#include "engine/plan/bitmap_or.h"

#include <algorithm>

#include "engine/core/stack_depth.h"
#include "engine/plan/index_conditions.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/subplans.h"
#include "engine/plan/typed_index_qual.h"

namespace tp {
namespace {

bool contains(const std::vector<Clause>& list, const Clause& c) {
  return std::any_of(list.begin(), list.end(), [&](const Clause& x) { return same_clause(x, c); });
}

// `list` with `more` appended, each clause once.
void append_unique(std::vector<Clause>& list, const std::vector<Clause>& more) {
  for (const Clause& c : more)
    if (!contains(list, c)) list.push_back(c);
}

bool same_quals(const std::vector<Clause>& a, const std::vector<Clause>& b) {
  return a.size() == b.size() &&
         std::all_of(a.begin(), a.end(), [&](const Clause& c) { return contains(b, c); });
}

bool shares_a_clause(const std::vector<Clause>& quals, const std::vector<Clause>& used) {
  return std::any_of(quals.begin(), quals.end(),
                     [&](const Clause& c) { return contains(used, c); });
}

BitmapCandidate index_scan_candidate(BitmapChoice scan) {
  BitmapCandidate c;
  c.kind = BitmapCandidate::Kind::kIndex;
  c.node = scan.node;
  c.quals = scan.index_clauses;
  c.scan = std::move(scan);
  return c;
}

// `clauses` and the index conditions a LIKE prefix among them gives.
std::vector<Clause> with_pattern_clauses(const std::vector<Clause>& clauses) {
  std::vector<Clause> out = clauses;
  for (const Clause& c : clauses)
    for (Clause& d : pattern_index_clauses(c)) out.push_back(std::move(d));
  return out;
}

// build_paths_for_OR: a bitmap index scan on each index that applies some of `arm`,
// applying as well every clause of `all` it can. A clause written twice is applied
// twice, as PostgreSQL matches each restriction by itself.
std::vector<BitmapCandidate> paths_for_or(const std::vector<Clause>& arm,
                                          const std::vector<Clause>& all,
                                          const BitmapContext& ctx) {
  std::vector<BitmapCandidate> out;
  const std::vector<Clause> arm_pool = with_pattern_clauses(arm);
  const std::vector<Clause> all_pool = with_pattern_clauses(all);
  for (const IndexInfo& ix : ctx.indexes) {
    std::vector<Clause> ic;
    for (const Clause& c : arm_pool)
      if (usable_index_clause(c, ix.entry->key_columns)) ic.push_back(c);
    if (ic.empty()) continue;
    for (const Clause& c : all_pool)
      if (usable_index_clause(c, ix.entry->key_columns)) ic.push_back(c);
    add_bitmap_candidate(out, index_scan_candidate(ctx.bitmap_on(ix, std::move(ic))), ctx.cs);
  }
  return out;
}

// An arm's `column op $n` (a Param: an InitPlan's value, a generic plan's parameter) as
// the parameterized clause an index searches with, as the restrictions' are.
Clause with_param_keys(const Clause& c) {
  std::optional<Clause> p = init_param_clause(c);
  return p ? std::move(*p) : c;
}

// The bitmap of one OR arm: choose_bitmap_and's pick among its candidates.
std::optional<BitmapCandidate> arm_bitmap(const Clause& written, const std::vector<Clause>& all,
                                          const BitmapContext& ctx) {
  Clause arm = with_param_keys(written);
  for (Clause& c : arm.args)
    if (arm.kind == Clause::Kind::kAnd) c = with_param_keys(c);
  std::vector<BitmapCandidate> paths;
  if (arm.kind == Clause::Kind::kAnd) {
    paths = paths_for_or(arm.args, all, ctx);
    for (BitmapCandidate& c : bitmap_or_candidates(arm.args, all, ctx))
      add_bitmap_candidate(paths, std::move(c), ctx.cs);
  } else {
    paths = paths_for_or({arm}, all, ctx);
  }
  if (paths.empty()) return std::nullopt;
  BitmapPath bitmap;
  std::vector<BitmapCandidate> chosen =
      choose_bitmap_and(std::move(paths), ctx.cs, ctx.heap_cost, bitmap);
  if (chosen.size() == 1) return std::move(chosen[0]);
  BitmapCandidate group;
  group.kind = BitmapCandidate::Kind::kAnd;
  group.node = bitmap;
  for (const BitmapCandidate& m : chosen) append_unique(group.quals, m.quals);
  group.members = std::move(chosen);
  return group;
}

}  // namespace

Clause candidate_recheck(const BitmapCandidate& c, bool index_quals) {
  auto one_or_and = [](std::vector<Clause> parts) {
    return parts.size() == 1 ? std::move(parts[0]) : Clause::and_of(std::move(parts));
  };
  switch (c.kind) {
    case BitmapCandidate::Kind::kIndex: {
      // A derived condition (a LIKE's prefix range) is lossy: the original is rechecked.
      std::vector<Clause> parts;
      for (Clause& x : in_key_order(c.scan.index_clauses, c.scan.index->entry->key_columns)) {
        if (!index_quals && x.derived_from)
          append_unique(parts, {*x.derived_from});
        else if (index_quals && is_boolean_index_clause(x))
          parts.push_back(index_cond_form(std::move(x)));
        else
          parts.push_back(std::move(x));
      }
      return one_or_and(std::move(parts));
    }
    case BitmapCandidate::Kind::kAnd: {
      std::vector<Clause> parts;
      for (const BitmapCandidate& m : c.members) {
        Clause r = candidate_recheck(m, index_quals);
        append_unique(parts, r.kind == Clause::Kind::kAnd ? r.args : std::vector<Clause>{r});
      }
      return one_or_and(std::move(parts));
    }
    case BitmapCandidate::Kind::kOr: {
      std::vector<Clause> arms;
      for (const BitmapCandidate& m : c.members) arms.push_back(candidate_recheck(m, index_quals));
      return Clause::or_of(std::move(arms));
    }
  }
  return Clause::boolean(true);
}

std::vector<BitmapCandidate> bitmap_or_candidates(const std::vector<Clause>& clauses,
                                                  const std::vector<Clause>& others,
                                                  const BitmapContext& ctx) {
  check_stack_depth();  // one level per OR nested in an AND arm
  std::vector<Clause> all = clauses;
  all.insert(all.end(), others.begin(), others.end());
  std::vector<BitmapCandidate> result;
  for (const Clause& orc : clauses) {
    if (orc.kind != Clause::Kind::kOr) continue;
    BitmapCandidate c;
    c.kind = BitmapCandidate::Kind::kOr;
    bool every_arm = true;
    for (const Clause& arm : orc.args) {
      std::optional<BitmapCandidate> b = arm_bitmap(arm, all, ctx);
      if (!b) {
        every_arm = false;
        break;
      }
      append_unique(c.quals, b->quals);
      c.members.push_back(std::move(*b));
    }
    if (!every_arm || c.members.size() < 2) continue;
    std::vector<BitmapPath> kids;
    for (const BitmapCandidate& m : c.members) kids.push_back(m.node);
    c.node = BitmapPath::or_of(kids);
    result.push_back(std::move(c));
  }
  return result;
}

void add_bitmap_candidate(std::vector<BitmapCandidate>& candidates, BitmapCandidate c,
                          const CostSettings& cs) {
  for (BitmapCandidate& other : candidates) {
    if (!same_quals(other.quals, c.quals)) continue;
    if (cost_bitmap_tree_node(cs, c.node).cost < cost_bitmap_tree_node(cs, other.node).cost)
      other = std::move(c);
    return;
  }
  candidates.push_back(std::move(c));
}

namespace {

// The bitmap of a group of candidates: the one, or their BitmapAnd.
BitmapPath group_node(const std::vector<BitmapCandidate>& candidates,
                      const std::vector<size_t>& group) {
  if (group.size() == 1) return candidates[group[0]].node;
  std::vector<BitmapPath> kids;
  for (size_t i : group) kids.push_back(candidates[i].node);
  return BitmapPath::and_of(kids);
}

}  // namespace

std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const BitmapHeapCost& heap_cost,
                                               BitmapPath& bitmap) {
  return choose_bitmap_and(
      std::move(candidates), cs,
      [&](const BitmapPath& b, const std::vector<const BitmapCandidate*>&) { return heap_cost(b); },
      bitmap);
}

std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const GroupHeapCost& group_cost,
                                               BitmapPath& bitmap) {
  auto heap_cost = [&](const std::vector<size_t>& group) {
    std::vector<const BitmapCandidate*> members;
    for (size_t i : group) members.push_back(&candidates[i]);
    return group_cost(group_node(candidates, group), members);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const BitmapCandidate& a, const BitmapCandidate& b) {
                     BitmapTreeCost ca = cost_bitmap_tree_node(cs, a.node);
                     BitmapTreeCost cb = cost_bitmap_tree_node(cs, b.node);
                     if (ca.cost != cb.cost) return ca.cost < cb.cost;
                     return ca.selectivity < cb.selectivity;
                   });
  std::vector<size_t> best_group;
  double best_cost = 0;
  for (size_t lead = 0; lead < candidates.size(); ++lead) {
    std::vector<size_t> group = {lead};
    std::vector<Clause> used = candidates[lead].quals;
    double cost = heap_cost(group);
    for (size_t j = lead + 1; j < candidates.size(); ++j) {
      if (shares_a_clause(candidates[j].quals, used)) continue;
      group.push_back(j);
      double with = heap_cost(group);
      if (with < cost) {
        cost = with;
        append_unique(used, candidates[j].quals);
      } else {
        group.pop_back();
      }
    }
    if (lead == 0 || cost < best_cost) best_group = group, best_cost = cost;
  }
  bitmap = group_node(candidates, best_group);
  std::vector<BitmapCandidate> chosen;
  for (size_t i : best_group) chosen.push_back(candidates[i]);
  return chosen;
}

}  // namespace tp
