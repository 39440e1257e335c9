// `tidepool sql`: the interactive and scripted SQL shell, psql-like.
#pragma once

#include <string>
#include <vector>

namespace tp {

// Runs the shell with the arguments after "sql". Returns the exit code.
int run_sql_shell(const std::vector<std::string>& args);

}  // namespace tp
