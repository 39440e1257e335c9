// `tidepool serve -D DIR [--port N] [--listen ADDR]... [--max-connections N]
// [--set NAME=VALUE]...`: the command line around Server (server.h), with
// SIGTERM / SIGINT as a graceful stop.
#pragma once

#include <string>
#include <vector>

namespace tp::server {

// Runs the server with the arguments after "serve" until SIGTERM or SIGINT.
// Returns the exit code: 0 after a graceful stop, 1 when the data directory or
// an address cannot be used, 2 for a bad option.
int run_serve_command(const std::vector<std::string>& args);

}  // namespace tp::server
