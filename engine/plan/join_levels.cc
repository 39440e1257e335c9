// JoinSearch's levels (join_search.h): join_search_one_level (joinrels.c): which pairs of
// relations a level of the join search tries, by their join clauses and the outer
// joins' order restrictions; and the orders a join relation's paths keep.
#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/plan/join_search.h"
#include "engine/plan/outer_joins.h"

namespace tp {

// The relations a class's members read; a class with a constant counts too, as
// PostgreSQL's has_relevant_eclass_joinclause does not tell them apart.
Relids JoinSearch::class_relids(const JoinClass& c) const {
  Relids r = c.expression_rels;
  for (uint32_t v : c.members) r |= Relids(1) << q_.vars[v].rel;
  return r;
}

bool JoinSearch::has_join_clauses(const JoinRelation& r) const {
  for (const JoinFilterClause& f : q_.filters)
    if ((f.relids & r.relids) && (f.relids & ~r.relids)) return true;
  for (const auto* list : {&q_.classes, &q_.constant_classes})
    for (const JoinClass& c : *list) {
      const Relids in = class_relids(c);
      if ((in & r.relids) && (in & ~r.relids)) return true;
    }
  return has_join_restriction(q_.special_joins, r.relids) || lateral_restricted(r.relids);
}

bool JoinSearch::have_relevant_joinclause(const JoinRelation& a, const JoinRelation& b) const {
  for (const JoinFilterClause& f : q_.filters)
    if ((f.relids & a.relids) && (f.relids & b.relids)) return true;
  for (const auto* list : {&q_.classes, &q_.constant_classes})
    for (const JoinClass& c : *list) {
      const Relids in = class_relids(c);
      if ((in & a.relids) && (in & b.relids)) return true;
    }
  return false;
}

// have_join_order_restriction: an outer join needs the pair joined, unless either can
// first join something else legally through a join clause (clauseless joins wait).
bool JoinSearch::have_join_order_restriction(const JoinRelation& a, const JoinRelation& b) const {
  if (lateral_link(a.relids, b.relids)) return true;
  if (!join_order_restricted(q_.special_joins, a.relids, b.relids)) return false;
  return !has_legal_joinclause(a) && !has_legal_joinclause(b);
}

bool JoinSearch::has_legal_joinclause(const JoinRelation& r) const {
  for (size_t other : levels_[1]) {
    const JoinRelation& o = rels_[other];
    if ((o.relids & r.relids) || !have_relevant_joinclause(r, o)) continue;
    int match = -1;
    bool reversed = false;
    if (join_is_legal(q_.special_joins, r.relids, o.relids, match, reversed)) return true;
  }
  return false;
}

bool JoinSearch::joinable(const JoinRelation& a, const JoinRelation& b) const {
  return !(a.relids & b.relids) &&
         (have_relevant_joinclause(a, b) || have_join_order_restriction(a, b));
}

void JoinSearch::search_level(size_t level) {
  const std::vector<size_t> below = levels_[level - 1];
  const std::vector<size_t> initial = levels_[1];
  for (size_t i = 0; i < below.size(); ++i) {
    const size_t old = below[i];
    if (has_join_clauses(rels_[old])) {
      for (size_t j = level == 2 ? i + 1 : 0; j < initial.size(); ++j)
        if (joinable(rels_[old], rels_[initial[j]])) make_join_rel(old, initial[j]);
    } else {
      for (size_t other : initial)
        if (!(rels_[old].relids & rels_[other].relids)) make_join_rel(old, other);
    }
  }
  for (size_t k = 2; k <= level - k; ++k) {
    const std::vector<size_t> left = levels_[k];
    const std::vector<size_t> right = levels_[level - k];
    for (size_t i = 0; i < left.size(); ++i) {
      if (!has_join_clauses(rels_[left[i]])) continue;
      for (size_t j = k == level - k ? i + 1 : 0; j < right.size(); ++j)
        if (joinable(rels_[left[i]], rels_[right[j]])) make_join_rel(left[i], right[j]);
    }
  }
  if (levels_[level].empty())
    for (size_t old : below)
      for (size_t other : initial)
        if (!(rels_[old].relids & rels_[other].relids)) make_join_rel(old, other);
  // Sub-lists (join_collapse.h) are searched as units: a level may hold no relation at
  // all, and two units with no clause between them still join (clauselessly).
  if (!q_.subproblems.empty()) {
    if (levels_[level].empty())
      for (size_t k = 2; k <= level - k; ++k)
        for (size_t a : levels_[k])
          for (size_t b : levels_[level - k])
            if (!(rels_[a].relids & rels_[b].relids)) make_join_rel(a, b);
    return;
  }
  if (levels_[level].empty() && q_.special_joins.empty())
    throw Error("failed to build any " + std::to_string(level) + "-way joins");
}

// truncate_useless_pathkeys for a relation: the leading keys still useful for a merge
// join above it (a class with members outside it, sorted in the direction the ORDER BY
// wants it, ascending when it names none: right_merge_direction) or for the ORDER BY.
std::vector<PathKey> JoinSearch::useful_pathkeys(const JoinRelation& r,
                                                 std::vector<PathKey> keys) const {
  size_t merging = 0;
  for (const PathKey& k : keys) {
    const auto wanted = std::find_if(query_pathkeys_.begin(), query_pathkeys_.end(),
                                     [&](const PathKey& q) { return q.key == k.key; });
    if (k.descending != (wanted != query_pathkeys_.end() && wanted->descending)) break;
    bool useful = false;
    if (k.key < q_.classes.size()) useful = (class_relids(q_.classes[k.key]) & ~r.relids) != 0;
    // A var of no class: an outer join's merge clause still to come may sort by it.
    for (const auto& [var, other] : merge_pairs_)
      useful = useful || (key_of(var) == k.key && (r.relids & (Relids(1) << q_.vars[var].rel)) &&
                          !(r.relids & (Relids(1) << q_.vars[other].rel)));
    // Or by an expression of its relations.
    for (const ExpressionMergeSide& m : expression_merge_sides_)
      useful = useful || (m.key == k.key && (m.side & ~r.relids) == 0 && !(m.other & r.relids));
    if (!useful) break;
    ++merging;
  }
  keys.resize(std::max(merging, common_pathkeys(keys, query_pathkeys_)));
  return keys;
}

}  // namespace tp
