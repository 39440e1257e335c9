// The headline files (<out>/<name>.headlines.tsv) and the report's check table.
#include "tools/experiments/headlines.h"

#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/output.h"

namespace tp::experiments {

namespace {

// A field of the TSV: no tabs or line breaks.
std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == '\t') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string path_of(const std::string& out_dir, const std::string& experiment) {
  return out_dir + "/" + experiment + ".headlines.tsv";
}

}  // namespace

void add_load_reasons(Headline& h, const LoadSummary& load) {
  if (load.busy_runs() > 0)
    h.reasons.push_back("busy machine: " + std::to_string(load.busy_runs()) + " of " +
                        std::to_string(load.runs()) + " intervals with other processes above " +
                        fixed(kBusyOtherCpuPct, 0) + "% of the CPU (at most " +
                        fixed(load.max_other_cpu_pct(), 0) + "%)");
  if (load.max_steal_pct() > 5)
    h.reasons.push_back("the hypervisor stole up to " + fixed(load.max_steal_pct(), 0) +
                        "% of the CPU");
}

void write_headlines(const std::string& out_dir, const std::string& experiment,
                     const std::vector<Headline>& headlines, const LoadSummary& load) {
  const std::string path = path_of(out_dir, experiment);
  std::ofstream out(path, std::ios::trunc);
  out << "claim\tthis_run\treadme\tstatus\treasons\tbusy\n";
  for (Headline h : headlines) {
    add_load_reasons(h, load);
    if (h.measured && !h.holds && h.reasons.empty())
      h.reasons.push_back(
          "none this run can show (no busy interval, no other sign): compare the section's "
          "tables with the README's");
    std::string reasons;
    for (const std::string& r : h.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    const char* status = !h.measured ? "not measured" : h.holds ? "holds" : "does not hold";
    out << field(h.claim) << '\t' << field(h.this_run) << '\t' << field(h.readme) << '\t' << status
        << '\t' << field(reasons) << '\t' << (load.busy_runs() > 0 ? 1 : 0) << '\n';
  }
  if (!out) throw Error("could not write \"" + path + "\"");
}

std::string headline_check(const std::string& out_dir,
                           const std::vector<std::string>& experiments) {
  std::vector<std::vector<std::string>> rows;
  int held = 0, failed = 0, missing = 0;
  for (const std::string& name : experiments) {
    std::ifstream in(path_of(out_dir, name));
    if (!in) continue;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> f = split_tabs(line);
      if (f.size() < 6) continue;
      const std::string& status = f[3];
      const bool busy = f[5] == "1";
      std::string shown = status == "holds"           ? "yes"
                          : status == "does not hold" ? "**no**"
                                                      : "not measured";
      if (busy) shown += " (busy)";
      (status == "holds" ? held : status == "does not hold" ? failed : missing) += 1;
      rows.push_back(
          {name, f[0], f[1] + (busy ? " *" : ""), f[2], shown, status == "holds" ? "" : f[4]});
    }
  }
  if (rows.empty()) return "";
  std::ostringstream md;
  md << "Each claim the README makes from these experiments, with this run's figure: " << held
     << " hold, " << failed << " do not, " << missing << " not measured. "
     << "A figure marked * was measured while other processes took more than "
     << fixed(kBusyOtherCpuPct, 0)
     << "% of the CPU (each section's \"Machine load\" line; the CSVs' `machine_busy`).\n\n"
     << markdown_table({"experiment", "claim", "this run", "README", "holds", "likely reason"},
                       rows, {false, false, true, false, false, false})
     << "\n";
  return md.str();
}

}  // namespace tp::experiments
