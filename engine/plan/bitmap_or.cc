#include "engine/plan/bitmap_or.h"

#include <algorithm>

#include "engine/plan/index_conditions.h"

namespace tp {
namespace {

// The bitmap scan for `arm` (the clauses of one AND arm) among the indexes that apply
// at least one of them, each applying as well the `others` it can, whose heap scan
// costs least (ties: the cheaper index scan); `own` is how many of the arm's clauses it
// applies, `used_others` which of `others`. None if no index applies any arm clause.
std::optional<BitmapChoice> bitmap_for(const std::vector<Clause>& arm,
                                       const std::vector<Clause>& others,
                                       const std::vector<IndexInfo>& indexes,
                                       const CostSettings& cs, const BitmapOn& bitmap_on,
                                       const BitmapHeapCost& heap_cost, size_t& own,
                                       std::vector<size_t>& used_others) {
  std::optional<BitmapChoice> best;
  double best_heap = 0, best_cost = 0;
  for (const IndexInfo& ix : indexes) {
    std::vector<Clause> ic;
    for (const Clause& c : arm)
      if (usable_index_clause(c, ix.entry->key_columns)) ic.push_back(c);
    if (ic.empty()) continue;
    const size_t n_own = ic.size();
    std::vector<size_t> used;
    for (size_t k = 0; k < others.size(); ++k)
      if (usable_index_clause(others[k], ix.entry->key_columns)) {
        ic.push_back(others[k]);
        used.push_back(k);
      }
    BitmapChoice ch = bitmap_on(ix, std::move(ic));
    const double cost = cost_bitmap_tree_node(cs, ch.node).cost;
    const double heap = heap_cost(ch.node);
    if (!best || heap < best_heap || (heap == best_heap && cost < best_cost)) {
      best = std::move(ch);
      best_heap = heap;
      best_cost = cost;
      own = n_own;
      used_others = std::move(used);
    }
  }
  return best;
}

// PostgreSQL's predicate proof reads an IN list of up to 100 constants as an OR of
// equalities, and then cannot prove it from an OR of arms that each hold it (each arm
// would have to imply one of its equalities): such a list stays in the Filter.
bool proof_sees_an_or(const Clause& c) {
  constexpr size_t kMaxSaopArraySize = 100;  // predtest.c's MAX_SAOP_ARRAY_SIZE
  return c.kind == Clause::Kind::kIn && !c.negated && c.list.size() <= kMaxSaopArraySize;
}

}  // namespace

std::optional<BitmapCandidate> bitmap_or_candidate(const std::vector<Clause>& clauses, size_t oi,
                                                   const std::vector<IndexInfo>& indexes,
                                                   const CostSettings& cs,
                                                   const BitmapOn& bitmap_on,
                                                   const BitmapHeapCost& heap_cost) {
  const Clause& orc = clauses[oi];
  if (orc.kind != Clause::Kind::kOr) return std::nullopt;
  BitmapCandidate c;
  c.is_or = true;
  c.clause_ids = {oi};
  std::vector<Clause> others;
  std::vector<size_t> other_ids;
  for (size_t i = 0; i < clauses.size(); ++i)
    if (i != oi) others.push_back(clauses[i]), other_ids.push_back(i);
  std::vector<Clause> arm_rechecks;
  bool covered = true;
  std::vector<size_t> in_every_arm = other_ids;
  for (const Clause& arm : orc.args) {
    std::vector<Clause> parts =
        arm.kind == Clause::Kind::kAnd ? arm.args : std::vector<Clause>{arm};
    size_t own = 0;
    std::vector<size_t> used_others;
    std::optional<BitmapChoice> ch =
        bitmap_for(parts, others, indexes, cs, bitmap_on, heap_cost, own, used_others);
    if (!ch) return std::nullopt;
    covered = covered && own == parts.size();
    std::vector<size_t> kept;
    for (size_t k : used_others) {
      if (std::find(in_every_arm.begin(), in_every_arm.end(), other_ids[k]) != in_every_arm.end() &&
          !proof_sees_an_or(others[k]))
        kept.push_back(other_ids[k]);
      c.clause_ids.push_back(other_ids[k]);
    }
    in_every_arm = kept;
    std::vector<Clause> conds = in_key_order(ch->index_clauses, ch->index->entry->key_columns);
    arm_rechecks.push_back(conds.size() == 1 ? conds[0] : Clause::and_of(conds));
    c.arms.push_back(*ch);
  }
  if (c.arms.size() < 2) return std::nullopt;
  std::vector<BitmapPath> kids;
  for (const BitmapChoice& a : c.arms) kids.push_back(a.node);
  c.node = BitmapPath::or_of(kids);
  // choose_bitmap_and counts as used every restriction an arm's index conditions
  // take (classify_index_clause_usage flattens the arms), so a BitmapOr sharing one
  // with another candidate is never ANDed with it.
  std::sort(c.clause_ids.begin(), c.clause_ids.end());
  c.clause_ids.erase(std::unique(c.clause_ids.begin(), c.clause_ids.end()), c.clause_ids.end());
  c.recheck = Clause::or_of(std::move(arm_rechecks));
  c.implied_ids = in_every_arm;
  if (covered) c.implied_ids.push_back(oi);
  return c;
}

void add_bitmap_candidate(std::vector<BitmapCandidate>& candidates, BitmapCandidate c,
                          const CostSettings& cs) {
  for (BitmapCandidate& other : candidates) {
    if (other.clause_ids != c.clause_ids) continue;
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

bool shares_a_clause(const BitmapCandidate& c, const std::vector<size_t>& used) {
  return std::any_of(c.clause_ids.begin(), c.clause_ids.end(), [&](size_t id) {
    return std::find(used.begin(), used.end(), id) != used.end();
  });
}

}  // namespace

std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const BitmapHeapCost& heap_cost,
                                               BitmapPath& bitmap) {
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
    std::vector<size_t> used = candidates[lead].clause_ids;
    double cost = heap_cost(group_node(candidates, group));
    for (size_t j = lead + 1; j < candidates.size(); ++j) {
      if (shares_a_clause(candidates[j], used)) continue;
      group.push_back(j);
      double with = heap_cost(group_node(candidates, group));
      if (with < cost) {
        cost = with;
        used.insert(used.end(), candidates[j].clause_ids.begin(), candidates[j].clause_ids.end());
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
