// `tidepool check -D DIR`: verifies every relation of a data directory and
// reports each problem on one line naming the relation and the block.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tp {

// Runs the check with the arguments after "check"; report lines go to `out`,
// usage and open errors to `err`. Returns the exit code: 0 clean; 1 damage
// found, the directory could not be opened, or Ctrl-C stopped the check; 2 a
// usage error or no such directory.
int run_check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tp
