// `example_linear`: the walkthrough's policy (bufmgr/README.md, "Try your own
// prefetch idea"). Additive increase: each read the consumer had to wait for adds
// io_combine_limit buffers (one more full-size read ahead), and every 8th hit takes
// one away, so it climbs more slowly than doubling and forgets more slowly too. The
// index-scan start is the interface's default (after 4 heap-block switches).
#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class ExampleLinearPolicy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "example_linear"; }
  int on_hit(int distance) override { return ++hits_ % 8 == 0 ? distance - 1 : distance; }
  int on_read_consumed(int distance, bool waited) override {
    return waited ? distance + limits_.io_combine_limit : distance;
  }

 private:
  unsigned hits_ = 0;
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_example_linear_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<ExampleLinearPolicy>();
}

}  // namespace tp::bufmgr
