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

// A candidate for a bitmap: one index's bitmap scan, a BitmapAnd of candidates (an OR
// arm's group, as choose_bitmap_and picks it), or a BitmapOr of one OR clause's arms.
struct BitmapCandidate {
  enum class Kind : uint8_t { kIndex, kAnd, kOr };
  Kind kind = Kind::kIndex;
  BitmapPath node;
  BitmapChoice scan;                     // kIndex
  std::vector<BitmapCandidate> members;  // kAnd / kOr
  // The index conditions it applies, over all its members (classify_index_clause_usage:
  // two candidates applying an equal clause are never ANDed).
  std::vector<Clause> quals;
  // A parameterized index scan (engine/plan/param_paths.h): the join clauses of the
  // request it applies, the first of its index conditions (and quals).
  std::vector<size_t> join_params;
};

// What the heap scan rechecks for a candidate (create_bitmap_subplan's quals): an index
// scan's conditions in key order (their AND when several; a LIKE, not the prefix range
// derived from it), an AND's members' conditions, an OR's arms' rechecks under an OR.
// `index_quals`: the conditions as the indexes apply them (the derived range kept),
// which decide the Filter.
Clause candidate_recheck(const BitmapCandidate& c, bool index_quals = false);

// Makes the bitmap index scan of one index for the given index clauses.
using BitmapOn = std::function<BitmapChoice(const IndexInfo&, std::vector<Clause>)>;
// What a bitmap heap scan over a bitmap would cost (PostgreSQL's bitmap_scan_cost_est).
using BitmapHeapCost = std::function<double(const BitmapPath&)>;

// The index and bitmap paths of the query, as plain values and callbacks.
struct BitmapContext {
  const std::vector<IndexInfo>& indexes;
  const CostSettings& cs;
  BitmapOn bitmap_on;
  BitmapHeapCost heap_cost;
};

// generate_bitmap_or_paths over `clauses` (the restriction clauses, or the parts of an
// OR arm's AND), with `others` the clauses an index may apply besides: for each OR
// clause whose every arm gets a bitmap, the BitmapOr of the arms'. An arm's bitmap is
// choose_bitmap_and's pick among build_paths_for_OR's index scans (each index that
// applies one of the arm's clauses, applying too every clause of `clauses` and `others`
// it can) and, for an AND arm, the BitmapOrs of the ORs inside it (recursively).
std::vector<BitmapCandidate> bitmap_or_candidates(const std::vector<Clause>& clauses,
                                                  const std::vector<Clause>& others,
                                                  const BitmapContext& ctx);

// Adds a candidate unless one applying the same clauses (`quals`, as a set) has a cheaper
// bitmap (a cheaper one replaces it), as choose_bitmap_and weeds out paths of equal
// clause sets.
void add_bitmap_candidate(std::vector<BitmapCandidate>& candidates, BitmapCandidate c,
                          const CostSettings& cs);

// PostgreSQL's choose_bitmap_and: the candidates sorted by bitmap cost (ties:
// selectivity), each in turn leads a group that ANDs every later candidate sharing no
// clause with it when the heap scan's cost drops; the cheapest group wins. Returns its
// candidates and, in `bitmap`, their bitmap (the one, or their BitmapAnd). Candidates
// applying the same clauses keep only the cheapest first (add_bitmap_candidate).
std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const BitmapHeapCost& heap_cost, BitmapPath& bitmap);
// The same, the heap scan's cost told the group's candidates too (bitmap_and_cost_est:
// a group holding a parameterized scan costs a parameterized heap scan).
using GroupHeapCost =
    std::function<double(const BitmapPath&, const std::vector<const BitmapCandidate*>& group)>;
std::vector<BitmapCandidate> choose_bitmap_and(std::vector<BitmapCandidate> candidates,
                                               const CostSettings& cs,
                                               const GroupHeapCost& heap_cost, BitmapPath& bitmap);

}  // namespace tp
