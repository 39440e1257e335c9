// What the participants of one Gather share besides a table's blocks
// (scans/parallel_blocks.h): a Parallel Index Scan's leaf position
// (scans/index_scan.h, SharedIndexScan), a Parallel Bitmap Heap Scan's bitmap and
// its iteration (scans/bitmap_scan.h, SharedBitmap). The planner makes one per
// Gather and hands it to every participant's copy of the plan; the Gather's
// WorkerGroup resets it before each run (a rescan starts the hand-out again), before
// any participant opens its copy.
#pragma once

namespace tp::scans {

class ParallelShared {
 public:
  virtual ~ParallelShared() = default;
  // A new run by `participants` participants (the workers that started, and the
  // leader when it runs its copy): everything is handed out again.
  virtual void reset(int participants) = 0;
};

}  // namespace tp::scans
