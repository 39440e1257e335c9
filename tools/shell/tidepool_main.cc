// The tidepool command: `tidepool sql ...` (the SQL shell), `tidepool serve
// ...` (PostgreSQL's wire protocol, tools/server/), `tidepool check
// ...` (verify a data directory), `tidepool calibrate ...` (measure this machine for the
// cost model, tools/calibrate/) and `tidepool experiment ...` (the articles'
// experiments, tools/experiments/) and `tidepool trace ...` (an I/O trace
// summarised or drawn, tools/trace/).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/calibrate/calibrate.h"
#include "tools/check/check.h"

#include "tools/experiments/experiments.h"
#include "tools/labs/labs.h"
#include "tools/server/password_file.h"
#include "tools/server/serve_command.h"
#include "tools/shell/shell.h"
#include "tools/trace/trace_command.h"

namespace {

const char* kUsage =
    "tidepool: a small storage engine for studying how databases read data\n"
    "Usage:\n"
    "  tidepool sql [-D DIR] [-c SQL | -f FILE] [-A] [-t] [--set NAME=VALUE]...\n"
    "  tidepool serve [-D DIR] [--port 5433] [--listen ADDR] [--max-connections N]\n"
    "                 [--password-file FILE] [--set NAME=VALUE]...  serve DIR to psql and\n"
    "                 other PostgreSQL clients\n"
    "  tidepool passwd FILE USER [--delete]   set a user's password in a password file\n"
    "  tidepool check [-D DIR]        verify every relation of a data directory\n"
    "  tidepool calibrate [-D DIR] [--seconds S] [--file-mb N] [--methods L] [--dry-run]\n"
    "                 measure the device and CPU costs, write them to DIR/tidepool.conf\n"
    "  tidepool experiment NAME [--rows N] [--data DIR] [--out DIR] [--repeat K] [--set N=V]...\n"
    "  tidepool trace summary FILE    what an io_trace file shows, in text\n"
    "  tidepool trace plot FILE... [--out PNG]   its timeline picture (gnuplot)\n"
    "  tidepool lab NAME|list [--rows N] [--data DIR] [--out DIR] [--http PORT]\n"
    "                 guided exercises (--http: watch the pool live in a browser)\n"
    "  tidepool help\n"
    "Run `tidepool sql --help`, `tidepool serve --help`, `tidepool check --help`,\n"
    "`tidepool calibrate --help`, `tidepool experiment --help`, `tidepool lab --help` or\n"
    "`tidepool trace --help` for their options.\n";

}  // namespace

int main(int argc, char** argv) {
  tp::install_cancel_handler();  // first: a Ctrl-C during startup must not kill the process
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (std::strcmp(argv[1], "sql") == 0) return tp::run_sql_shell(rest);
  if (std::strcmp(argv[1], "serve") == 0) return tp::server::run_serve_command(rest);
  if (std::strcmp(argv[1], "passwd") == 0)
    return tp::server::run_passwd_command(rest, std::cin, std::cout, std::cerr);
  if (std::strcmp(argv[1], "check") == 0) return tp::run_check_command(rest, std::cout, std::cerr);
  if (std::strcmp(argv[1], "calibrate") == 0)
    return tp::calibrate::run_calibrate_command(rest, std::cout, std::cerr);
  if (std::strcmp(argv[1], "experiment") == 0) return tp::experiments::run_experiment_command(rest);
  if (std::strcmp(argv[1], "trace") == 0)
    return tp::trace::run_trace_command(rest, std::cout, std::cerr);
  if (std::strcmp(argv[1], "lab") == 0)
    return tp::labs::run_lab_command(rest, std::cout, std::cerr);
  std::fprintf(stderr, "tidepool: unknown command \"%s\"\n%s", argv[1], kUsage);
  return 2;
}
