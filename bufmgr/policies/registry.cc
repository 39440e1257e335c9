// The prefetch policies `prefetch_policy` may name. Adding one: its .cc file in this
// folder (and in bufmgr/CMakeLists.txt), its factory's declaration and one line in the
// list below.
#include <memory>

#include "bufmgr/prefetch_policy.h"

namespace tp::bufmgr {

std::unique_ptr<PrefetchPolicy> make_pg18_policy(const PolicySettings& settings);
std::unique_ptr<PrefetchPolicy> make_fixed_policy(const PolicySettings& settings);
std::unique_ptr<PrefetchPolicy> make_delayed_start_policy(const PolicySettings& settings);
std::unique_ptr<PrefetchPolicy> make_cache_aware_policy(const PolicySettings& settings);
std::unique_ptr<PrefetchPolicy> make_example_linear_policy(const PolicySettings& settings);
std::unique_ptr<PrefetchPolicy> make_rescan_aware_policy(const PolicySettings& settings);

namespace {

std::unique_ptr<PrefetchPolicy> make_tidepool_policy(const PolicySettings& /*settings*/) {
  return std::make_unique<TidepoolPolicy>();
}

}  // namespace

const std::vector<PrefetchPolicyDef>& prefetch_policies() {
  static const std::vector<PrefetchPolicyDef> defs = {
      {kDefaultPrefetchPolicy, "grow on wait, hold-off before decay, start after 4 switches",
       make_tidepool_policy},
      {"pg18", "PostgreSQL 18: double per read consumed, -1 per hit, start at once",
       make_pg18_policy},
      {"fixed", "prefetch_fixed_distance buffers throughout (0: max_pinned), start at once",
       make_fixed_policy},
      {"delayed_start", "patch 4351: pg18's distances, start after 4 heap-block switches",
       make_delayed_start_policy},
      {"cache_aware", "distance = max_ios x blocks per read in the last 64, start after 4 reads",
       make_cache_aware_policy},
      {"rescan_aware",
       "tidepool's distances, start after 4 reads; a rescan starts at once at the last distance",
       make_rescan_aware_policy},
      {"example_linear", "the README's walkthrough: +io_combine_limit per wait, -1 per 8 hits",
       make_example_linear_policy},
  };
  return defs;
}

const PrefetchPolicyDef* find_prefetch_policy(std::string_view name) {
  for (const PrefetchPolicyDef& d : prefetch_policies())
    if (name == d.name) return &d;
  return nullptr;
}

std::vector<std::string> prefetch_policy_names() {
  std::vector<std::string> names;
  for (const PrefetchPolicyDef& d : prefetch_policies()) names.emplace_back(d.name);
  return names;
}

}  // namespace tp::bufmgr
