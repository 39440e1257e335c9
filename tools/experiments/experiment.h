// The one shape every experiment has, in four steps that run_experiment()
// takes in order:
//
//   set up   tables (Lab::ensure_table) and the session's settings
//   measure  runs and repeats (repeated(), explain_analyze()), each run's CSV
//            row handed to the Recorder as soon as it is measured
//   record   the Recorder: <out>/<name>.csv rewritten after every row, each row
//            carrying the environment and every setting of the session
//   report   the Markdown section <out>/<name>.md (tables, published figures,
//            charts) from whatever was measured, and the figures later
//            experiments quote (Context)
//
// A Ctrl-C (Stopped) or a failed step (tp::Error) during set up or measure ends
// them; the outcome records it, the rows already written stay, and the report
// step still runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/experiments/experiments.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

// The CSV of one experiment: each add() writes one run's row at once.
class Recorder {
 public:
  Recorder(CsvFile& csv, Lab& lab, const Context& ctx, Outcome& outcome)
      : csv_(csv), lab_(lab), ctx_(ctx), outcome_(outcome) {}
  // The record, then the environment, then every setting of the session.
  void add(Record record);
  // The record and the environment only (the device experiment has no session).
  void add_without_settings(Record record);
  // Starts the first run's load interval (after the set-up step).
  void start_measuring() {
    last_ = sample_cpu();
    last_interval_ = {};
  }

 private:
  // The machine's load since the last row (the run this row measured), into the record
  // and the outcome's summary.
  void add_load(Record& record);

  CsvFile& csv_;
  Lab& lab_;
  const Context& ctx_;
  Outcome& outcome_;
  CpuSample last_ = sample_cpu();
  LoadInterval last_interval_;
};

class Experiment {
 public:
  explicit Experiment(std::string name) : name_(std::move(name)) {}
  virtual ~Experiment() = default;
  const std::string& name() const { return name_; }

  // How many progress steps set_up and measure announce (for the time estimate).
  virtual int steps(const Lab& lab) const = 0;
  virtual void set_up(Lab& lab, Context& ctx, Progress& progress) = 0;
  virtual void measure(Lab& lab, Context& ctx, Progress& progress, Recorder& record) = 0;
  // Runs after measure, also when it stopped or failed: shows only what was measured.
  virtual std::string report(Lab& lab, Context& ctx, const Outcome& outcome) = 0;

 private:
  std::string name_;
};

// Runs the four steps; the outcome says how far they got.
Outcome run_experiment(Experiment& experiment, Lab& lab, Context& ctx);

// Runs a measurement: once, then again up to lab.repeats_after(first run) times in
// all. Each run announces itself as one progress step.
std::vector<Timed> repeated(Lab& lab, Progress& progress, const std::string& label,
                            const std::function<Timed()>& run_once);
// The same into `runs`, which keeps the runs done when a later one throws (Ctrl-C).
void repeat_into(std::vector<Timed>& runs, Lab& lab, Progress& progress, const std::string& label,
                 const std::function<Timed()>& run_once);
// Median of one field over runs (NaN for no runs).
double median_of(const std::vector<Timed>& runs, double Timed::*field);
// The values of one field over runs.
std::vector<double> values_of(const std::vector<Timed>& runs, double Timed::*field);

// The status line under a section's title ("Status: **complete**, 4 runs in `rpc.csv`.").
std::string section_status(const Outcome& outcome);
// The chart's Markdown image line, or a quoted note when gnuplot could not draw it.
std::string chart_markdown(const Chart& chart, const std::string& out_dir, const std::string& file,
                           const std::string& alt);

}  // namespace tp::experiments
