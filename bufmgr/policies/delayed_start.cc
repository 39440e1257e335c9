// `delayed_start`: PostgreSQL patch 4351's start rule on PostgreSQL 18's distances.
//
// The index scan reads its first heap blocks one at a time and creates the stream
// only after it switched heap blocks kDefaultStartSwitches (4) times, so a LIMIT 1
// lookup pays nothing for prefetching. The distance then follows `pg18`. Compared
// with `pg18` it isolates the start rule; compared with `tidepool` (the same start,
// growth on waits with a hold-off) it isolates the distance heuristic.
#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class DelayedStartPolicy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "delayed_start"; }
  int on_hit(int distance) override { return distance - 1; }
  int on_read_consumed(int distance, bool /*waited*/) override { return distance * 2; }
  bool should_start(const IndexStartInfo& info) const override {
    return info.block_switches >= kDefaultStartSwitches;
  }
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_delayed_start_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<DelayedStartPolicy>();
}

}  // namespace tp::bufmgr
