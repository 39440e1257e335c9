// `tidepool experiment NAME [options]`: argument parsing and the `all` loop.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include "engine/core/error.h"
#include "engine/session/settings.h"
#include "tools/calibrate/calibrate.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/iomethod.h"

namespace tp::experiments {

namespace {

const char* kUsage =
    "Usage: tidepool experiment NAME [options]\n"
    "NAME: device | rpc | selectivity | cached | eic | iomethod | index-prefetch | policies |\n"
    "      limit | prefetch-suite | all\n"
    "      excerpt: write OUT/REPORT.md's excerpt into the README (--readme FILE,\n"
    "               default README.md) between its marker lines; runs nothing\n"
    "Options:\n"
    "  --rows N              rows of the article tables (default 1000000)\n"
    "  --table-mb N          size of the iomethod table in MB (default 2048)\n"
    "  --workers LIST        iomethod's parallel worker counts (default 0,1,2,4,8,16,32)\n"
    "  --prefetch-rows N     rows of the index-prefetch table (default 200000)\n"
    "  --suite-random N      prefetch-suite: N queries generated from its families\n"
    "                        besides its own (default 10; 0 = none)\n"
    "  --suite-seed S        the generator's seed (default 1)\n"
    "  --suite-rounds N      prefetch-suite: rounds per query, each running every\n"
    "                        configuration once, interleaved (default 7)\n"
    "  --suite-warm-ms MS    prefetch-suite: a warm round's executions per configuration\n"
    "                        fill MS milliseconds (default 100)\n"
    "  --data DIR            data directory (default OUT/data); tables are reused\n"
    "  --out DIR             output directory (default results)\n"
    "  --repeat K            runs per measurement, medians reported (default 3)\n"
    "  --max-repeat-seconds S  do not repeat a measurement whose first run took\n"
    "                        longer than S seconds (default 20; 0 = always repeat)\n"
    "  --set NAME=VALUE      a setting the session starts with (repeatable)\n"
    "  --sweep               rpc: also estimate random_page_cost over several tables\n"
    "                        (sizes from --rows, fillfactors 10-100), prefetch off and on\n"
    "  --fresh               rebuild the tables even if they are reusable\n"
    "  --drop-caches         also drop the whole OS page cache before cold buffered runs (root)\n"
    "  --calibrate           run `tidepool calibrate` on the data directory first (all does)\n"
    "  --no-calibrate        all: skip it, pricing with an earlier calibration when there is one\n"
    "  --calibrate-option A  one more argument for tidepool calibrate (repeatable), e.g.\n"
    "                        --calibrate-option --seconds --calibrate-option 1\n"
    "  --device-seconds S    device experiment: seconds per measurement (default 0.3)\n"
    "  --device-file-mb N    device experiment: probe file size (default 2048)\n"
    "  --quiet               no progress lines\n";

uint64_t parse_count(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw Error("invalid value for " + option + ": \"" + text + "\" (a positive integer)");
  return v;
}

double parse_seconds(const std::string& option, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0))
    throw Error("invalid value for " + option + ": \"" + text + "\" (seconds, >= 0)");
  return v;
}

// Applies one option (args[i], and its value at args[i + 1] when it takes one).
void parse_option(const std::vector<std::string>& args, size_t& i, LabOptions& options) {
  const std::string& a = args[i];
  auto value = [&]() -> std::string {
    if (i + 1 >= args.size()) throw Error("option " + a + " needs a value");
    return args[++i];
  };
  if (a == "--rows") {
    options.rows = parse_count(a, value());
    if (options.rows < 1000) throw Error("--rows must be at least 1000");
  } else if (a == "--prefetch-rows") {
    options.prefetch_rows = parse_count(a, value());
    if (options.prefetch_rows < 1000) throw Error("--prefetch-rows must be at least 1000");
  } else if (a == "--suite-random") {
    options.suite_random = int(parse_count(a, value()));
    if (options.suite_random > 1000) throw Error("--suite-random must be 0..1000");
  } else if (a == "--suite-seed") {
    options.suite_seed = parse_count(a, value());
  } else if (a == "--suite-warm-ms") {
    options.suite_warm_ms = double(parse_count(a, value()));
    if (options.suite_warm_ms < 1 || options.suite_warm_ms > 60000)
      throw Error("--suite-warm-ms must be 1..60000");
  } else if (a == "--suite-rounds") {
    options.suite_rounds = int(parse_count(a, value()));
    if (options.suite_rounds < 1 || options.suite_rounds > 100)
      throw Error("--suite-rounds must be 1..100");
  } else if (a == "--table-mb") {
    options.iomethod_table_mb = parse_count(a, value());
    if (options.iomethod_table_mb < 1) throw Error("--table-mb must be at least 1");
  } else if (a == "--workers") {
    options.iomethod_workers = parse_worker_list(value());
  } else if (a == "--data") {
    options.data_dir = value();
  } else if (a == "--out") {
    options.out_dir = value();
  } else if (a == "--repeat") {
    options.repeat = int(parse_count(a, value()));
    if (options.repeat < 1 || options.repeat > 100) throw Error("--repeat must be 1..100");
  } else if (a == "--max-repeat-seconds") {
    options.max_repeat_seconds = parse_seconds(a, value());
  } else if (a == "--set") {
    options.settings.push_back(value());
    try {
      Settings().set_from_assignment(options.settings.back());  // checked before any run
    } catch (const Error& e) {
      throw Error("--set " + options.settings.back() + ": " + e.what(), e.detail(), e.hint());
    }
  } else if (a == "--sweep") {
    options.rpc_sweep = true;
  } else if (a == "--fresh") {
    options.fresh = true;
  } else if (a == "--drop-caches") {
    options.drop_caches = true;
  } else if (a == "--calibrate") {
    options.calibrate = true;
  } else if (a == "--no-calibrate") {
    options.calibrate = false;
  } else if (a == "--calibrate-option") {
    options.calibrate_args.push_back(value());
  } else if (a == "--device-seconds") {
    options.device_seconds = parse_seconds(a, value());
    if (options.device_seconds <= 0) throw Error("--device-seconds must be positive");
  } else if (a == "--device-file-mb") {
    options.device_file_mb = parse_count(a, value());
    if (options.device_file_mb < 1) throw Error("--device-file-mb must be at least 1");
  } else if (a == "--quiet") {
    options.progress = false;
  } else {
    throw Error("unknown option \"" + a + "\"");
  }
}

// Runs one experiment; a failure that escapes it (the session could not open) is its outcome.
Outcome run_one(const ExperimentDef& def, Lab& lab, Context& ctx) {
  if (lab.options().progress) std::fprintf(stderr, "== experiment %s: %s\n", def.name, def.summary);
  Outcome o;
  try {
    o = def.run(lab, ctx);
  } catch (const Stopped&) {
    o = Outcome(def.name, OutcomeStatus::kStopped);
  } catch (const Error& e) {
    o = Outcome(def.name, OutcomeStatus::kIncomplete, e.what());
  }
  try {
    if (o.status != OutcomeStatus::kStopped) lab.reset_settings();
  } catch (const Error&) {
    // The session could not open or reset: the next experiment reports why.
  }
  return o;
}

// `tidepool calibrate -D DATA`, before any session opens DATA (it claims the directory).
void calibrate_first(const Lab& lab, Context& ctx) {
  const LabOptions& o = lab.options();
  if (o.progress)
    std::fprintf(stderr, "== calibrate: this machine's figures for the prefetch-aware model\n");
  std::vector<std::string> args = {"-D", o.data_dir};
  if (!o.progress) args.push_back("--quiet");
  args.insert(args.end(), o.calibrate_args.begin(), o.calibrate_args.end());
  std::ostringstream report;  // calibrate's full report: its last line is enough here
  ctx.calibration_ran = true;
  const int status = calibrate::run_calibrate_command(args, report, std::cerr);
  if (status != 0) {
    ctx.calibration_error = "tidepool calibrate failed (exit status " + std::to_string(status) +
                            "; its message is in the run's output)";
    return;
  }
  std::string last = report.str();
  while (!last.empty() && last.back() == '\n') last.pop_back();
  last = last.substr(last.rfind('\n') + 1);
  if (o.progress) std::fprintf(stderr, "[calibrate] %s\n", last.c_str());
}

// Runs the chosen experiments until one is stopped; REPORT.md and the summary follow.
int run_chosen(const std::vector<const ExperimentDef*>& chosen, const LabOptions& options) {
  Lab lab(options);
  Context ctx;
  if (options.calibrate && !Lab::stop_flag().load()) calibrate_first(lab, ctx);
  ctx.env = probe_environment(lab.options().data_dir);
  load_device_figures(lab.options().out_dir, &ctx.device);
  int exit_status = 0;
  std::vector<Outcome> outcomes;
  for (const ExperimentDef* def : chosen) {
    if (Lab::stop_flag().load()) break;
    outcomes.push_back(run_one(*def, lab, ctx));
    if (outcomes.back().status == OutcomeStatus::kStopped) exit_status = 130;
    if (outcomes.back().status == OutcomeStatus::kIncomplete && exit_status == 0) exit_status = 1;
  }
  lab.close_session();
  const std::string report = write_report(lab.options(), ctx);
  std::printf("\nExperiments:\n");
  for (const Outcome& o : outcomes) {
    std::printf("  %-15s %-16s %3d runs  %s/%s.csv\n", o.name.c_str(),
                outcome_status_name(o.status), o.runs, lab.options().out_dir.c_str(),
                o.name.c_str());
    if (!o.error.empty()) std::printf("      not measured: %s\n", o.error.c_str());
  }
  std::printf("Report: %s\n", report.c_str());
  return exit_status;
}

// `tidepool experiment excerpt [--out DIR] [--readme FILE]`.
int run_excerpt_command(const std::vector<std::string>& args) {
  std::string out = "results", readme = "README.md";
  for (size_t i = 1; i < args.size(); i += 2) {
    const std::string& option = args[i];
    if ((option != "--out" && option != "--readme") || i + 1 == args.size())
      throw Error("excerpt: unknown option \"" + option + "\" (it takes --out DIR, --readme FILE)");
    (option == "--out" ? out : readme) = args[i + 1];
  }
  write_readme_excerpt(out + "/REPORT.md", readme);
  std::printf("%s: excerpt of %s/REPORT.md written\n", readme.c_str(), out.c_str());
  return 0;
}

}  // namespace

int run_experiment_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  LabOptions options;
  options.device_seconds = 0.3;
  const std::string name = args[0];
  try {
    if (name == "excerpt") return run_excerpt_command(args);
    options.calibrate = name == "all";
    for (size_t i = 1; i < args.size(); ++i) parse_option(args, i, options);
    std::vector<const ExperimentDef*> chosen;
    for (const ExperimentDef& def : experiment_defs())
      if (name == "all" || name == def.name) chosen.push_back(&def);
    if (chosen.empty()) throw Error("unknown experiment \"" + name + "\"");
    return run_chosen(chosen, options);
  } catch (const Error& e) {
    std::fprintf(stderr, "tidepool experiment: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "HINT:  %s\n", e.hint().c_str());
    if (std::string(e.what()).rfind("unknown", 0) == 0 ||
        std::string(e.what()).find("--") != std::string::npos)
      std::fputs(kUsage, stderr);
    return 2;
  }
}

}  // namespace tp::experiments
