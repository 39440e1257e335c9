// `rescan_aware`: an index scan rescanned for every outer row (the inner side of a
// Nested Loop) learns from its earlier runs instead of starting cold each time.
//
// Without it, each run is a new scan: its stream starts at distance 1 after 4 heap-block
// switches, so a lookup that touches 10 scattered cold blocks reads them one at a time,
// and the next lookup starts from nothing again (patch 4351's rescan problem). This
// policy keeps, across runs, a running mean of the heap blocks each run had to read
// and the distance the last run reached:
//
//   - while runs read at least 2 blocks on average, the next run starts its stream at
//     once (there is more than one read to overlap), at the larger of the distance the
//     last run ended with and the mean reads per run; a run that had no stream hands on
//     half of the distance carried so far, so a carried distance decays while lookups
//     stay cached;
//   - runs reading under 2 blocks (a one-row lookup, a LIMIT 1 inner) start as a first
//     run does.
//
// Runs cut short (a semi-join inner stops at its first match) start at once too: their
// look-ahead is bounded by the entries a row has taken over all the runs so far (the
// scan's LIMIT bound, which learns across rescans), so a lookup that takes 3 entries to
// find its match on average has its first 3 blocks in flight together, not one by one.
//
// A first run starts its stream after 4 heap blocks that had to be read (`cache_aware`'s
// rule), not 4 switches: a scan whose heap pages are all in the pool never builds a
// stream, which would cost it time for nothing (the `limit` experiment's cached LIMIT
// 1024 runs at 0.74x of prefetching off under `tidepool`); a one-row lookup pays nothing.
//
// Under a LIMIT the look-ahead stops at the index entries the LIMIT's remaining rows
// may take (bounded_by_limit), so a LIMIT 16 has no read in flight past its 16th row
// when it stops, where the other policies leave up to a distance's worth that the scan
// must wait for before it ends.
//
// Within a run the distance is `tidepool`'s: doubled on each wait, a hold-off of
// max_pinned hits after a read, then -1 per hit.
#include <algorithm>

#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class RescanAwarePolicy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "rescan_aware"; }
  // Within a run: `tidepool`'s distances, by delegation.
  int initial_distance(const PrefetchLimits& limits) override {
    limits_ = limits;
    return within_run_.initial_distance(limits);
  }
  int on_hit(int distance) override { return within_run_.on_hit(distance); }
  int on_read_consumed(int distance, bool waited) override {
    return within_run_.on_read_consumed(distance, waited);
  }
  bool should_start(const IndexStartInfo& info) const override {
    return (info.rescans > 0 && start_at_once_) || info.heap_reads >= kDefaultStartSwitches;
  }
  bool bounded_by_limit() const override { return true; }
  int on_rescan(const RescanInfo& last) override {
    // Reads per run, in sixteenths, a mean over about the last four runs.
    reads16_ = (reads16_ * 3 + last.heap_reads * 16) / 4;
    carried_ = last.distance > 0 ? last.distance : carried_ / 2;
    start_at_once_ = reads16_ >= 2 * 16;
    within_run_.initial_distance(limits_);  // a new run: no hold-off left from the last
    return start_at_once_ ? std::max(carried_, (reads16_ + 15) / 16) : std::max(1, carried_);
  }

 private:
  TidepoolPolicy within_run_;
  int reads16_ = 0;  // heap blocks read per run, x16
  int carried_ = 0;  // the distance handed from run to run
  bool start_at_once_ = false;
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_rescan_aware_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<RescanAwarePolicy>();
}

}  // namespace tp::bufmgr
