// The candidates of a bitmap heap scan's bitmap, the BitmapOr for an OR clause as
// PostgreSQL 15's generate_bitmap_or_paths / build_paths_for_OR build it, and
// choose_bitmap_and, which picks the bitmap among them (engine/plan/scan_choice.cc
// makes the candidates of each index and builds the chosen scan).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "engine/core/clause.h"
#include "engine/plan/cost_model.h"
#include "engine/storage/catalog.h"

namespace tp {

struct IndexInfo {
  const RelationEntry* entry;
  BtreeIndexInfo info;
};

// A bitmap index scan on one index for the clauses of one AND arm.
struct BitmapChoice {
  BitmapPath node;
  const IndexInfo* index = nullptr;
  std::vector<Clause> index_clauses;
};

// A candidate for the bitmap heap scan's bitmap: one index's bitmap scan, or a BitmapOr of
// index scans for one OR clause; clause_ids are the restriction clauses it applies (a
// BitmapOr: its OR clause and every other restriction some arm's index conditions take).
struct BitmapCandidate {
  BitmapPath node;
  std::vector<BitmapChoice> arms;  // the index scan; or the BitmapOr's arms
  bool is_or = false;
  std::vector<size_t> clause_ids;  // indexes into ScanQuery::clauses, ascending
  // A BitmapOr: what the heap scan rechecks (the OR of its arms' index conditions) and
  // the restriction clauses that recheck implies, which leave the Filter.
  std::optional<Clause> recheck;
  std::vector<size_t> implied_ids;
};

// Makes the bitmap index scan of one index for the given index clauses.
using BitmapOn = std::function<BitmapChoice(const IndexInfo&, std::vector<Clause>)>;
// What a bitmap heap scan over a bitmap would cost (PostgreSQL's bitmap_scan_cost_est).
using BitmapHeapCost = std::function<double(const BitmapPath&)>;

// The BitmapOr for restriction clause `oi` of `clauses` (nullopt if it is no OR, or some
// arm has no index): each arm (an AND, or one clause) on the index that applies some of
// the arm's clauses, together with whatever other restriction clauses that index
// applies, whose bitmap makes the cheapest heap scan (choose_bitmap_and's measure; on a
// tie the cheaper index scan). The heap scan rechecks the OR of the arms' index conditions; the OR
// clause stays a filter unless every arm's conditions hold all of the arm.
std::optional<BitmapCandidate> bitmap_or_candidate(const std::vector<Clause>& clauses, size_t oi,
                                                   const std::vector<IndexInfo>& indexes,
                                                   const CostSettings& cs,
                                                   const BitmapOn& bitmap_on,
                                                   const BitmapHeapCost& heap_cost);

// Adds a candidate unless one applying the same clauses has a cheaper bitmap (a
// cheaper one replaces it), as choose_bitmap_and weeds out paths of equal clause sets.
void add_bitmap_candidate(std::vector<BitmapCandidate>& candidates, BitmapCandidate c,
                          const CostSettings& cs);

// PostgreSQL's choose_bitmap_and: the candidates sorted by bitmap cost (ties:
// selectivity), each in turn leads a group that ANDs every later candidate sharing no
// clause with it when the heap scan's cost drops; the cheapest group wins. Returns its
// candidates and, in `bitmap`, their bitmap (the one, or their BitmapAnd).
std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const BitmapHeapCost& heap_cost, BitmapPath& bitmap);

}  // namespace tp
