// The candidates of a bitmap heap scan's bitmap, and the BitmapOr for an OR clause as
// PostgreSQL 15's generate_bitmap_or_paths / build_paths_for_OR build it
// (engine/plan/scan_choice.cc weighs them with choose_bitmap_and).
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

// The BitmapOr for restriction clause `oi` of `clauses` (nullopt if it is no OR, or some
// arm has no index): each arm (an AND, or one clause) on the cheapest index that applies
// some of the arm's clauses, together with whatever other restriction clauses that index
// applies. The heap scan rechecks the OR of the arms' index conditions; the OR clause
// stays a filter unless every arm's conditions hold all of the arm.
std::optional<BitmapCandidate> bitmap_or_candidate(const std::vector<Clause>& clauses, size_t oi,
                                                   const std::vector<IndexInfo>& indexes,
                                                   const CostSettings& cs,
                                                   const BitmapOn& bitmap_on);

}  // namespace tp
