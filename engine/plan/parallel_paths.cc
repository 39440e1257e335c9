#include "engine/plan/parallel_paths.h"

#include "engine/plan/parallel_cost.h"
#include "scans/incremental_sort.h"
#include "scans/project.h"

namespace tp {

scans::GatherParams gather_params(const PlanContext& ctx, const PartialScan& scan,
                                  std::shared_ptr<scans::ParallelShared> shared) {
  scans::GatherParams gp;
  gp.nblocks = scan.nblocks;
  gp.workers_planned = scan.workers;
  gp.leader_participation = ctx.settings.parallel_leader_participation;
  gp.slots = ctx.worker_slots;
  gp.max_parallel_workers = ctx.settings.max_parallel_workers;
  gp.shared = std::move(shared);
  return gp;
}

namespace {

// Each participant's copy of the partial scan, with the path's estimate.
using ScanCopies = std::function<std::unique_ptr<scans::ExecNode>(scans::ParallelBlocks&)>;
ScanCopies scan_copies(const PartialScan& scan, const ParallelScanFactory& f) {
  const scans::PlanEstimate estimate{scan.path.startup, scan.path.total, scan.path.rows,
                                     scan.width};
  return [participant = f.participant, estimate](scans::ParallelBlocks& blocks) {
    std::unique_ptr<scans::ExecNode> node = participant(blocks);
    node->estimate = estimate;
    return node;
  };
}

}  // namespace

std::optional<PartialScan> partial_seq_scan(PlanContext& ctx, const RelationEntry& rel,
                                            const RelSize& size, const QualCost& quals,
                                            std::function<scans::SeqScanParams()> params,
                                            int width) {
  const PlannerSettings& s = ctx.settings;
  // standard_planner's parallelModeOK: no parallel plan at all when the per-Gather
  // limit is 0.
  if (s.max_parallel_workers_per_gather <= 0) return std::nullopt;
  int workers =
      compute_parallel_worker(size.pages, rel.parallel_workers, s.min_parallel_table_scan_size,
                              s.max_parallel_workers_per_gather);
  if (workers <= 0) return std::nullopt;
  PartialScan p;
  p.kind = PartialScan::Kind::kSeq;
  p.workers = workers;
  p.path = cost_parallel_seq_scan(s.costs, size, quals,
                                  parallel_divisor(workers, s.parallel_leader_participation));
  p.path = disabled_if(!s.enable_seqscan, p.path);
  p.width = width;
  p.nblocks = BlockNumber(rel.pages);
  p.prepare = [pool = &ctx.storage.pool(), file = &ctx.storage.file(rel),
               make_params = std::move(params)] {
    ParallelScanFactory f;
    const scans::SeqScanParams params = make_params();
    f.participant = [pool, file, params](scans::ParallelBlocks& blocks) {
      scans::SeqScanParams mine = params;
      mine.parallel = &blocks;
      return std::unique_ptr<scans::ExecNode>(
          std::make_unique<scans::SeqScanNode>(*pool, *file, std::move(mine)));
    };
    return f;
  };
  return p;
}

void add_partial_path(std::vector<size_t>& kept, const std::vector<PartialScan>& paths,
                      size_t added) {
  const PartialScan& p = paths[added];
  constexpr double kFuzz = 1.01;  // STD_FUZZ_FACTOR
  bool accept = true;
  size_t insert_at = 0;
  for (size_t i = 0; i < kept.size();) {
    const PartialScan& old = paths[kept[i]];
    bool remove_old = false;
    // The keys are prefixes of one order: more keys are better pathkeys.
    if (p.path.total > old.path.total * kFuzz) {
      if (p.keys <= old.keys) accept = false;
    } else if (old.path.total > p.path.total * kFuzz) {
      if (p.keys >= old.keys) remove_old = true;
    } else if (p.keys > old.keys) {
      remove_old = true;
    } else if (p.keys < old.keys) {
      accept = false;
    } else if (old.path.total > p.path.total * 1.0000000001) {
      remove_old = true;
    } else {
      accept = false;
    }
    if (remove_old) {
      kept.erase(kept.begin() + std::ptrdiff_t(i));
    } else {
      if (p.path.total >= old.path.total) insert_at = i + 1;
      ++i;
    }
    if (!accept) return;
  }
  kept.insert(kept.begin() + std::ptrdiff_t(insert_at), added);
}

GatherPath gather_rows(const CostSettings& cs, const PartialScan& scan, double rel_rows) {
  return {cost_gather(cs, scan.path, rel_rows), scan.width};
}

PartialAgg partial_aggregate(const CostSettings& cs, const PartialScan& scan,
                             std::vector<AggCall> calls, std::vector<scans::AggSpec> specs) {
  PartialAgg a;
  a.path = cost_plain_agg(cs, scan.path, agg_clause_costs(cs, calls, AggSplit::kInitialSerial));
  a.width = partial_agg_width(calls);
  a.calls = std::move(calls);
  a.specs = std::move(specs);
  return a;
}

std::unique_ptr<scans::ExecNode> project_aggregate_args(
    std::unique_ptr<scans::ExecNode> node,
    const std::vector<std::shared_ptr<const TypedExpr>>& args) {
  if (args.empty()) return node;
  const scans::PlanEstimate estimate = node->estimate;
  auto p = std::make_unique<scans::ProjectNode>(std::move(node), args);
  p->estimate = estimate;
  return p;
}

GatherPath gather_partial_agg(const CostSettings& cs, const PartialScan& scan,
                              const PartialAgg& agg) {
  return {cost_gather(cs, agg.path, agg.path.rows * scan.workers), agg.width};
}

std::unique_ptr<scans::ExecNode> build_gather(PlanContext& ctx, const PartialScan& scan,
                                              const GatherPath& gather, const PartialAgg* agg) {
  std::optional<scans::PlanEstimate> agg_estimate;
  std::vector<scans::AggSpec> specs;
  std::vector<std::shared_ptr<const TypedExpr>> args;
  if (agg) {
    agg_estimate =
        scans::PlanEstimate{agg->path.startup, agg->path.total, agg->path.rows, agg->width};
    specs = agg->specs;
    args = agg->args;
  }
  const ParallelScanFactory f = scan.prepare();
  scans::ParticipantBuilder build = [copies = scan_copies(scan, f), agg_estimate, specs,
                                     args](scans::ParallelBlocks& blocks) {
    std::unique_ptr<scans::ExecNode> node = copies(blocks);
    if (agg_estimate) {
      node = std::make_unique<scans::AggregateNode>(project_aggregate_args(std::move(node), args),
                                                    specs, scans::AggMode::kPartial);
      node->estimate = *agg_estimate;
    }
    return node;
  };
  auto node =
      std::make_unique<scans::GatherNode>(std::move(build), gather_params(ctx, scan, f.shared));
  node->estimate = {gather.path.startup, gather.path.total, gather.path.rows, gather.width};
  return node;
}

std::unique_ptr<scans::ExecNode> build_gather_over(PlanContext& ctx, const PartialScan& scan,
                                                   const GatherPath& gather, ParticipantTop top) {
  const ParallelScanFactory f = scan.prepare();
  scans::ParticipantBuilder build = [copies = scan_copies(scan, f),
                                     top](scans::ParallelBlocks& blocks) {
    return top(copies(blocks));
  };
  auto node =
      std::make_unique<scans::GatherNode>(std::move(build), gather_params(ctx, scan, f.shared));
  node->estimate = {gather.path.startup, gather.path.total, gather.path.rows, gather.width};
  return node;
}

GatherMergePath gather_merge_sorted(const PlannerSettings& s, const PartialScan& scan,
                                    double limit_tuples, double rows) {
  GatherMergePath g;
  g.sort = cost_sort(s.costs, scan.path, scan.path.rows, scan.width, 0, limit_tuples);
  g.sort = disabled_if(!s.enable_sort, g.sort);
  g.path = cost_gather_merge(s.costs, g.sort, rows, scan.workers, !s.enable_gathermerge);
  g.width = scan.width;
  return g;
}

GatherMergePath gather_merge_presorted(const PlannerSettings& s, const PartialScan& scan,
                                       double rows) {
  GatherMergePath g;
  g.sort = scan.path;
  g.path = cost_gather_merge(s.costs, scan.path, rows, scan.workers, !s.enable_gathermerge);
  g.width = scan.width;
  g.presorted = true;
  return g;
}

std::unique_ptr<scans::ExecNode> build_gather_merge(PlanContext& ctx, const PartialScan& scan,
                                                    const GatherMergePath& gm,
                                                    const SortSpec& merge, const SortSpec& sort) {
  const scans::PlanEstimate sort_estimate{gm.sort.startup, gm.sort.total, gm.sort.rows, gm.width};
  ParticipantTop top = [sort, sort_estimate, gm](std::unique_ptr<scans::ExecNode> node) {
    if (gm.presorted) return node;
    if (gm.presorted_keys > 0)
      node = std::make_unique<scans::IncrementalSortNode>(std::move(node), sort.keys,
                                                          gm.presorted_keys, sort.key_text,
                                                          gm.presorted_text, sort.max_bytes);
    else
      node = std::make_unique<scans::SortNode>(std::move(node), sort.keys, sort.key_text,
                                               sort.bound, sort.max_bytes);
    node->estimate = sort_estimate;
    return node;
  };
  return build_gather_merge_over(ctx, scan, gm.path, gm.width, merge, std::move(top));
}

std::unique_ptr<scans::ExecNode> build_gather_merge_over(PlanContext& ctx, const PartialScan& scan,
                                                         const PathCost& path, int width,
                                                         const SortSpec& merge,
                                                         ParticipantTop top) {
  const ParallelScanFactory f = scan.prepare();
  scans::ParticipantBuilder build = [copies = scan_copies(scan, f),
                                     top](scans::ParallelBlocks& blocks) {
    return top(copies(blocks));
  };
  auto node = std::make_unique<scans::GatherMergeNode>(
      std::move(build), gather_params(ctx, scan, f.shared), merge.keys);
  node->estimate = {path.startup, path.total, path.rows, width};
  return node;
}

}  // namespace tp
