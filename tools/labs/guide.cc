// The Guide: how a lab prints its steps, and the few readers of EXPLAIN, pg_buffercache
// and I/O trace output the labs share.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "tools/labs/labs.h"
#include "tools/shell/psql_format.h"
#include "tools/trace/trace_data.h"
#include "tools/trace/trace_plot.h"

namespace tp::labs {

Guide::Guide(experiments::Lab& lab, std::ostream& out, uint64_t rows)
    : lab_(lab), out_(out), rows_(rows) {}

void Guide::table(const experiments::TableSpec& spec) {
  out_ << "Setup: table " << spec.name << " (" << spec.rows
       << " rows; kept in the data directory and reused by the next run):\n";
  for (const std::string& s : spec.setup) out_ << "  " << s << ";\n";
  lab_.ensure_table(spec);
}

void Guide::step(const std::string& heading) {
  pause();
  out_ << "\n== Step " << ++step_ << ": " << heading << "\n";
}

void Guide::pause() const {
  if (pause_ms_ <= 0) return;
  out_.flush();
  std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms_));
}

ResultSet Guide::run(const std::string& sql) {
  out_ << "tidepool=> " << sql << ";\n";
  ResultSet r = lab_.sql(sql);
  for (const std::string& n : r.notices) out_ << "NOTICE:  " << n << "\n";
  for (const std::string& w : r.warnings) out_ << "WARNING:  " << w << "\n";
  out_ << format_result(r, PrintOptions{});
  out_.flush();
  return r;
}

void Guide::set(const std::vector<std::string>& statements) {
  for (const std::string& s : statements) {
    out_ << "tidepool=> " << s << ";\n";
    lab_.sql(s);
  }
}

void Guide::cold(const std::vector<std::string>& relations) {
  lab_.make_cold(relations);
  if (lab_.session().settings().get_bool("io_direct")) {
    out_ << "(cold run: the lab emptied the buffer pool; with io_direct = on reads bypass the "
            "OS page cache)\n";
    return;
  }
  out_ << "(cold run: the lab emptied the buffer pool and dropped";
  for (size_t i = 0; i < relations.size(); ++i) out_ << (i ? ", " : " ") << relations[i];
  out_ << " from the OS page cache)\n";
}

uint64_t Guide::relation_pages(const std::string& relation) {
  ResultSet r = run("SELECT pg_relation_size('" + relation + "')");
  return std::strtoull(r.rows.at(0).at(0).c_str(), nullptr, 10) / 8192;
}

void Guide::look_at(const std::string& text) {
  out_ << "Look at: " << text << "\n";
}

void Guide::note(const std::string& text) {
  out_ << text << "\n";
}

Guide::BufferCounts Guide::buffer_counts(const std::string& relation) {
  const std::string sql =
      "SELECT usagecount FROM pg_buffercache WHERE relation = '" + relation + "'";
  out_ << "tidepool=> " << sql << ";\n";
  ResultSet r = lab_.sql(sql);
  BufferCounts c;
  for (const auto& row : r.rows) {
    ++c.buffers;
    int u = std::atoi(row.at(0).c_str());
    if (u >= 0 && u <= 5) ++c.by_usage[u];
  }
  out_ << "(" << c.buffers << " rows; counted by the lab, since tidepool's views take no "
       << "aggregates) buffers of " << relation << ": " << c.buffers << "; by usagecount:";
  for (int u = 0; u <= 5; ++u)
    if (c.by_usage[u]) out_ << " " << u << ": " << c.by_usage[u];
  out_ << "\n";
  return c;
}

std::string explain_line(const ResultSet& explain, const std::string& what) {
  for (const auto& row : explain.rows)
    if (!row.empty() && row[0].find(what) != std::string::npos) return row[0];
  return "";
}

double number_after(const std::string& line, const std::string& key) {
  size_t at = line.find(key);
  if (at == std::string::npos) return 0;
  return std::strtod(line.c_str() + at + key.size(), nullptr);
}

std::vector<std::pair<std::string, int>> trace_syscalls_by_thread(const std::string& path) {
  const trace::TraceData t = trace::load_trace(path);
  std::map<int64_t, int> calls;
  for (const trace::TraceSlice& s : t.slices)
    if (s.kind == trace::SliceKind::kSyscall) ++calls[s.tid];
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [tid, n] : calls) out.emplace_back(t.thread_name(tid), n);
  return out;
}

void Guide::picture(const std::vector<std::string>& traces, const std::vector<std::string>& titles,
                    const std::string& png) {
  try {
    std::vector<trace::TraceData> data;
    for (const std::string& path : traces) data.push_back(trace::load_trace(path));
    std::vector<trace::PlotPanel> panels;
    for (size_t i = 0; i < data.size(); ++i)
      panels.push_back({&data[i], i < titles.size() ? titles[i] : std::string()});
    trace::plot_traces(panels, png);
    note("Picture: " + png +
         " (tidepool trace plot drew it; open the .json files at "
         "ui.perfetto.dev to zoom in)");
  } catch (const Error& e) {
    note(std::string("No picture: ") + e.what());
  }
}

}  // namespace tp::labs
