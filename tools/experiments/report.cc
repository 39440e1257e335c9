// The experiment registry, the figures experiments share, and REPORT.md.
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "tools/calibrate/calibrate.h"
#include "tools/experiments/experiments.h"

namespace tp::experiments {

const char* outcome_status_name(OutcomeStatus status) {
  switch (status) {
    case OutcomeStatus::kComplete:
      return "complete";
    case OutcomeStatus::kIncomplete:
      return "incomplete";
    case OutcomeStatus::kStopped:
      return "stopped (Ctrl-C)";
  }
  return "?";
}

const std::vector<ExperimentDef>& experiment_defs() {
  static const std::vector<ExperimentDef> defs = {
      {"device", run_device, "the raw device through the aio layer (no pool)"},
      {"rpc", run_rpc, "the random_page_cost article: seq vs index page times, their ratio"},
      {"selectivity", run_selectivity,
       "seq, index and bitmap scans against selectivity: cost, time, crossovers, and each cost "
       "model's regret with prefetching off and on, cold and cached"},
      {"cached", run_cached,
       "the selectivity sweep with none, half and all of the table in the pool: each cost "
       "model's regret"},
      {"eic", run_eic, "the effective_io_concurrency article: bitmap heap scan vs eic"},
      {"iomethod", run_iomethod,
       "the AIO article: cold scan by parallel workers and io_method, buffered and direct"},
      {"index-prefetch", run_index_prefetch,
       "PostgreSQL patch 4351: index scan prefetch by distance, LIMIT n queries per second"},
      {"policies", run_policies,
       "every prefetch policy on the same workloads: time, reads, waits, wasted reads"},
      {"limit", run_prepared_limit,
       "the prefetching patch's LIMIT benchmark: prepared LIMIT 1..1024 queries per second, "
       "cold and cached, every policy"},
      {"prefetch-suite", run_prefetch_suite,
       "the prefetching patch's regular and adversarial query families, cold and warm, every "
       "policy and nested-loop batching: regressions over 6% flagged"},
  };
  return defs;
}

TableSpec rpc_table(uint64_t rows, const std::string& name, int fillfactor) {
  const std::string n = std::to_string(rows);
  return TableSpec{name,
                   rows,
                   {"CREATE TABLE " + name +
                        " (a int, b int) WITH (fillfactor=" + std::to_string(fillfactor) + ")",
                    "INSERT INTO " + name + " SELECT g, g FROM generate_series(1, " + n +
                        ") g ORDER BY random()",
                    "CREATE INDEX " + name + "_a_idx ON " + name + " (a)", "ANALYZE " + name},
                   {name + "_a_idx"}};
}

double DeviceFigures::random_direct_iops(const std::string& method, int depth) const {
  auto it = medians.find(method + "/1/random/" + std::to_string(depth) + "/iops");
  return it == medians.end() ? NAN : it->second;
}

double DeviceFigures::random_direct_iops_deep(const std::string& method) const {
  double best = NAN;
  for (int depth : {16, 32, 64}) {
    double x = random_direct_iops(method, depth);
    if (!std::isnan(x) && (std::isnan(best) || x > best)) best = x;
  }
  return best;
}

double DeviceFigures::random_direct_iops_near(const std::string& method, int depth,
                                              int* measured_depth) const {
  const std::string prefix = method + "/1/random/";
  double best = NAN;
  double best_distance = 0;
  *measured_depth = 0;
  for (const auto& [key, value] : medians) {
    if (key.rfind(prefix, 0) != 0 || !key.ends_with("/iops")) continue;
    const int d = std::atoi(key.c_str() + prefix.size());
    if (d <= 0) continue;
    const double distance = std::abs(std::log(double(d) / double(depth)));
    if (std::isnan(best) || distance < best_distance) {
      best = value;
      best_distance = distance;
      *measured_depth = d;
    }
  }
  return best;
}

void load_device_figures(const std::string& out_dir, DeviceFigures* d) {
  if (d->known) return;
  const std::string path = out_dir + "/device.csv";
  if (!std::filesystem::exists(path)) return;
  auto rows = read_csv(path);
  if (rows.size() < 2) return;
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  for (const char* need :
       {"method", "direct", "pattern", "depth", "mb_per_s", "iops", "avg_latency_us"})
    if (!col.count(need)) return;
  std::map<std::string, std::vector<double>> by_key;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() < rows[0].size()) continue;
    std::string key =
        f[col["method"]] + "/" + f[col["direct"]] + "/" + f[col["pattern"]] + "/" + f[col["depth"]];
    by_key[key + "/mb"].push_back(std::stod(f[col["mb_per_s"]]));
    by_key[key + "/iops"].push_back(std::stod(f[col["iops"]]));
    by_key[key + "/lat"].push_back(std::stod(f[col["avg_latency_us"]]));
  }
  for (const auto& [key, values] : by_key) d->medians[key] = median(values);
  auto best = [&](const std::string& direct, const std::string& pattern, const std::string& depth,
                  const std::string& what, bool lowest) {
    double v = NAN;
    for (const char* m : {"sync", "worker", "io_uring"}) {
      auto it =
          d->medians.find(std::string(m) + "/" + direct + "/" + pattern + "/" + depth + "/" + what);
      if (it == d->medians.end()) continue;
      double x = it->second;
      if (std::isnan(v) || (lowest ? x < v : x > v)) v = x;
    }
    return v;
  };
  d->seq_direct_mb_s = best("1", "seq", "16", "mb", false);
  d->seq_buffered_mb_s = best("0", "seq", "16", "mb", false);
  d->random_direct_us_d1 = best("1", "random", "1", "lat", true);
  d->random_buffered_us_d1 = best("0", "random", "1", "lat", true);
  d->random_direct_iops_d16 = best("1", "random", "16", "iops", false);
  d->known = !std::isnan(d->seq_direct_mb_s) || !std::isnan(d->random_direct_us_d1);
}

std::string device_sentence(const DeviceFigures& d) {
  if (!d.known)
    return "The raw device was not measured (run `tidepool experiment device` or `all`).";
  std::ostringstream s;
  s << "Raw device measured in this run: sequential 128 kB reads at depth 16 "
    << fixed(d.seq_direct_mb_s, 0) << " MB/s direct (" << fixed(8192.0 / d.seq_direct_mb_s, 2)
    << " us per 8 kB page) and " << fixed(d.seq_buffered_mb_s, 0)
    << " MB/s buffered; random 8 kB reads " << fixed(d.random_direct_us_d1, 0)
    << " us at depth 1 direct (" << fixed(d.random_buffered_us_d1, 0) << " us buffered), "
    << fixed(d.random_direct_iops_d16, 0) << " IOPS at depth 16 direct.";
  return s.str();
}

namespace {

// REPORT.md's sections in order: each experiment's, and rpc's sweep (rpc --sweep) after rpc.
std::vector<std::pair<std::string, std::string>> report_sections() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ExperimentDef& def : experiment_defs()) {
    out.emplace_back(def.name, def.summary);
    if (std::string(def.name) == "rpc")
      out.emplace_back("rpc-sweep", "rpc --sweep: estimated random_page_cost over several tables");
  }
  return out;
}

}  // namespace

std::string calibration_date(const std::string& data_dir) {
  std::ifstream in(data_dir + "/tidepool.conf");
  const std::string begin = std::string(calibrate::kBlockBegin) + " (";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(begin, 0) != 0) continue;
    std::string rest = line.substr(begin.size());
    return rest.substr(0, rest.find_first_of(",)"));
  }
  return "";
}

std::string calibration_sentence(const std::string& data_dir, const Context& ctx) {
  const std::string date = calibration_date(data_dir);
  std::string s;
  if (!date.empty())
    s = "The prefetch-aware cost model was priced with this machine's figures: `tidepool "
        "calibrate` of " +
        date +
        (ctx.calibration_ran && ctx.calibration_error.empty() ? " (run by this invocation)" : "") +
        ", in the data directory's tidepool.conf (its curves are named in the selectivity "
        "section).";
  else
    s = "**The prefetch-aware cost model was priced with the built-in figures** (the project "
        "VM's), not this machine's: its regrets here say little. Run `tidepool experiment all` "
        "without --no-calibrate, or `tidepool calibrate -D DATA` first.";
  if (!ctx.calibration_error.empty()) s += " This invocation's " + ctx.calibration_error + ".";
  return s;
}

std::string write_report(const LabOptions& options, const Context& ctx) {
  std::ostringstream r;
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  r << "# tidepool experiments: the three articles on this machine\n\n"
    << "Generated " << date << " by `tidepool experiment`. Machine: device " << ctx.env.device
    << ", kernel " << ctx.env.kernel << ", " << ctx.env.cpu << ", tidepool commit "
    << ctx.env.commit << ". Scale: " << grouped(options.rows) << " rows, repeat " << options.repeat
    << " (a measurement whose first run took longer than " << fixed(options.max_repeat_seconds, 0)
    << " s runs once: rpc's tables show the runs, every CSV row its repeat number); medians "
       "are reported, spreads (max - min) are in the tables "
       "and every run is in the CSVs.\n\n";
  std::vector<std::string> names;
  for (const auto& section : report_sections()) names.push_back(section.first);
  const std::string check = headline_check(options.out_dir, names);
  if (check.empty())
    r << calibration_sentence(options.data_dir, ctx) << "\n\n";
  else
    r << "## Headline check\n\n<!-- excerpt -->\n"
      << calibration_sentence(options.data_dir, ctx) << "\n\n"
      << check << "<!-- /excerpt -->\n\n";
  r << "Each section puts the article's published figures beside this machine's, which are "
       "measured on its own disk in the same run: compare shapes and ratios, not absolute "
       "times (the articles used other machines and, for rpc, 10 M rows).\n\n";
  r << "## Contents\n\n";
  bool any = false;
  for (const auto& [name, summary] : report_sections()) {
    const std::string path = options.out_dir + "/" + name + ".md";
    if (!std::filesystem::exists(path)) continue;
    r << "- [" << name << "](#" << name << "): " << summary << "\n";
    any = true;
  }
  if (!any) r << "(no experiment has run yet)\n";
  r << "\n";
  for (const auto& [name, summary] : report_sections()) {
    const std::string path = options.out_dir + "/" + name + ".md";
    if (!std::filesystem::exists(path)) continue;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    r << "<a id=\"" << name << "\"></a>\n\n" << ss.str() << "\n";
  }
  const std::string path = options.out_dir + "/REPORT.md";
  std::ofstream out(path, std::ios::trunc);
  out << r.str();
  if (!out) throw Error("could not write \"" + path + "\"");
  return path;
}

}  // namespace tp::experiments
