// A Gather over a partial join path, or a Gather Merge over each participant's Sort of
// it. Each participant runs its own copy of the join: the
// partial scan at its outer end reads a share of the table's blocks (the copies share
// them through the Gather's ParallelBlocks), every other node is whole in each copy (a
// nested loop's inner scans, a Hash each participant builds).
//
// The copies are built at plan time, while the scan choosers whose builders make the
// inner scans are alive: the Gather builds the leader's copy when it is made, and this
// builder makes every worker's copy then too, handing one to each worker at its start.
// A second run of the Gather (a rescan, as the inner side of a Nested Loop) would need new
// copies after the planner is gone: it starts no worker, and the leader runs its own copy
// over all the blocks (as PostgreSQL does when no background worker can be had).
#include <deque>

#include "engine/core/error.h"
#include "engine/plan/join_build.h"
#include "engine/plan/plan_steps.h"
#include "scans/gather.h"
#include "scans/gather_merge.h"

namespace tp {

namespace {

// The partial scan of a partial join path: at the end of its outer sides.
const JoinPath* partial_scan_of(const JoinPath& p) {
  if (p.partial_scan) return &p;
  return p.outer ? partial_scan_of(*p.outer) : nullptr;
}

}  // namespace

std::unique_ptr<scans::ExecNode> JoinPlanBuilder::build_gather(const JoinPath& p) const {
  const JoinPath* leaf = partial_scan_of(*p.outer);
  if (!leaf) throw Error("internal error: a Gather over no partial scan");
  const PartialScan& scan = *leaf->partial_scan;
  const ParallelScanFactory f = scan.prepare();
  struct Copies {
    std::function<void(scans::ParallelBlocks&)> fill;  // plan time: makes them all
    std::deque<std::unique_ptr<scans::ExecNode>> ready;
  };
  auto copies = std::make_shared<Copies>();
  const JoinPath& sub = *p.outer;
  auto participant_top = [this, &p](const JoinPath& input) {
    std::unique_ptr<scans::ExecNode> node = build(input);
    if (!p.gather_merge) return node;
    node = std::make_unique<scans::SortNode>(std::move(node), p.merge_keys, p.merge_text,
                                             p.merge_bound, kSortMemoryLimitBytes);
    const PathCost& c = p.merge_sort_cost;
    node->estimate = {c.startup, c.total, c.rows, input.width};
    return node;
  };
  copies->fill = [this, &participant_top, &sub, &f, n = p.workers + 1,
                  out = copies.get()](scans::ParallelBlocks& blocks) {
    partial_leaf_ = [&f, &blocks] { return f.participant(blocks); };
    for (int i = 0; i < n; ++i) out->ready.push_back(participant_top(sub));
    partial_leaf_ = nullptr;
  };
  scans::ParticipantBuilder participant = [copies](scans::ParallelBlocks& blocks) {
    if (copies->fill) {
      const auto fill = std::move(copies->fill);
      copies->fill = nullptr;
      fill(blocks);
    }
    // A rescan finds none left: its workers do not start, the leader's copy (kept
    // across runs) reads every block.
    if (copies->ready.empty()) return std::unique_ptr<scans::ExecNode>();
    std::unique_ptr<scans::ExecNode> node = std::move(copies->ready.front());
    copies->ready.pop_front();
    return node;
  };
  scans::GatherParams params = gather_params(ctx_, scan, f.shared);
  params.workers_planned = p.workers;
  std::unique_ptr<scans::ExecNode> node;
  if (p.gather_merge)
    node = std::make_unique<scans::GatherMergeNode>(std::move(participant), params, p.merge_keys);
  else
    node = std::make_unique<scans::GatherNode>(std::move(participant), params);
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

}  // namespace tp
