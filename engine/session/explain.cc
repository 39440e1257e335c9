#include "engine/session/explain.h"

#include <cstdio>
#include <optional>

#include "scans/append.h"

namespace tp {
namespace {

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string cost_text(const scans::ExecNode& n) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  (cost=%.2f..%.2f rows=%.0f width=%d)", n.estimate.startup_cost,
                n.estimate.total_cost, n.estimate.rows, n.estimate.width);
  return buf;
}

std::string actual_text(const scans::ExecNode& n, bool timing) {
  const scans::NodeInstrumentation& in = n.instr;
  if (in.loops == 0) return " (never executed)";
  double loops = double(in.loops);
  char buf[160];
  if (timing)
    std::snprintf(buf, sizeof buf, " (actual time=%.3f..%.3f rows=%.0f loops=%.0f)",
                  in.startup_ms / loops, in.total_ms / loops, double(in.rows) / loops, loops);
  else
    std::snprintf(buf, sizeof buf, " (actual rows=%.0f loops=%.0f)", double(in.rows) / loops,
                  loops);
  return buf;
}

std::string buffers_text(const bufmgr::BufferUsage& b) {
  std::string s;
  auto part = [&](const char* name, uint64_t v) {
    if (v) s += std::string(" ") + name + "=" + std::to_string(v);
  };
  part("hit", b.shared_hit);
  part("read", b.shared_read);
  part("dirtied", b.shared_dirtied);
  part("written", b.shared_written);
  return s.empty() ? "" : "Buffers: shared" + s;
}

std::string io_timing_text(const bufmgr::BufferUsage& b) {
  if (!b.io_read_time_us && !b.io_write_time_us) return "";
  std::string s = "I/O Timings: shared";
  if (b.io_read_time_us) s += fmt(" read=%.3f", double(b.io_read_time_us) / 1000.0);
  if (b.io_write_time_us) s += fmt(" write=%.3f", double(b.io_write_time_us) / 1000.0);
  return s;
}

std::string prefetch_text(const bufmgr::ReadStreamStats& st) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "Prefetch: distance avg=%.1f max=%llu, I/Os=%llu, avg size=%.1f kB, waits=%llu, "
                "in flight max=%llu of %llu",
                st.avg_distance(), (unsigned long long)st.distance_max, (unsigned long long)st.ios,
                st.blocks_per_io() * 8.0, (unsigned long long)st.waits,
                (unsigned long long)st.ios_in_flight_max, (unsigned long long)st.max_ios);
  std::string text = buf;
  // The thread's I/O handles (io_max_concurrency) cap the reads in flight: say so.
  if (st.ios_clamped())
    text += fmt(" (effective_io_concurrency=%.0f clamped by io_max_concurrency)",
                double(st.effective_io_concurrency));
  // Only beyond the defaults, so the default output stays as it was.
  if (st.wasted_reads) text += fmt(", wasted=%.0f", double(st.wasted_reads));
  if (st.policy) text += std::string(", policy=") + st.policy;
  return text;
}

// The node's read stream figures, summed over a parallel scan's participants.
std::optional<bufmgr::ReadStreamStats> all_streams(const scans::ExecNode& n) {
  const bufmgr::ReadStreamStats* own = n.stream_stats();
  if (!own) return std::nullopt;
  bufmgr::ReadStreamStats sum = *own;
  sum += n.instr.worker_streams;
  return sum;
}

// The run-time detail lines every node gets (after its own).
void runtime_details(const scans::ExecNode& n, const ExplainRun& run,
                     std::vector<std::string>& out) {
  const sql::ExplainOptions& o = *run.options;
  if (!o.analyze || n.instr.loops == 0) return;
  if (std::optional<bufmgr::ReadStreamStats> st = all_streams(n)) out.push_back(prefetch_text(*st));
  if (!o.buffers) return;
  std::string b = buffers_text(n.instr.buffers);
  if (!b.empty()) out.push_back(b);
  if (run.track_io_timing) {
    std::string t = io_timing_text(n.instr.buffers);
    if (!t.empty()) out.push_back(t);
  }
}

// The node's children as EXPLAIN shows them, each with its label ("" for an input):
// InitPlans shown here though a node below runs them first, then its own.
std::vector<std::pair<std::string, const scans::ExecNode*>> labelled_children(
    const scans::ExecNode& n) {
  std::vector<std::pair<std::string, const scans::ExecNode*>> out = n.shown_init_plans;
  const std::vector<const scans::ExecNode*> kids = n.children();
  for (size_t i = 0; i < kids.size(); ++i) out.emplace_back(n.child_label(i), kids[i]);
  out.insert(out.end(), n.shown_sub_plans.begin(), n.shown_sub_plans.end());
  return out;
}

void text_node(const scans::ExecNode& n, const ExplainRun& run, int indent,
               std::vector<std::string>& out) {
  // A UNION's branch is a query of its own: the names above its scan are qualified with
  // its table, not the first branch's.
  if (const auto* branch = dynamic_cast<const scans::SubqueryScanNode*>(&n)) {
    const scans::BranchPrefix& p = branch->prefix();
    if (p.table != run.prefix.table || p.columns != run.prefix.columns) {
      ExplainRun inner = run;
      inner.prefix = {p.table, p.columns};
      return text_node(n, inner, indent, out);
    }
  }
  if (n.explain_transparent()) {
    ExplainRun inner = run;
    if (n.upper_prefix(inner.prefix.table, inner.prefix.columns))
      return text_node(*n.children()[0], inner, indent, out);
    return text_node(*n.children()[0], run, indent, out);
  }
  const sql::ExplainOptions& o = *run.options;
  // PostgreSQL's layout: a child's line is "->  " at its parent's detail
  // indent; its own details sit 2 columns right of its name.
  std::string line(size_t(indent) * 2, ' ');
  if (indent) line += "->  ";
  int detail_indent = indent ? indent + 3 : 1;
  line += n.explain_name() + n.explain_target();
  if (o.costs) line += cost_text(n);
  if (o.analyze) line += actual_text(n, o.timing);
  out.push_back(line);
  std::vector<std::string> details;
  n.explain_details(details, o.analyze && n.instr.loops > 0);
  qualify_upper_details(n.explain_name(), run.prefix, details);
  runtime_details(n, run, details);
  for (const std::string& d : details)
    out.push_back(std::string(size_t(detail_indent) * 2, ' ') + d);
  const std::vector<std::pair<std::string, const scans::ExecNode*>> kids = labelled_children(n);
  for (size_t i = 0; i < kids.size(); ++i) {
    // An InitPlan: its label at the parent's detail indent, the plan one level in.
    const std::string& label = kids[i].first;
    if (label.empty()) {
      text_node(*kids[i].second, run, detail_indent, out);
      continue;
    }
    out.push_back(std::string(size_t(detail_indent) * 2, ' ') + label);
    text_node(*kids[i].second, run, detail_indent + 1, out);
  }
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

// "Filter: (a < 5)" -> "Filter": "(a < 5)"; numbers stay numbers.
std::string json_detail(const std::string& d) {
  size_t colon = d.find(": ");
  if (colon == std::string::npos) return "\"" + json_escape(d) + "\": true";
  std::string key = d.substr(0, colon), value = d.substr(colon + 2);
  bool number = !value.empty() && value.find_first_not_of("0123456789.") == std::string::npos;
  return "\"" + json_escape(key) + "\": " + (number ? value : "\"" + json_escape(value) + "\"");
}

// A detail line as PostgreSQL's JSON fields: a key list ("Group Key: a, (b + 1)") is an
// array of its items (split at commas outside parentheses and quotes); a hash
// aggregate's figures ("Planned Partitions: 4  Batches: 3  Memory Usage: 57kB  Disk
// Usage: 120kB") are fields of their own, under PostgreSQL's names.
std::vector<std::string> json_details(const std::string& d) {
  for (const char* list : {"Sort Key: ", "Group Key: ", "Presorted Key: "}) {
    if (d.rfind(list, 0) != 0) continue;
    const std::string items = d.substr(std::string(list).size());
    std::string out = "\"" + std::string(list).substr(0, std::string(list).size() - 2) + "\": [";
    int depth = 0;
    bool quoted = false;
    size_t start = 0;
    for (size_t i = 0; i <= items.size(); ++i) {
      const char c = i < items.size() ? items[i] : ',';
      if (c == '\'') quoted = !quoted;
      if (!quoted && c == '(') ++depth;
      if (!quoted && c == ')') --depth;
      if (quoted || depth > 0 || c != ',') continue;
      out += (start ? ", " : "") + ("\"" + json_escape(items.substr(start, i - start)) + "\"");
      start = i + 2;  // past ", "
      ++i;
    }
    return {out + "]"};
  }
  if (d.rfind("Planned Partitions: ", 0) != 0 && d.rfind("Batches: ", 0) != 0)
    return {json_detail(d)};
  std::vector<std::string> out;
  size_t at = 0;
  while (at < d.size()) {
    size_t end = d.find("  ", at);
    if (end == std::string::npos) end = d.size();
    std::string part = d.substr(at, end - at);
    const size_t colon = part.find(": ");
    std::string key = part.substr(0, colon), value = part.substr(colon + 2);
    if (value.size() > 2 && value.compare(value.size() - 2, 2, "kB") == 0)
      value.resize(value.size() - 2);
    if (key == "Batches") key = "HashAgg Batches";
    if (key == "Memory Usage") key = "Peak Memory Usage";
    out.push_back("\"" + key + "\": " + value);
    at = end + 2;
  }
  return out;
}

// PostgreSQL's JSON names the node type without the text format's prefixes and says
// them in fields: "Parallel Seq Scan" is a parallel-aware "Seq Scan", "Finalize
// Aggregate" an "Aggregate" with "Partial Mode": "Finalize".
void node_type_fields(const std::string& name, std::vector<std::string>& fields) {
  std::string type = name, partial_mode;
  bool parallel = false;
  if (type.rfind("Parallel ", 0) == 0) {
    type = type.substr(9);
    parallel = true;
  }
  for (const char* mode : {"Partial ", "Finalize "})
    if (type.rfind(mode, 0) == 0 && type.find("Aggregate") != std::string::npos) {
      type = type.substr(std::string(mode).size());
      partial_mode = std::string(mode).substr(0, std::string(mode).size() - 1);
    }
  // "HashAggregate" and "GroupAggregate" are an "Aggregate" of strategy "Hashed" and
  // "Sorted".
  const char* strategy = type == "HashAggregate"    ? "Hashed"
                         : type == "GroupAggregate" ? "Sorted"
                                                    : "Plain";
  if (type == "HashAggregate" || type == "GroupAggregate") type = "Aggregate";
  fields.push_back("\"Node Type\": \"" + type + "\"");
  if (type == "Aggregate") {
    fields.push_back(std::string("\"Strategy\": \"") + strategy + "\"");
    fields.push_back("\"Partial Mode\": \"" + (partial_mode.empty() ? "Simple" : partial_mode) +
                     "\"");
  }
  fields.push_back(std::string("\"Parallel Aware\": ") + (parallel ? "true" : "false"));
}

// EXPLAIN ANALYZE's read stream and buffer figures as JSON fields.
void json_runtime_fields(const scans::ExecNode& n, const ExplainRun& run,
                         std::vector<std::string>& fields) {
  const sql::ExplainOptions& o = *run.options;
  if (o.analyze && n.instr.loops > 0) {
    if (std::optional<bufmgr::ReadStreamStats> st = all_streams(n)) {
      fields.push_back(fmt("\"Prefetch Distance Avg\": %.1f", st->avg_distance()));
      fields.push_back(fmt("\"Prefetch Distance Max\": %.0f", double(st->distance_max)));
      fields.push_back(fmt("\"Prefetch I/Os\": %.0f", double(st->ios)));
      fields.push_back(fmt("\"Prefetch Avg Size kB\": %.1f", st->blocks_per_io() * 8.0));
      fields.push_back(fmt("\"Prefetch Waits\": %.0f", double(st->waits)));
      fields.push_back(fmt("\"Prefetch I/Os In Flight Max\": %.0f", double(st->ios_in_flight_max)));
      fields.push_back(fmt("\"Prefetch I/Os Limit\": %.0f", double(st->max_ios)));
      fields.push_back(fmt("\"Prefetch I/Os Asked\": %.0f", double(st->effective_io_concurrency)));
      if (st->wasted_reads)
        fields.push_back(fmt("\"Prefetch Wasted Reads\": %.0f", double(st->wasted_reads)));
      if (st->policy) fields.push_back(std::string("\"Prefetch Policy\": \"") + st->policy + "\"");
    }
    if (o.buffers) {
      const bufmgr::BufferUsage& b = n.instr.buffers;
      fields.push_back(fmt("\"Shared Hit Blocks\": %.0f", double(b.shared_hit)));
      fields.push_back(fmt("\"Shared Read Blocks\": %.0f", double(b.shared_read)));
      fields.push_back(fmt("\"Shared Dirtied Blocks\": %.0f", double(b.shared_dirtied)));
      fields.push_back(fmt("\"Shared Written Blocks\": %.0f", double(b.shared_written)));
      if (run.track_io_timing)
        fields.push_back(fmt("\"I/O Read Time\": %.3f", double(b.io_read_time_us) / 1000.0));
    }
  }
}

void json_node(const scans::ExecNode& n, const ExplainRun& run, int indent, std::string& out,
               const std::string& label = "") {
  if (n.explain_transparent()) {
    ExplainRun inner = run;
    if (n.upper_prefix(inner.prefix.table, inner.prefix.columns))
      return json_node(*n.children()[0], inner, indent, out, label);
    return json_node(*n.children()[0], run, indent, out, label);
  }
  const sql::ExplainOptions& o = *run.options;
  std::string pad(size_t(indent), ' ');
  std::vector<std::string> fields;
  node_type_fields(n.explain_name(), fields);
  if (!label.empty()) {
    fields.insert(fields.begin() + 1, {"\"Parent Relationship\": \"InitPlan\"",
                                       "\"Subplan Name\": \"" + json_escape(label) + "\""});
  }
  std::string target = n.explain_target();
  if (n.explain_name() == "Subquery Scan" && target.size() > 6) {
    // A subquery has no relation: PostgreSQL's JSON gives its alias alone, unquoted.
    fields.push_back("\"Alias\": \"" + json_escape(target.substr(5, target.size() - 6)) + "\"");
  } else if (target.rfind(" on ", 0) == 0) {
    // " on t1" or, for a second reference to one table, " on t1 t1_1" (name, alias).
    std::string name = target.substr(4), alias = name;
    bool quoted = false;
    for (size_t i = 0; i < name.size(); ++i) {
      if (name[i] == '"') quoted = !quoted;  // a quoted name may hold blanks
      if (name[i] == ' ' && !quoted) {
        alias = name.substr(i + 1);
        name.resize(i);
        break;
      }
    }
    fields.push_back("\"Relation Name\": \"" + json_escape(name) + "\"");
    fields.push_back("\"Alias\": \"" + json_escape(alias) + "\"");
  }
  if (o.costs) {
    fields.push_back(fmt("\"Startup Cost\": %.2f", n.estimate.startup_cost));
    fields.push_back(fmt("\"Total Cost\": %.2f", n.estimate.total_cost));
    fields.push_back(fmt("\"Plan Rows\": %.0f", n.estimate.rows));
    fields.push_back(fmt("\"Plan Width\": %.0f", n.estimate.width));
  }
  if (o.analyze) {
    double loops = double(std::max<uint64_t>(n.instr.loops, 1));
    if (o.timing) {
      fields.push_back(fmt("\"Actual Startup Time\": %.3f", n.instr.startup_ms / loops));
      fields.push_back(fmt("\"Actual Total Time\": %.3f", n.instr.total_ms / loops));
    }
    fields.push_back(fmt("\"Actual Rows\": %.0f", double(n.instr.rows) / loops));
    fields.push_back(fmt("\"Actual Loops\": %.0f", double(n.instr.loops)));
  }
  std::vector<std::string> details;
  n.explain_details(details, o.analyze && n.instr.loops > 0);
  qualify_upper_details(n.explain_name(), run.prefix, details);
  for (const std::string& d : details)
    for (std::string& f : json_details(d)) fields.push_back(std::move(f));
  json_runtime_fields(n, run, fields);
  out += pad + "{\n";
  const std::vector<std::pair<std::string, const scans::ExecNode*>> kids = labelled_children(n);
  for (size_t i = 0; i < fields.size(); ++i) {
    out += pad + "  " + fields[i];
    bool last = i + 1 == fields.size() && kids.empty();
    out += last ? "\n" : ",\n";
  }
  if (!kids.empty()) {
    out += pad + "  \"Plans\": [\n";
    for (size_t i = 0; i < kids.size(); ++i) {
      json_node(*kids[i].second, run, indent + 4, out, kids[i].first);
      out += i + 1 == kids.size() ? "\n" : ",\n";
    }
    out += pad + "  ]\n";
  }
  out += pad + "}";
}

}  // namespace

std::vector<std::string> explain_lines(const scans::ExecNode& root, const ExplainRun& run) {
  const sql::ExplainOptions& o = *run.options;
  std::vector<std::string> out;
  if (o.json) {
    std::string s = "[\n  {\n    \"Plan\": ";
    std::string node;
    json_node(root, run, 4, node);
    s += node.substr(4);  // the opening brace follows "Plan": directly
    if (!run.cost_model.empty())
      s += ",\n    \"Cost Model\": \"" + json_escape(run.cost_model) + "\"";
    if (!run.io_trace.empty()) s += ",\n    \"I/O Trace\": \"" + json_escape(run.io_trace) + "\"";
    if (o.buffers && !buffers_text(run.planning_buffers).empty()) {
      const bufmgr::BufferUsage& b = run.planning_buffers;
      s += ",\n    \"Planning\": {\n" +
           fmt("      \"Shared Hit Blocks\": %.0f,\n", double(b.shared_hit)) +
           fmt("      \"Shared Read Blocks\": %.0f,\n", double(b.shared_read)) +
           fmt("      \"Shared Dirtied Blocks\": %.0f,\n", double(b.shared_dirtied)) +
           fmt("      \"Shared Written Blocks\": %.0f\n    }", double(b.shared_written));
    }
    if (o.analyze) {
      s += ",\n" + fmt("    \"Planning Time\": %.3f", run.planning_ms);
      s += ",\n" + fmt("    \"Execution Time\": %.3f", run.execution_ms);
    }
    s += "\n  }\n]";
    out.push_back(s);
    return out;
  }
  text_node(root, run, 0, out);
  if (!run.cost_model.empty()) out.push_back("Cost Model: " + run.cost_model);
  if (!run.io_trace.empty()) out.push_back(run.io_trace);
  if (std::string planning = buffers_text(run.planning_buffers); o.buffers && !planning.empty()) {
    out.push_back("Planning:");
    out.push_back("  " + planning);
  }
  if (o.analyze) {
    out.push_back(fmt("Planning Time: %.3f ms", run.planning_ms));
    out.push_back(fmt("Execution Time: %.3f ms", run.execution_ms));
  }
  return out;
}

}  // namespace tp
