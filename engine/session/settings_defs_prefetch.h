// Settings of prefetching: index scans' heap stream and its start, leaf read-ahead,
// the prefetch policy every read stream follows, and nested-loop batching.
// Settings::definitions() lists them after the planner's methods.
#pragma once

#include <vector>

#include "engine/session/settings.h"

namespace tp {

std::vector<SettingDef> prefetch_setting_defs();

}  // namespace tp
