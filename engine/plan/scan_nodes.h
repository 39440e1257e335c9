// The scan nodes of a chosen path, built from plain values: the index scan's
// parameters, the bitmap index scans and their BitmapAnd / BitmapOr, the Bitmap Heap
// Scan over them, and the parallel copies of each (engine/plan/parallel_paths.h).
// engine/plan/scan_choice.cc decides which path; this file turns it into nodes.
//
//   TableScan t{ctx, rel, cs, rs, "t", output};
//   auto node = make_index_scan(t, {index, ic, qp, backward, index_only});
//   PartialScan p = partial_index_scan(t, spec, cost, workers, keys);   // a Gather's copies
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/clause.h"
#include "engine/core/heap_tuple.h"
#include "engine/plan/bitmap_or.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/plan_context.h"
#include "scans/bitmap_scan.h"
#include "scans/index_scan.h"
#include "scans/seq_scan.h"

namespace tp {

// The table a query scans, as its scan nodes need it.
struct TableScan {
  PlanContext& ctx;
  const RelationEntry& rel;
  const CostSettings& cs;
  RelSize rs;
  std::string relation_text;  // "t", or "t t_1" under an alias
  scans::TupleReader output;
  int width = 0;
  HeapTupleLayout layout{rel.columns};
};

// One index path: the index, the clauses it applies and those it filters with, its
// direction, and whether it answers from the index alone.
struct IndexPathSpec {
  const RelationEntry* index = nullptr;
  std::vector<Clause> index_clauses;
  std::vector<Clause> filter;
  bool backward = false;
  bool index_only = false;
  // A parameterized path: the Nested Loop's parameters its `column = $param` clauses read.
  const scans::ExecParams* params = nullptr;
};

// What a sequential scan's parameters are made from: the table and its restriction.
struct SeqScanInputs {
  TableScan table;
  std::vector<Clause> clauses;
};
// The sequential scan's parameters over table `t` with the restriction `clauses`.
scans::SeqScanParams seq_scan_params(const TableScan& t, const std::vector<Clause>& clauses);

scans::IndexScanParams index_scan_params(const TableScan& t, const IndexPathSpec& spec);
std::unique_ptr<scans::ExecNode> make_index_scan(const TableScan& t, const IndexPathSpec& spec);

// The Parallel Index (Only) Scan of an index path (cost_index with partial_path):
// `workers` from compute_parallel_worker, `keys` of the query's order it gives.
PartialScan partial_index_scan(const TableScan& t, const IndexPathSpec& spec, const PathCost& cost,
                               int workers, size_t keys);

// The Bitmap Heap Scan over the chosen bitmap candidates (their BitmapAnd when there
// are several): the clauses they apply are rechecked, the other restrictions
// (`clauses`) filter. `p` is the heap scan's cost. Over a Nested Loop's `params`, the
// index scans whose conditions hold parameters take them as runtime keys.
struct BitmapHeapPlan {
  std::unique_ptr<scans::BitmapNode> tree;
  scans::BitmapHeapScanParams params;
};
BitmapHeapPlan bitmap_heap_plan(const TableScan& t, const std::vector<Clause>& clauses,
                                const std::vector<BitmapCandidate>& chosen,
                                const BitmapPath& bitmap,
                                const scans::ExecParams* params = nullptr);
std::unique_ptr<scans::ExecNode> make_bitmap_heap(const TableScan& t, BitmapHeapPlan plan,
                                                  const PathCost& p);

// The Parallel Bitmap Heap Scan over the same bitmap: the bitmap's nodes are made now,
// once, and copied into each participant.
PartialScan partial_bitmap_heap_scan(const TableScan& t, BitmapHeapPlan plan, const PathCost& cost,
                                     int workers);

}  // namespace tp
