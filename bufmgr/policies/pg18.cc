// `pg18`: PostgreSQL 18's read_stream.c distance heuristic, as its notes describe it.
//
// One distance, starting at 1: it doubles each time the consumer reaches a read,
// whether or not it had to wait (PostgreSQL 18 cannot tell a page-cache hit from a
// device read), and every block found in the pool lowers it by one, with no hold-off.
// PostgreSQL 19 grows only on real waits and keeps a separate "combine distance" for
// how large a pending read may grow; tidepool has one distance for both, as PostgreSQL 18
// does, so this policy models 18 exactly on that point. PostgreSQL 18 has no index
// prefetching; its streams start with their scan, so index scans start at once here.
#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

namespace {

class Pg18Policy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "pg18"; }
  int on_hit(int distance) override { return distance - 1; }
  int on_read_consumed(int distance, bool /*waited*/) override { return distance * 2; }
  bool should_start(const IndexStartInfo& /*info*/) const override { return true; }
};

}  // namespace

std::unique_ptr<PrefetchPolicy> make_pg18_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<Pg18Policy>();
}

}  // namespace tp::bufmgr
