// The experiment skeleton (experiment.h): the runner of its four steps and the
// helpers every driver shares.
#include "tools/experiments/experiment.h"

#include <fstream>

#include "engine/core/error.h"

namespace tp::experiments {

namespace {

// Writes <out>/<name>.md (a section of the report).
void write_section(const LabOptions& options, const std::string& name,
                   const std::string& markdown) {
  const std::string path = options.out_dir + "/" + name + ".md";
  std::ofstream out(path, std::ios::trunc);
  out << markdown;
  if (!out) throw Error("could not write \"" + path + "\"");
}

}  // namespace

void Recorder::add_load(Record& record) {
  const CpuSample now = sample_cpu();
  LoadInterval l = load_between(last_, now);
  if (l.valid) {
    last_ = now;
    last_interval_ = l;
    outcome_.load.add(l);
  } else {
    l = last_interval_;  // written with the row before, from the same runs
  }
  // Always the same columns, after the environment's: empty when not sampled yet.
  auto cell = [&](double v, int decimals) { return l.valid ? fixed(v, decimals) : ""; };
  record.emplace_back("load_avg_1m", cell(l.load_avg_1m, 2));
  record.emplace_back("other_cpu_pct", cell(l.other_cpu_pct, 1));
  record.emplace_back("steal_pct", cell(l.steal_pct, 1));
  record.emplace_back("machine_busy", l.valid ? (l.busy() ? "1" : "0") : "");
}

void Recorder::add(Record record) {
  add_environment(record, ctx_.env);
  add_load(record);
  for (auto& [name, value] : lab_.all_settings()) record.emplace_back(name, value);
  csv_.add(record);
  ++outcome_.runs;
}

void Recorder::add_without_settings(Record record) {
  add_environment(record, ctx_.env);
  add_load(record);
  csv_.add(record);
  ++outcome_.runs;
}

Outcome run_experiment(Experiment& experiment, Lab& lab, Context& ctx) {
  Outcome outcome(experiment.name());
  const LabOptions& options = lab.options();
  CsvFile csv(options.out_dir + "/" + experiment.name() + ".csv");
  Recorder record(csv, lab, ctx, outcome);
  Progress progress(experiment.name(), experiment.steps(lab), options);
  try {
    experiment.set_up(lab, ctx, progress);
    record.start_measuring();
    experiment.measure(lab, ctx, progress, record);
  } catch (const Stopped&) {
    outcome.status = OutcomeStatus::kStopped;
  } catch (const Error& e) {
    outcome.status = OutcomeStatus::kIncomplete;
    outcome.error = e.what();
  }
  write_section(options, experiment.name(), experiment.report(lab, ctx, outcome));
  return outcome;
}

void repeat_into(std::vector<Timed>& runs, Lab& lab, Progress& progress, const std::string& label,
                 const std::function<Timed()>& run_once) {
  runs.clear();
  progress.step(label + " (run 1)");
  runs.push_back(run_once());
  const int total = lab.repeats_after(runs[0].execution_ms);
  for (int k = 1; k < total; ++k) {
    progress.step(label + " (run " + std::to_string(k + 1) + ")");
    runs.push_back(run_once());
  }
}

std::vector<Timed> repeated(Lab& lab, Progress& progress, const std::string& label,
                            const std::function<Timed()>& run_once) {
  std::vector<Timed> runs;
  repeat_into(runs, lab, progress, label, run_once);
  return runs;
}

std::vector<double> values_of(const std::vector<Timed>& runs, double Timed::*field) {
  std::vector<double> v;
  for (const Timed& t : runs) v.push_back(t.*field);
  return v;
}

double median_of(const std::vector<Timed>& runs, double Timed::*field) {
  return runs.empty() ? NAN : median(values_of(runs, field));
}

std::string section_status(const Outcome& o) {
  std::string s = "Status: **" + std::string(outcome_status_name(o.status)) + "**, " +
                  std::to_string(o.runs) + " runs in `" + o.name + ".csv`.";
  if (!o.error.empty()) s += "\n\n> Not measured: " + o.error;
  if (o.load.runs() > 0) s += "\n\n" + o.load.sentence();
  return s + "\n\n";
}

std::string chart_markdown(const Chart& chart, const std::string& out_dir, const std::string& file,
                           const std::string& alt) {
  try {
    render_chart(chart, out_dir + "/" + file);
    return "![" + alt + "](" + file + ")\n\n";
  } catch (const Error& e) {
    return "> Chart not drawn: " + std::string(e.what()) + "\n\n";
  }
}

}  // namespace tp::experiments
