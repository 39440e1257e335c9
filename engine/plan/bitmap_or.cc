#include "engine/plan/bitmap_or.h"

#include <algorithm>

#include "engine/plan/index_conditions.h"

namespace tp {
namespace {

// The cheapest index's bitmap scan for `arm` (the clauses of one AND arm) among the
// indexes that apply at least one of them, each applying as well the `others` it can;
// `own` is how many of the arm's clauses it applies, `used_others` which of `others`.
// None if no index applies any arm clause.
std::optional<BitmapChoice> bitmap_for(const std::vector<Clause>& arm,
                                       const std::vector<Clause>& others,
                                       const std::vector<IndexInfo>& indexes,
                                       const CostSettings& cs, const BitmapOn& bitmap_on,
                                       size_t& own, std::vector<size_t>& used_others) {
  std::optional<BitmapChoice> best;
  double best_cost = 0;
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
    double cost = cost_bitmap_tree_node(cs, ch.node).cost;
    if (!best || cost < best_cost) {
      best = std::move(ch);
      best_cost = cost;
      own = n_own;
      used_others = std::move(used);
    }
  }
  return best;
}

}  // namespace

std::optional<BitmapCandidate> bitmap_or_candidate(const std::vector<Clause>& clauses, size_t oi,
                                                   const std::vector<IndexInfo>& indexes,
                                                   const CostSettings& cs,
                                                   const BitmapOn& bitmap_on) {
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
        bitmap_for(parts, others, indexes, cs, bitmap_on, own, used_others);
    if (!ch) return std::nullopt;
    covered = covered && own == parts.size();
    std::vector<size_t> kept;
    for (size_t k : used_others) {
      if (std::find(in_every_arm.begin(), in_every_arm.end(), other_ids[k]) != in_every_arm.end())
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

}  // namespace tp
