#include "engine/session/settings_defs_statements.h"

namespace tp {

std::vector<SettingDef> statement_setting_defs() {
  return {
      {"plan_cache_mode",
       SettingType::kEnum,
       SettingUnit::kNone,
       0,
       0,
       "auto",
       {"auto", "force_custom_plan", "force_generic_plan"},
       "Controls the planner's selection of custom or generic plan for a prepared statement "
       "with parameters: auto plans the first five executions with their values, then keeps "
       "the generic plan (the parameters read when it runs) when it costs less than the "
       "custom plans did on average, planning included.",
       "Query Tuning / Other Planner Options"},
  };
}

}  // namespace tp
