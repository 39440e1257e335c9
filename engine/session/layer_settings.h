// The settings each layer below the session reads, turned into the plain
// values those layers take: storage/ gets a StorageConfig, the planner a
// PlannerSettings, every scan a ReadStreamConfig. The layers below never look
// a setting up by name, so they do not depend on the settings registry.
#pragma once

#include "aio/aio.h"
#include "bufmgr/read_stream.h"
#include "engine/plan/plan_context.h"
#include "engine/session/settings.h"
#include "engine/storage/storage.h"

namespace tp {

aio::IoConfig io_config(const Settings& settings);
StorageConfig storage_config(const Settings& settings);
bufmgr::ReadStreamConfig stream_config(const Settings& settings);
// Throws tp::Error when the cost settings are inconsistent (CostSettings::validate).
PlannerSettings planner_settings(const Settings& settings);

}  // namespace tp
