#include "engine/session/settings_defs_prefetch.h"

#include "bufmgr/prefetch_policy.h"

namespace tp {

std::vector<SettingDef> prefetch_setting_defs() {
  return {
      {"index_prefetch",
       SettingType::kEnum,
       SettingUnit::kNone,
       0,
       0,
       "off",
       {"off", "on", "immediate"},
       "Index scans read heap pages ahead through a read stream fed from a ring of leaf "
       "batches (PostgreSQL patch 4351's idea): on starts it after the scan switched heap "
       "blocks 4 times, immediate at once; off reads them one at a time as PostgreSQL does.",
       "Query Tuning / Planner Method Configuration"},
      {"index_leaf_readahead",
       SettingType::kBool,
       SettingUnit::kNone,
       0,
       1,
       "on",
       {},
       "Index scans and bitmap index scans that will read many leaf pages read them ahead "
       "through a read stream fed from the parent level's downlinks (tidepool's own; off "
       "reads one leaf at a time, as PostgreSQL does).",
       "Query Tuning / Planner Method Configuration"},
      {"prefetch_policy", SettingType::kEnum, SettingUnit::kNone, 0, 0,
       bufmgr::kDefaultPrefetchPolicy, bufmgr::prefetch_policy_names(),
       "How read streams decide how far to read ahead and when an index scan starts its "
       "stream (bufmgr/prefetch_policy.h): tidepool grows on waits with a hold-off, pg18 is "
       "PostgreSQL 18's heuristic, fixed keeps prefetch_fixed_distance, delayed_start is "
       "patch 4351's start rule, cache_aware sizes the distance from recent misses, "
       "rescan_aware carries a rescanned index scan's distance over and stops at a LIMIT's "
       "rows.",
       "Query Tuning / Planner Method Configuration"},
      {"nestloop_prefetch",
       SettingType::kBool,
       SettingUnit::kNone,
       0,
       1,
       "off",
       {},
       "A Nested Loop whose inner side is a parameterized Index Scan looks up "
       "nestloop_prefetch_rows outer rows ahead in the inner index and reads their heap "
       "pages through one read stream before it joins them (nested-loop batching; not in "
       "PostgreSQL). Rows come out in the same order.",
       "Query Tuning / Planner Method Configuration"},
      {"nestloop_prefetch_rows",
       SettingType::kInt,
       SettingUnit::kNone,
       1,
       1024,
       "32",
       {},
       "How many outer rows ahead nestloop_prefetch looks up (within the outer side's batch "
       "of rows).",
       "Query Tuning / Planner Method Configuration"},
      {"prefetch_fixed_distance",
       SettingType::kInt,
       SettingUnit::kNone,
       0,
       32768,
       "0",
       {},
       "The distance, in buffers, of prefetch_policy = fixed (0: as far as the stream may "
       "pin).",
       "Query Tuning / Planner Method Configuration"},
  };
}

}  // namespace tp
