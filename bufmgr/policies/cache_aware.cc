// `cache_aware`: a distance sized from how many of the recent blocks needed a read.
//
// The distance counts buffers, but the device sees reads. In a table that is half in
// the pool, half of the buffers a stream pins ahead cost no I/O, so keeping
// max_ios reads in flight takes twice the distance; in a cold random scan each read
// is one block and max_ios buffers ahead already fill every read slot, so pinning
// more (tidepool grows to max_pinned, up to 17x that) buys nothing. This policy
// keeps the last 64 blocks' history in two bit masks (which blocks needed a read,
// which began one) and aims at
//
//   target = max_ios x (blocks seen / reads begun)    (1 when nothing was read)
//
// the distance that holds max_ios reads of the recent shape. It doubles towards the
// target on each wait, as tidepool does, never above it; hits lower it by one only
// while it is above the target, so a few cached blocks between misses do not shrink
// a look-ahead the misses still need. Index scans start their stream after
// kDefaultStartSwitches heap blocks that had to be read, not switches: a lookup
// whose heap pages are cached never builds a stream.
#include <algorithm>
#include <bit>

#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class CacheAwarePolicy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "cache_aware"; }
  int initial_distance(const PrefetchLimits& limits) override {
    limits_ = limits;
    begun_ = 0;
    seen_ = 0;
    return 1;
  }
  int on_read_started(int distance, int nblocks) override {
    const int n = std::clamp(nblocks, 1, 64);
    // Newest block in bit 0; the read's first block is the oldest of its n.
    begun_ = (n == 64 ? 0 : begun_ << n) | (uint64_t(1) << (n - 1));
    seen_ = std::min(64, seen_ + n);
    return distance;
  }
  int on_hit(int distance) override {
    begun_ <<= 1;
    seen_ = std::min(64, seen_ + 1);
    return distance > target() ? distance - 1 : distance;
  }
  int on_read_consumed(int distance, bool waited) override {
    const int t = target();
    return waited && distance < t ? std::min(t, distance * 2) : distance;
  }
  bool should_start(const IndexStartInfo& info) const override {
    return info.heap_reads >= kDefaultStartSwitches;
  }

 private:
  int target() const {
    const int reads = std::popcount(begun_);
    if (reads == 0) return 1;
    return (limits_.max_ios * seen_ + reads - 1) / reads;
  }

  uint64_t begun_ = 0;  // bit i: the block i blocks back began a read
  int seen_ = 0;        // blocks in the history, at most 64
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_cache_aware_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<CacheAwarePolicy>();
}

}  // namespace tp::bufmgr
