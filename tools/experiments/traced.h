// The traced runs of the report: where an article's point is a contrast (index
// prefetching off and on, eic 1 and 64, sync against worker against io_uring), one
// extra cold run of each side with SET io_trace, the files kept in <out>/traces/ for
// Perfetto, and one picture of the sides on one time scale (tools/trace/trace_plot.h).
//
//   TracedContrast c("rpc-prefetch", "...");
//   c.run(lab, "index_prefetch off", {"t"}, "SELECT * FROM t WHERE a <= 20000",
//         {{"index_prefetch", "off"}});
//   md << c.markdown(lab.options().out_dir);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/experiments/lab.h"

namespace tp::experiments {

class TracedContrast {
 public:
  // `name`: the files' stem (<out>/traces/<name>-<side>.json, <out>/<name>-trace.png);
  // `what`: a sentence for the report on what the traced statement is.
  TracedContrast(std::string name, std::string what)
      : name_(std::move(name)), what_(std::move(what)) {}

  using Setting = std::pair<std::string, std::string>;  // (name, value) for SET
  // One cold run of `sql` traced, with `settings` SET for it; they and io_trace get their
  // values back afterwards. A failure is kept for the report, not thrown (a Ctrl-C
  // still is: Stopped).
  void run(Lab& lab, const std::string& side, const std::vector<std::string>& cold_relations,
           const std::string& sql, const std::vector<Setting>& settings);

  // The report's subsection: what was traced, the picture, and per side the time, I/Os,
  // mean depth in flight, p50 latency in flight, largest look-ahead distance and the file.
  // The time is EXPLAIN ANALYZE's Execution Time (writing the trace is not in it).
  std::string markdown(const std::string& out_dir) const;
  bool empty() const { return sides_.empty(); }

 private:
  struct Side {
    std::string label, file, error;  // file relative to out_dir
    double ms = 0;
  };
  std::string name_, what_;
  std::vector<Side> sides_;
};

// "read-streams" -> "read-streams"; "index_prefetch on" -> "index_prefetch-on": a file stem.
std::string file_stem(const std::string& label);

}  // namespace tp::experiments
