// The prefetch-aware cost model's settings (engine/plan/prefetch_cost.h): which model
// prices plans, the device curves and CPU figures `tidepool calibrate` measures.
// Settings::definitions() lists them after PostgreSQL's planner cost constants.
#pragma once

#include <vector>

#include "engine/session/settings.h"

namespace tp {

std::vector<SettingDef> cost_model_setting_defs();

// The device curve settings, one per I/O method and mode: "device_<method>_<direct|buffered>".
std::string device_curve_setting(const std::string& io_method, bool direct);

}  // namespace tp
