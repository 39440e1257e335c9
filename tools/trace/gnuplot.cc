#include "tools/trace/gnuplot.h"

#include <cstdio>

#include "engine/core/error.h"

namespace tp::trace {

std::string gnuplot_quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

void run_gnuplot(const std::string& script_path, const std::string& what) {
  std::string quoted_path = "'";
  for (char c : script_path) quoted_path += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string command = "gnuplot " + quoted_path + "' 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) throw Error(what + ": could not run gnuplot");
  std::string output;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) output += buf;
  const int status = ::pclose(p);
  if (status != 0) {
    if (status == 127 * 256 || output.find("not found") != std::string::npos)
      throw Error(what + ": gnuplot is not installed", "",
                  "install the gnuplot-nox package (tools/install-deps does)");
    throw Error(what + ": gnuplot failed: " + output);
  }
}

}  // namespace tp::trace
