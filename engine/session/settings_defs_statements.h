// Settings of prepared statements (engine/session/plan_cache.h): how a statement's
// plan is chosen across its executions. Settings::definitions() lists them after the
// planner's.
#pragma once

#include <vector>

#include "engine/session/settings.h"

namespace tp {

std::vector<SettingDef> statement_setting_defs();

}  // namespace tp
