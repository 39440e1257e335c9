// Running gnuplot on a script, for the experiments' charts and the trace timelines.
#pragma once

#include <string>

namespace tp::trace {

// A gnuplot double-quoted string holding `s`.
std::string gnuplot_quoted(const std::string& s);

// Runs `gnuplot SCRIPT`. Throws tp::Error starting with `what` when gnuplot is missing
// (with a hint naming the package) or fails (with its output).
void run_gnuplot(const std::string& script_path, const std::string& what);

}  // namespace tp::trace
