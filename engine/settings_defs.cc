// Every setting tidepool accepts. A setting is added here together with the
// code that honours it; nothing listed here is ignored.
#include "engine/settings.h"

namespace tp {

const std::vector<SettingDef>& Settings::definitions() {
  static const std::vector<SettingDef> defs = {
      {"random_seed",
       SettingType::Int,
       SettingUnit::None,
       0,
       2147483647,
       "0",
       {},
       "Seed of random() and ORDER BY random(); each statement starts from it unless setseed() "
       "was called.",
       "Developer Options"},
  };
  return defs;
}

}  // namespace tp
