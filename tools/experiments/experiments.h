// The experiments of `tidepool experiment NAME` (tools/experiments/README.md):
// each is a list of SQL steps plus measurements, written to <out>/<name>.csv,
// a Markdown section <out>/<name>.md with its charts, and gathered into
// <out>/REPORT.md. Each runs on the skeleton of experiment.h.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tools/experiments/explain.h"
#include "tools/experiments/headlines.h"
#include "tools/experiments/lab.h"
#include "tools/experiments/output.h"

namespace tp::experiments {

// What an experiment ended with.
enum class OutcomeStatus { kComplete, kIncomplete, kStopped };
const char* outcome_status_name(OutcomeStatus status);

struct Outcome {
  explicit Outcome(std::string experiment = {}, OutcomeStatus s = OutcomeStatus::kComplete,
                   std::string why = {})
      : name(std::move(experiment)), status(s), error(std::move(why)) {}
  std::string name;
  OutcomeStatus status = OutcomeStatus::kComplete;
  std::string error;  // why it is incomplete: the failing step and the engine's message
  int runs = 0;       // CSV rows written
  LoadSummary load;   // how busy the machine was during those runs (machine_load.h)
};

// Figures of the raw device that other experiments quote (from the device
// experiment of the same invocation, else from <out>/device.csv).
struct DeviceFigures {
  bool known = false;
  double seq_direct_mb_s = NAN;  // 128 kB reads at depth 16, best method
  double seq_buffered_mb_s = NAN;
  double random_direct_us_d1 = NAN;  // 8 kB random read latency at depth 1
  double random_buffered_us_d1 = NAN;
  double random_direct_iops_d16 = NAN;
  // Every measurement's median, keyed "method/direct/pattern/depth/what" with direct
  // 1 or 0, pattern seq or random, what mb, iops or lat (e.g. "worker/1/random/16/iops").
  std::map<std::string, double> medians;

  // Direct 8 kB random reads per second of one method at depth 1, and its best at depth
  // 16, 32 or 64 (NaN when not measured).
  double random_direct_iops(const std::string& method, int depth) const;
  double random_direct_iops_deep(const std::string& method) const;
  // The same at the measured depth nearest `depth` (by ratio), which it stores in
  // *measured_depth (NaN, and 0, when the method has no random direct figures).
  double random_direct_iops_near(const std::string& method, int depth, int* measured_depth) const;
};

// State shared by the experiments of one invocation.
struct Context {
  Environment env;
  DeviceFigures device;
  // Measured random_page_cost: rpc's per-read ratio at the default eic, prefetch off (it holds
  // at every scale, unlike the article's per-row ratio on a table the pool holds much of).
  double rpc_estimate = NAN;
  // What this invocation's calibration did (empty when it ran none): "" on success,
  // else why it failed.
  bool calibration_ran = false;
  std::string calibration_error;
};

// The report's sentence on what priced the prefetch-aware model: the calibration in
// DATA/tidepool.conf (its date), or the built-in figures.
std::string calibration_sentence(const std::string& data_dir, const Context& ctx);
// The date of the calibration in DATA/tidepool.conf, or "" when it holds none.
std::string calibration_date(const std::string& data_dir);

Outcome run_device(Lab& lab, Context& ctx);
Outcome run_rpc(Lab& lab, Context& ctx);  // and run_rpc_sweep with --sweep
Outcome run_rpc_sweep(Lab& lab, Context& ctx);
Outcome run_selectivity(Lab& lab, Context& ctx);
Outcome run_cached(Lab& lab, Context& ctx);  // selectivity's sweep, 0% / 50% / 100% in the pool
Outcome run_eic(Lab& lab, Context& ctx);
Outcome run_iomethod(Lab& lab, Context& ctx);
Outcome run_index_prefetch(Lab& lab, Context& ctx);
Outcome run_policies(Lab& lab, Context& ctx);
Outcome run_prepared_limit(Lab& lab, Context& ctx);
Outcome run_prefetch_suite(Lab& lab, Context& ctx);

struct ExperimentDef {
  const char* name;
  Outcome (*run)(Lab&, Context&);
  const char* summary;
};
// In the order `all` runs them (device first: the others quote it).
const std::vector<ExperimentDef>& experiment_defs();

// The rpc article's table (fillfactor 10, shuffled, index <name>_a_idx on a): "t"
// for rpc and selectivity; index-prefetch builds its own at --prefetch-rows.
// rpc --sweep builds others at other fillfactors.
TableSpec rpc_table(uint64_t rows, const std::string& name = "t", int fillfactor = 10);
// Loads DeviceFigures from <out>/device.csv when this invocation did not measure them.
void load_device_figures(const std::string& out_dir, DeviceFigures* figures);
// One sentence quoting the device, for the sections ("device: 1650 MB/s sequential, ...").
std::string device_sentence(const DeviceFigures& d);

// Rebuilds <out>/REPORT.md from the sections present in <out>.
std::string write_report(const LabOptions& options, const Context& ctx);

// The README's excerpt of REPORT.md (excerpt.cc): REPORT.md's "Generated ..." line and, per
// section, its title and the blocks it marked <!-- excerpt --> ... <!-- /excerpt -->.
inline constexpr const char* kReadmeExcerptBegin =
    "<!-- BEGIN report excerpt: written by `tidepool experiment excerpt`, do not edit -->";
inline constexpr const char* kReadmeExcerptEnd = "<!-- END report excerpt -->";
std::string report_excerpt(const std::string& report_markdown);
// The readme with what lies between its two marker lines replaced by the excerpt.
std::string replace_excerpt(const std::string& readme, const std::string& excerpt);
// Reads REPORT.md, rewrites the excerpt in the README file in place.
void write_readme_excerpt(const std::string& report_path, const std::string& readme_path);

// `tidepool experiment ...`: parses the arguments, runs, returns the exit status.
int run_experiment_command(const std::vector<std::string>& args);

}  // namespace tp::experiments
