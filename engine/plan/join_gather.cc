// A Gather over a partial join path. Each participant runs its own copy of the join: the
// partial scan at its outer end reads a share of the table's blocks (the copies share
// them through the Gather's ParallelBlocks), every other node is whole in each copy (a
// nested loop's inner scans, a Hash each participant builds).
//
// The copies are built at plan time, while the scan choosers whose builders make the
// inner scans are alive: the Gather builds the leader's copy when it is made, and this
// builder makes every worker's copy then too, handing one to each worker at its start.
// A second run of the Gather (a rescan) would need new copies after the planner is gone,
// so it is refused with an error; the join planner never puts such a Gather where it
// runs twice (a Gather over a join is the plan's top or below a join that reads it once).
#include <deque>

#include "engine/core/error.h"
#include "engine/plan/join_build.h"
#include "scans/gather.h"

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
  copies->fill = [this, &sub, &f, n = p.workers + 1,
                  out = copies.get()](scans::ParallelBlocks& blocks) {
    partial_leaf_ = [&f, &blocks] { return f.participant(blocks); };
    for (int i = 0; i < n; ++i) out->ready.push_back(build(sub));
    partial_leaf_ = nullptr;
  };
  scans::ParticipantBuilder participant = [copies](scans::ParallelBlocks& blocks) {
    if (copies->fill) {
      const auto fill = std::move(copies->fill);
      copies->fill = nullptr;
      fill(blocks);
    }
    if (copies->ready.empty())
      throw Error("not supported: running a Gather over a join a second time (a rescan)");
    std::unique_ptr<scans::ExecNode> node = std::move(copies->ready.front());
    copies->ready.pop_front();
    return node;
  };
  scans::GatherParams params = gather_params(ctx_, scan, f.shared);
  params.workers_planned = p.workers;
  auto node = std::make_unique<scans::GatherNode>(std::move(participant), params);
  node->estimate = {p.cost.startup, p.cost.total, p.cost.rows, p.width};
  return node;
}

}  // namespace tp
