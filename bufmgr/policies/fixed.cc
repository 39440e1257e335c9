// `fixed`: one distance from the first block to the last, `prefetch_fixed_distance`
// buffers (0: max_pinned, as far as the stream may pin). The baseline that every
// adaptive policy must beat: no ramp-up to pay, no decay, and every buffer it reads
// ahead of an early stop (LIMIT) is wasted. Index scans start their stream at once.
#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class FixedPolicy final : public PrefetchPolicy {
 public:
  explicit FixedPolicy(int distance) : distance_(distance) {}
  const char* name() const override { return "fixed"; }
  int initial_distance(const PrefetchLimits& limits) override {
    limits_ = limits;
    return distance_ > 0 ? distance_ : limits.max_pinned;
  }
  int on_hit(int distance) override { return distance; }
  int on_read_consumed(int distance, bool /*waited*/) override { return distance; }
  bool should_start(const IndexStartInfo& /*info*/) const override { return true; }

 private:
  int distance_;
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_fixed_policy(const PolicySettings& settings) {
  return std::make_unique<FixedPolicy>(settings.fixed_distance);
}

}  // namespace tp::bufmgr
