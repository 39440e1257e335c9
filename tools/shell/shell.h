// `tidepool sql`: the interactive and scripted SQL shell, psql-like.
#pragma once

#include <string>
#include <vector>

namespace tp {

// Makes Ctrl-C (SIGINT) set cancel_requested() (engine/core/interrupts.h) instead of
// ending the process. main() calls it before anything else so that a Ctrl-C
// during startup is never fatal; run_sql_shell() calls it too. Idempotent.
void install_cancel_handler();

// Runs the shell with the arguments after "sql". Returns the exit code. In a
// script (-c, -f, piped input) a Ctrl-C that came while no statement ran (during
// startup, between statements) stops the run before its next statement, as psql does.
int run_sql_shell(const std::vector<std::string>& args);

}  // namespace tp
