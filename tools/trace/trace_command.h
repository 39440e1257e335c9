// `tidepool trace summary FILE` and `tidepool trace plot FILE... [--out PNG]`
// (tools/trace/README.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tp::trace {

// Returns the exit status: 0, 1 when the trace or the picture failed, 2 for bad usage.
int run_trace_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tp::trace
