// The block calibrate owns in tidepool.conf: its text, and its place among the user's
// lines. load_conf_file applies lines in order, so a later line wins: the block goes at
// the end the first time, and stays where it is on later runs (a line the user put after
// it is theirs to win).
#include <cctype>
#include <cstdio>
#include <sstream>

#include "engine/core/error.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {

namespace {

std::string num(double v, const char* format = "%.4g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with_marker(const std::string& line, const char* marker) {
  size_t b = line.find_first_not_of(" \t");
  return b != std::string::npos && line.compare(b, std::string(marker).size(), marker) == 0;
}

void device_lines(const Calibration& c, std::ostringstream& out) {
  out << "# Device through the aio layer. seq: 128 kB reads, 16 in flight, us per 8 kB page =\n"
         "# 8192 / MB/s. dN: random 8 kB reads with N in flight, us = 1e6 / IOPS. s1 and d1,\n"
         "# one read at a time, are what the engine's own scans take per read.\n";
  for (const DeviceResult& d : c.devices) {
    out << "#   " << d.method << (d.direct ? " direct" : " buffered") << ": seq "
        << num(d.seq_mb_per_s, "%.0f") << " MB/s; IOPS";
    for (const DeviceResult::Random& r : d.random)
      out << " d" << r.depth << " " << num(r.iops, "%.0f");
    if (!d.random.empty()) out << "; d1 latency " << num(d.random.front().latency_us) << " us";
    out << "\n";
    const EngineReads& e = d.engine;
    if (e.s1_us > 0 || e.d1_us > 0)
      out << "#   through the engine, cold, effective_io_concurrency 0: seq scan " << e.seq_reads
          << " reads " << num(e.seq_ms) << " ms, s1 " << num(e.s1_us) << " us (probe "
          << num(e.probe_s1_us) << "); index scan of " << e.index_rows << " rows, " << e.index_reads
          << " reads " << num(e.index_ms) << " ms, d1 " << num(e.d1_us) << " us (probe "
          << num(e.probe_d1_us) << ")\n";
    out << device_curve_setting(d.method, d.direct) << " = '" << format_device_curve(d.curve)
        << "'\n";
  }
}

void cpu_lines(const CpuFigures& f, std::ostringstream& out) {
  out << "# CPU, medians of " << f.trials
      << " trials over cached scratch tables (each the fastest of its rounds);\n"
      << "# count(b) by seq scan of " << f.sparse_pages << " pages / " << f.sparse_rows
      << " rows (fillfactor 10): " << num(f.sparse_ms) << " ms,\n# of " << f.dense_pages
      << " pages / " << f.dense_rows << " rows (fillfactor 100): " << num(f.dense_ms)
      << " ms; WHERE a > 0: " << num(f.qual1_ms) << " ms, AND b > 0: " << num(f.qual2_ms)
      << " ms;\n# index scans: all of the in-order table " << num(f.index_sparse_ms) << " ms ("
      << f.index_sparse_hits << " page hits), a tenth of the shuffled one beyond the CPU caches "
      << num(f.index_ms) << " ms (" << f.index_hits << " page hits), " << num(f.prefetch_index_ms)
      << " ms with index_prefetch = immediate, " << num(f.bitmap_ms)
      << " ms as a bitmap heap scan (" << f.bitmap_pages << " heap pages);\n# "
      << num(f.index_fetch_us)
      << " us per heap page an index scan visits; page_verify of an 8 kB page; pread of a\n"
         "# cached 8 kB block.\n";
  out << "cpu_tuple_us = '" << num(f.cpu_tuple_us) << "'\n";
  out << "cpu_index_tuple_us = '" << num(f.cpu_index_tuple_us) << "'\n";
  out << "cpu_operator_us = '" << num(f.cpu_operator_us) << "'\n";
  out << "page_hit_us = '" << num(f.page_hit_us) << "'\n";
  out << "random_page_hit_us = '" << num(f.index_fetch_us) << "'\n";
  out << "stream_block_us = '" << num(f.stream_block_us) << "'\n";
  out << "bitmap_page_us = '" << num(f.bitmap_page_us) << "'\n";
  out << "page_read_cpu_us = '" << num(f.page_read_cpu_us) << "'\n";
  out << "os_cache_page_us = '" << num(f.os_cache_page_us) << "'\n";
}

// PostgreSQL's constants are in units of one sequential page read (seq_page_cost = 1).
void postgres_lines(const Calibration& c, std::ostringstream& out) {
  const DeviceResult* ref = nullptr;
  for (const DeviceResult& d : c.devices)
    if (d.method == c.io_method && d.direct == c.io_direct) ref = &d;
  std::string unmeasured;
  if (ref == nullptr && !c.devices.empty()) {
    ref = &c.devices.front();
    unmeasured = std::string("; DIR's io_method = ") + c.io_method +
                 ", io_direct = " + (c.io_direct ? "on" : "off") + " was not measured";
  }
  if (ref == nullptr) return;
  const double seq = ref->curve.seq_us;
  out << "# What these imply for PostgreSQL's constants, with io_method = " << ref->method
      << ", io_direct = " << (ref->direct ? "on" : "off") << unmeasured
      << "\n# (seq_page_cost = 1 = " << num(seq)
      << " us). Comments only: cost_model = pg15 keeps PostgreSQL's own.\n";
  out << "#   random_page_cost = " << num(ref->curve.random_us.front().second / seq, "%.3g")
      << "\n";
  out << "#   cpu_tuple_cost = " << num(c.cpu.cpu_tuple_us / seq, "%.3g") << "\n";
  out << "#   cpu_index_tuple_cost = " << num(c.cpu.cpu_index_tuple_us / seq, "%.3g") << "\n";
  out << "#   cpu_operator_cost = " << num(c.cpu.cpu_operator_us / seq, "%.3g") << "\n";
}

}  // namespace

std::string calibrate_block(const Calibration& c) {
  std::ostringstream out;
  out << kBlockBegin << " (" << c.when_utc << ", kernel " << c.kernel << ", " << c.file_size_mb
      << " MB probe file, " << num(c.seconds_per_run, "%.2f") << " s per measurement)\n";
  out << "# Written by `tidepool calibrate`, which replaces this block on its next run; a line\n"
         "# after the END line overrides it. cost_model = prefetch_aware reads these settings.\n";
  device_lines(c, out);
  cpu_lines(c.cpu, out);
  for (const std::string& n : c.notes) out << "# note: " << n << "\n";
  for (const std::string& n : c.cpu.notes) out << "# note: " << n << "\n";
  postgres_lines(c, out);
  out << kBlockEnd << "\n";
  return out.str();
}

std::string splice_calibrate_block(const std::string& conf, const std::string& block) {
  std::vector<std::string> lines = split_lines(conf);
  size_t begin = lines.size(), end = lines.size();
  for (size_t i = 0; i < lines.size() && begin == lines.size(); ++i)
    if (starts_with_marker(lines[i], kBlockBegin)) begin = i;
  for (size_t i = begin; i < lines.size() && end == lines.size(); ++i)
    if (starts_with_marker(lines[i], kBlockEnd)) end = i;
  if (begin < lines.size() && end == lines.size())
    throw Error("tidepool.conf has a \"" + std::string(kBlockBegin) + "\" line (line " +
                    std::to_string(begin + 1) + ") and no \"" + kBlockEnd + "\" line after it",
                "", "Put the END line back where the block ends, or remove the block by hand.")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  std::string out;
  if (begin == lines.size()) {
    out = conf;
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!out.empty()) out += '\n';  // the block reads as a paragraph of its own
    return out + block;
  }
  for (size_t i = 0; i < begin; ++i) out += lines[i] + "\n";
  out += block;
  for (size_t i = end + 1; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

std::vector<std::string> settings_overridden_after_block(const std::string& conf,
                                                         const std::vector<std::string>& names) {
  std::vector<std::string> lines = split_lines(conf);
  size_t from = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (starts_with_marker(lines[i], kBlockEnd)) from = i + 1;
  std::vector<std::string> found;
  for (size_t i = from; i < lines.size(); ++i) {
    std::string line = lines[i].substr(0, lines[i].find('#'));
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    size_t e = line.find_first_of(" \t=", b);
    std::string name = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
    for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    for (const std::string& n : names)
      if (n == name) found.push_back(n + " (line " + std::to_string(i + 1) + ")");
  }
  return found;
}

}  // namespace tp::calibrate
