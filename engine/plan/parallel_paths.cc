#include "engine/plan/parallel_paths.h"

#include "engine/plan/parallel_cost.h"

namespace tp {

namespace {

scans::GatherParams gather_params(const PlanContext& ctx, const PartialScan& scan) {
  scans::GatherParams gp;
  gp.nblocks = scan.nblocks;
  gp.workers_planned = scan.workers;
  gp.leader_participation = ctx.settings.parallel_leader_participation;
  gp.slots = ctx.worker_slots;
  gp.max_parallel_workers = ctx.settings.max_parallel_workers;
  return gp;
}

// A participant's Parallel Seq Scan over the blocks the participants share.
std::unique_ptr<scans::ExecNode> participant_scan(const PartialScan& scan,
                                                  scans::ParallelBlocks& blocks) {
  scans::SeqScanParams p = scan.params;
  p.parallel = &blocks;
  auto node = std::make_unique<scans::SeqScanNode>(*scan.pool, *scan.file, std::move(p));
  node->estimate = {scan.path.startup, scan.path.total, scan.path.rows, scan.width};
  return node;
}

}  // namespace

std::optional<PartialScan> partial_seq_scan(PlanContext& ctx, const RelationEntry& rel,
                                            const RelSize& size, const QualCost& quals,
                                            scans::SeqScanParams params, int width) {
  const PlannerSettings& s = ctx.settings;
  // standard_planner's parallelModeOK: no parallel plan at all when the per-Gather
  // limit is 0.
  if (s.max_parallel_workers_per_gather <= 0) return std::nullopt;
  int workers =
      compute_parallel_worker(size.pages, rel.parallel_workers, s.min_parallel_table_scan_size,
                              s.max_parallel_workers_per_gather);
  if (workers <= 0) return std::nullopt;
  PartialScan p;
  p.workers = workers;
  p.path = cost_parallel_seq_scan(s.costs, size, quals,
                                  parallel_divisor(workers, s.parallel_leader_participation));
  p.path = disabled_if(!s.enable_seqscan, p.path);
  p.width = width;
  p.pool = &ctx.storage.pool();
  p.file = &ctx.storage.file(rel);
  p.nblocks = BlockNumber(rel.pages);
  p.params = std::move(params);
  return p;
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

GatherPath gather_partial_agg(const CostSettings& cs, const PartialScan& scan,
                              const PartialAgg& agg) {
  return {cost_gather(cs, agg.path, agg.path.rows * scan.workers), agg.width};
}

std::unique_ptr<scans::ExecNode> build_gather(PlanContext& ctx, const PartialScan& scan,
                                              const GatherPath& gather, const PartialAgg* agg) {
  std::optional<scans::PlanEstimate> agg_estimate;
  std::vector<scans::AggSpec> specs;
  if (agg) {
    agg_estimate =
        scans::PlanEstimate{agg->path.startup, agg->path.total, agg->path.rows, agg->width};
    specs = agg->specs;
  }
  scans::ParticipantBuilder build = [scan, agg_estimate, specs](scans::ParallelBlocks& blocks) {
    std::unique_ptr<scans::ExecNode> node = participant_scan(scan, blocks);
    if (agg_estimate) {
      node =
          std::make_unique<scans::AggregateNode>(std::move(node), specs, scans::AggMode::kPartial);
      node->estimate = *agg_estimate;
    }
    return node;
  };
  auto node = std::make_unique<scans::GatherNode>(std::move(build), gather_params(ctx, scan));
  node->estimate = {gather.path.startup, gather.path.total, gather.path.rows, gather.width};
  return node;
}

std::unique_ptr<scans::ExecNode> build_gather_over(PlanContext& ctx, const PartialScan& scan,
                                                   const GatherPath& gather, ParticipantTop top) {
  scans::ParticipantBuilder build = [scan, top](scans::ParallelBlocks& blocks) {
    return top(participant_scan(scan, blocks));
  };
  auto node = std::make_unique<scans::GatherNode>(std::move(build), gather_params(ctx, scan));
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

std::unique_ptr<scans::ExecNode> build_gather_merge(PlanContext& ctx, const PartialScan& scan,
                                                    const GatherMergePath& gm,
                                                    const SortSpec& sort) {
  const scans::PlanEstimate sort_estimate{gm.sort.startup, gm.sort.total, gm.sort.rows, gm.width};
  scans::ParticipantBuilder build = [scan, sort, sort_estimate](scans::ParallelBlocks& blocks) {
    auto node = std::make_unique<scans::SortNode>(participant_scan(scan, blocks), sort.keys,
                                                  sort.key_text, sort.bound, sort.max_bytes);
    node->estimate = sort_estimate;
    return node;
  };
  auto node = std::make_unique<scans::GatherMergeNode>(std::move(build), gather_params(ctx, scan),
                                                       sort.keys);
  node->estimate = {gm.path.startup, gm.path.total, gm.path.rows, gm.width};
  return node;
}

}  // namespace tp
