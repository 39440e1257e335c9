#include "tests/support/paths.h"

namespace tp::testing {

std::string source_dir() { return TIDEPOOL_SOURCE_DIR; }

std::string tidepool_binary() { return TIDEPOOL_BINARY; }

}  // namespace tp::testing
