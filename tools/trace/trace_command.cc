#include "tools/trace/trace_command.h"

#include "engine/core/error.h"
#include "tools/trace/trace_data.h"
#include "tools/trace/trace_plot.h"
#include "tools/trace/trace_summary.h"

namespace tp::trace {

namespace {

const char* kUsage =
    "Usage:\n"
    "  tidepool trace summary FILE\n"
    "      I/Os by size and method, latency percentiles, how many I/Os were in flight for\n"
    "      how long, each read stream's look-ahead distance, and per thread the time in\n"
    "      system calls, completions, waits and the rest\n"
    "  tidepool trace plot FILE... [--out PNG] [--title TEXT]...\n"
    "      a timeline picture: I/Os in flight and look-ahead distance above, one lane per\n"
    "      thread with its I/Os below; several files are drawn one above the other on one\n"
    "      time scale (default PNG: the first FILE with .png for .json; its gnuplot script\n"
    "      and data are written beside it)\n"
    "FILE is what SET io_trace = 'FILE' wrote; Perfetto (ui.perfetto.dev) opens it too.\n";

std::string default_png(const std::string& trace) {
  const std::string ext = ".json";
  if (trace.size() > ext.size() && trace.compare(trace.size() - ext.size(), ext.size(), ext) == 0)
    return trace.substr(0, trace.size() - ext.size()) + ".png";
  return trace + ".png";
}

int plot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files, titles;
  std::string png;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--out" || args[i] == "--title") {
      if (i + 1 >= args.size()) {
        err << "tidepool trace plot: " << args[i] << " needs a value\n" << kUsage;
        return 2;
      }
      const bool out_option = args[i] == "--out";
      const std::string& value = args[++i];
      if (out_option)
        png = value;
      else
        titles.push_back(value);
    } else if (args[i].rfind("--", 0) == 0) {
      err << "tidepool trace plot: unknown option \"" << args[i] << "\"\n" << kUsage;
      return 2;
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.empty()) {
    err << "tidepool trace plot: name the trace file(s) to draw\n" << kUsage;
    return 2;
  }
  if (png.empty()) png = default_png(files[0]);
  for (const std::string& f : files)
    if (f == png) {
      err << "tidepool trace plot: --out \"" << png << "\" is one of the traces\n";
      return 2;
    }
  std::vector<TraceData> traces;
  for (const std::string& f : files) traces.push_back(load_trace(f));
  std::vector<PlotPanel> panels;
  for (size_t i = 0; i < traces.size(); ++i)
    panels.push_back({&traces[i], i < titles.size() ? titles[i] : std::string()});
  plot_traces(panels, png);
  out << "wrote " << png << "\n";
  return 0;
}

}  // namespace

int run_trace_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  try {
    if (args[0] == "summary") {
      if (args.size() != 2) {
        err << "tidepool trace summary: name one trace file\n" << kUsage;
        return 2;
      }
      out << trace_summary(load_trace(args[1]));
      return 0;
    }
    if (args[0] == "plot") return plot(args, out, err);
  } catch (const Error& e) {
    err << "tidepool trace: " << e.what() << "\n";
    if (!e.hint().empty()) err << "HINT: " << e.hint() << "\n";
    return 1;
  }
  err << "tidepool trace: unknown subcommand \"" << args[0] << "\"\n" << kUsage;
  return 2;
}

}  // namespace tp::trace
