#include "tools/experiments/traced.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "engine/core/error.h"
#include "tools/trace/trace_data.h"
#include "tools/trace/trace_plot.h"
#include "tools/trace/trace_summary.h"

namespace tp::experiments {

namespace {

// Enough for the traced statements the experiments choose (tens of thousands of I/Os);
// a bigger one is cut, and the report says how much was dropped.
constexpr const char* kTraceEvents = "2000000";

// An error message inside a Markdown table cell.
std::string cell(std::string text) {
  for (char& c : text)
    if (c == '|' || c == '\n') c = ' ';
  return text;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string file_stem(const std::string& label) {
  std::string s;
  for (char c : label) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    if (keep)
      s += c;
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

void TracedContrast::run(Lab& lab, const std::string& side,
                         const std::vector<std::string>& cold_relations, const std::string& sql,
                         const std::vector<Setting>& settings) {
  const std::string& out = lab.options().out_dir;
  Side s{side, "traces/" + name_ + "-" + file_stem(side) + ".json", "", 0};
  // What the experiment had set comes back afterwards, whatever happens.
  std::vector<Setting> saved;
  for (const auto& [name, value] : settings)
    saved.emplace_back(name, lab.session().settings().show(name));
  for (const char* name : {"io_trace", "io_trace_max_events"})
    saved.emplace_back(name, lab.session().settings().show(name));
  auto restore = [&] {
    for (const auto& [name, value] : saved)
      lab.session().execute("SET " + name + " = '" + value + "'");
  };
  try {
    std::filesystem::create_directories(out + "/traces");
    for (const auto& [name, value] : settings) lab.sql("SET " + name + " = " + value);
    lab.sql("SET io_trace_max_events = " + std::string(kTraceEvents));
    // An earlier run's file is replaced (tidepool wrote it); the engine refuses any other.
    lab.sql("SET io_trace = '" + out + "/" + s.file + "'");
    lab.make_cold(cold_relations);
    // EXPLAIN ANALYZE's Execution Time: the statement's wall time would include writing
    // the trace file.
    s.ms = lab.timed("EXPLAIN (ANALYZE, BUFFERS) " + sql).execution_ms;
  } catch (const Stopped&) {
    restore();
    throw;
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  restore();
  sides_.push_back(std::move(s));
}

std::string TracedContrast::markdown(const std::string& out_dir) const {
  if (sides_.empty()) return "";
  std::string md = "#### Traced: " + what_ + "\n\n";
  std::vector<trace::TraceData> traces;
  std::vector<std::string> titles;
  std::string table =
      "| side | time ms | I/Os | blocks read | mean I/Os in flight | p50 in flight us | max "
      "look-ahead (heap) | trace (Perfetto) |\n|---|---|---|---|---|---|---|---|\n";
  for (const Side& s : sides_) {
    if (!s.error.empty()) {
      table += "| " + s.label + " | failed: " + cell(s.error) + " | | | | | | |\n";
      continue;
    }
    try {
      trace::TraceData t = trace::load_trace(out_dir + "/" + s.file);
      std::vector<double> flight = trace::in_flight_latencies(t);
      double distance = 0, leaves = 0;
      // The data's streams; the B-tree leaves' read-ahead only when there is no other.
      for (const auto& [name, samples] : t.counters) {
        if (name.rfind("look-ahead distance", 0) != 0) continue;
        double& best = name.find("index leaves") != std::string::npos ? leaves : distance;
        for (const auto& [ts, v] : samples) best = std::max(best, v);
      }
      if (distance == 0) distance = leaves;
      table += "| " + s.label + " | " + fixed(s.ms, 1) + " | " + std::to_string(t.ios.size()) +
               (t.ios_dropped ? " (+" + std::to_string(t.ios_dropped) + " dropped)" : "") + " | " +
               std::to_string(trace::blocks_read(t)) + " | " + fixed(trace::mean_in_flight(t), 2) +
               " | " + fixed(trace::percentile(flight, 50), 0) + " | " + fixed(distance, 0) +
               " | `" + s.file + "` |\n";
      titles.push_back(s.label + ": " + fixed(s.ms, 1) + " ms");
      traces.push_back(std::move(t));
    } catch (const Error& e) {
      table += "| " + s.label + " | trace unreadable: " + cell(e.what()) + " | | | | | | |\n";
    }
  }
  if (!traces.empty()) {
    std::vector<trace::PlotPanel> panels;
    for (size_t i = 0; i < traces.size(); ++i) panels.push_back({&traces[i], titles[i]});
    const std::string png = name_ + "-trace.png";
    try {
      trace::plot_traces(panels, out_dir + "/" + png);
      md += "![" + what_ + "](" + png + ")\n\n";
    } catch (const Error& e) {
      md += "> Trace picture not drawn: " + std::string(e.what()) + "\n\n";
    }
  }
  md += table +
        "\nOne extra cold run per side with `SET io_trace`; open the files in ui.perfetto.dev, "
        "or run `tidepool trace summary FILE`.\n\n";
  return md;
}

}  // namespace tp::experiments
