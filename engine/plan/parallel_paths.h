// The parallel paths tidepool builds, as PostgreSQL 15 builds them for one
// table: the partial path (a Parallel Seq Scan with compute_parallel_worker's
// workers, allpaths.c create_plain_partial_paths), `Gather -> Parallel Seq
// Scan` for rows (generate_gather_paths), and `Finalize Aggregate -> Gather ->
// Partial Aggregate -> Parallel Seq Scan` for aggregates (planner.c
// create_partial_grouping_paths, add_paths_to_grouping_rel). The costs are
// engine/plan/parallel_cost.h and agg_cost.h; this file builds the nodes
// (scans/gather.h): the Gather's ParticipantBuilder makes each participant's
// copy of the plan below it over the blocks they share.
//
// For an ORDER BY, `Gather Merge -> Sort -> Parallel Seq Scan` (allpaths.c
// generate_useful_gather_paths, planner.c create_ordered_paths): each participant
// sorts its share, the leader merges the sorted streams. For SELECT DISTINCT,
// `build_gather_over` puts each participant's HashAggregate (engine/plan/distinct_paths.h)
// over its share, `build_gather_merge_over` each participant's Unique over its ordered
// share.
//
// Parallel Index (Only) Scans and Parallel Bitmap Heap Scans are partial paths too
// (engine/plan/scan_choice.cc makes them): a Gather over the cheapest, a Gather Merge
// straight over each ordered Parallel Index Scan or over each participant's Incremental
// Sort of one that gives the first keys.
//
//   std::optional<PartialScan> partial = partial_seq_scan(ctx, rel, size, quals, params, w);
//   GatherPath g = gather_rows(ctx.settings.costs, *partial, rel_rows);
//   std::unique_ptr<scans::ExecNode> node = build_gather(ctx, *partial, g, nullptr);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/agg_cost.h"
#include "engine/plan/plan_context.h"
#include "scans/exec_node.h"
#include "scans/gather.h"
#include "scans/gather_merge.h"
#include "scans/parallel_shared.h"
#include "scans/seq_scan.h"

namespace tp {

// One Gather's participants: the state their scans share (null for a Parallel Seq
// Scan, whose blocks the Gather hands out) and the factory of each participant's scan,
// called on the leader's thread at each run (it holds copies, not the planner's state).
struct ParallelScanFactory {
  std::shared_ptr<scans::ParallelShared> shared;
  std::function<std::unique_ptr<scans::ExecNode>(scans::ParallelBlocks&)> participant;
};

// A partial path of the table (PostgreSQL's partial_pathlist): a Parallel Seq Scan,
// Parallel Index (Only) Scan or Parallel Bitmap Heap Scan, its workers, what each
// participant's copy costs and returns, and how a Gather makes the copies.
struct PartialScan {
  enum class Kind : uint8_t { kSeq, kIndex, kBitmap };
  Kind kind = Kind::kSeq;
  int workers = 0;
  PathCost path;  // per participant
  int width = 0;
  // Leading keys of the query's order the participants' rows come in (an ordered
  // Parallel Index Scan gives them; a Gather Merge then needs no Sort).
  size_t keys = 0;
  BlockNumber nblocks = 0;  // the table's blocks, for the Gather
  // Called when a Gather over the path is built (at plan time); it may outlive the
  // planner's candidates, so it holds what it needs by value.
  std::function<ParallelScanFactory()> prepare;
};

// The Parallel Seq Scan of `rel` when PostgreSQL would make one: parallel plans
// allowed (max_parallel_workers_per_gather > 0) and at least one worker by
// compute_parallel_worker over the planner's page estimate `pages`. `rel`'s
// parallel_workers option (-1: unset) overrides the size rule. `params` makes the
// participants' scan parameters when a Gather over the path is built: most partial
// paths lose, and a short query should not compile their filters.
std::optional<PartialScan> partial_seq_scan(PlanContext& ctx, const RelationEntry& rel,
                                            const RelSize& size, const QualCost& quals,
                                            std::function<scans::SeqScanParams()> params,
                                            int width);

// A Gather's parameters over the partial scan: its table's blocks, its workers, the
// session's worker limits, and what its participants share besides the blocks.
scans::GatherParams gather_params(const PlanContext& ctx, const PartialScan& scan,
                                  std::shared_ptr<scans::ParallelShared> shared);

// pathnode.c's add_partial_path over the partial paths made so far (`kept` holds
// indexes into `paths`, cheapest total first): partial paths compete on total cost
// alone (1% fuzz), a path with more of the order's keys surviving a cheaper one.
void add_partial_path(std::vector<size_t>& kept, const std::vector<PartialScan>& paths,
                      size_t added);

// An aggregate over a partial scan: Partial Aggregate in each participant.
struct PartialAgg {
  std::vector<AggCall> calls;
  std::vector<scans::AggSpec> specs;  // over the scan's slots
  // Expression arguments, computed after the scan's slots (project_aggregate_args).
  std::vector<std::shared_ptr<const TypedExpr>> args;
  PathCost path;  // per participant
  int width = 0;  // the states' width (partial_agg_width)
};

// `node` with the aggregates' expression arguments computed after its slots: a
// ProjectNode, invisible in EXPLAIN, its cost the Aggregate's (agg_clause_costs); `node`
// itself when there are none.
std::unique_ptr<scans::ExecNode> project_aggregate_args(
    std::unique_ptr<scans::ExecNode> node,
    const std::vector<std::shared_ptr<const TypedExpr>>& args);

// The Gather and what it costs: rows gathered from all participants.
struct GatherPath {
  PathCost path;
  int width = 0;
};

// Gather over the partial scan for the rows of a plain SELECT: PostgreSQL's
// generate_gather_paths estimates the relation's rows (`rel_rows`), not the
// per-participant rows times the workers.
GatherPath gather_rows(const CostSettings& cs, const PartialScan& scan, double rel_rows);

// The Partial Aggregate over the partial scan, and the Gather above it
// (rows = one state row per worker, as generate_gather_paths with override_rows).
PartialAgg partial_aggregate(const CostSettings& cs, const PartialScan& scan,
                             std::vector<AggCall> calls, std::vector<scans::AggSpec> specs);
GatherPath gather_partial_agg(const CostSettings& cs, const PartialScan& scan,
                              const PartialAgg& agg);

// The Gather node: each participant's copy is a Parallel Seq Scan, under a
// Partial Aggregate when `agg` is given. Its estimate is `gather`'s.
std::unique_ptr<scans::ExecNode> build_gather(PlanContext& ctx, const PartialScan& scan,
                                              const GatherPath& gather, const PartialAgg* agg);

// The Gather node over each participant's `top(Parallel Seq Scan)` (SELECT DISTINCT's
// HashAggregate per participant). Its estimate is `gather`'s.
using ParticipantTop =
    std::function<std::unique_ptr<scans::ExecNode>(std::unique_ptr<scans::ExecNode>)>;
std::unique_ptr<scans::ExecNode> build_gather_over(PlanContext& ctx, const PartialScan& scan,
                                                   const GatherPath& gather, ParticipantTop top);

// Gather Merge over the partial scan sorted in each participant: the Sort costed
// with `limit_tuples` (-1: none), the Gather Merge with `rows` (the relation's rows
// from generate_useful_gather_paths; partial rows * workers from
// create_ordered_paths). enable_sort = off disables the Sort, enable_gathermerge =
// off the Gather Merge.
struct GatherMergePath {
  PathCost sort;  // per participant
  PathCost path;
  int width = 0;
  bool presorted = false;  // no Sort: the partial scan gives the order
  // An Incremental Sort over a scan giving the first `presorted_keys` keys
  // (EXPLAIN's Presorted Key: `presorted_text`); 0: a full Sort (or none).
  size_t presorted_keys = 0;
  std::string presorted_text;
};
GatherMergePath gather_merge_sorted(const PlannerSettings& s, const PartialScan& scan,
                                    double limit_tuples, double rows);
// Gather Merge straight over a partial path in the order (generate_gather_paths: an
// ordered Parallel Index Scan); `sort` stays empty.
GatherMergePath gather_merge_presorted(const PlannerSettings& s, const PartialScan& scan,
                                       double rows);

// How each participant sorts: the keys over the scan's slots, EXPLAIN's key text,
// the LIMIT's bound (0: none) and the in-memory sort's limit.
struct SortSpec {
  std::vector<scans::SortKey> keys;
  std::string key_text;
  int64_t bound = 0;
  uint64_t max_bytes = 0;
};

// The Gather Merge node, merging on `merge.keys`: each participant's copy is the
// partial scan under `sort`'s Sort, or its Incremental Sort (`gm.presorted_keys`), or
// alone when it is presorted (`gm.presorted`).
std::unique_ptr<scans::ExecNode> build_gather_merge(PlanContext& ctx, const PartialScan& scan,
                                                    const GatherMergePath& gm,
                                                    const SortSpec& merge, const SortSpec& sort);
// The Gather Merge node over each participant's `top(partial scan)`, whose rows come in
// `merge`'s order (SELECT DISTINCT's Unique per participant); its estimate `path`.
std::unique_ptr<scans::ExecNode> build_gather_merge_over(PlanContext& ctx, const PartialScan& scan,
                                                         const PathCost& path, int width,
                                                         const SortSpec& merge, ParticipantTop top);

}  // namespace tp
