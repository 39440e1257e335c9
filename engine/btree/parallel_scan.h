// The leaf position the participants of a parallel index scan share, as nbtree's
// parallel scan keeps it (BTParallelScanDescData: btps_scanPage, btps_pageStatus,
// btps_arrayKeyCount). One participant at a time "advances": it seizes the position,
// reads the one leaf page there with its own IndexScan (descending first when the
// scan has not started), and releases the position after that page (its right link,
// or its left link going backward) before it looks at the page's matches. The others
// wait while it advances, so every leaf is read by exactly one participant; it hands
// the position on as soon as it has the page, so the others go on while it copies the
// page's matches and fetches their heap tuples.
//
// An index scan with an IN list is several primitive scans, one per condition set;
// the participants go through them together: when the one advancing finds primitive
// scan k done, the position moves to the start of k + 1.
//
//   ParallelLeafScan shared(condition_sets.size());          // one per Gather
//   // in each participant:
//   while (auto s = shared.seize()) {
//     if (s->primitive != mine) scan.rescan(condition_sets[mine = s->primitive]);
//     scan.read_one_page(s->position, batch,     // abandon() if it throws before
//                        [&](const LeafPosition& next) { shared.release(next); });
//     use(batch);
//   }
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>

#include "engine/btree/btree_scan.h"

namespace tp::btree {

class ParallelLeafScan {
 public:
  explicit ParallelLeafScan(size_t primitive_scans);
  ParallelLeafScan(const ParallelLeafScan&) = delete;
  ParallelLeafScan& operator=(const ParallelLeafScan&) = delete;

  // The scan from its start again (a rescan), before any participant seizes.
  void reset();

  struct Seized {
    size_t primitive = 0;  // which condition set
    LeafPosition position;
  };
  // Waits while another participant advances, then makes this one the advancer and
  // returns where to read; nullopt once every primitive scan is done.
  std::optional<Seized> seize();
  // The advancer's position after the page it read: the next participant goes on
  // from there (a done position starts the next primitive scan, or ends the scan).
  void release(const LeafPosition& next);
  // The advancer failed (a read error, a cancel): the scan ends for everyone, so no
  // participant waits for a position that will never come.
  void abandon();

  size_t pages_handed_out() const;

 private:
  const size_t primitives_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  size_t primitive_ = 0;
  LeafPosition position_;
  bool advancing_ = false;
  bool done_ = false;
  size_t pages_ = 0;
};

}  // namespace tp::btree
