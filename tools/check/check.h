// `tidepool check -D DIR`: verifies every relation of a data directory and
// reports each problem on one line naming the relation and the block.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tp {

// Runs the check with the arguments after "check"; report lines go to `out`,
// usage and open errors to `err`. Returns the exit code: 0 clean, 1 damage
// found (or the directory could not be opened), 2 usage error.
int run_check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tp
