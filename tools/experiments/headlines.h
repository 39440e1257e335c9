// The headline check at the top of REPORT.md: each claim the README makes from
// the experiments, with this run's figure, the README's, whether it holds, and
// where it does not the likely reason this run can show (a busy machine, a
// cache under the VM, too small a scale, a cost model not calibrated).
//
// An experiment's report step states its claims (write_headlines), kept in
// <out>/<name>.headlines.tsv beside its section, so a later run of that one
// experiment replaces its lines and the report gathers them all.
#pragma once

#include <string>
#include <vector>

#include "tools/experiments/machine_load.h"

namespace tp::experiments {

struct Headline {
  std::string claim;     // what the README says, in a few words
  std::string this_run;  // this run's figure ("-" when not measured)
  std::string readme;    // the README's figure, and the bound that counts as holding
  bool measured = false;
  bool holds = false;
  std::vector<std::string> reasons;  // why it may not hold (only shown when it does not)
};

// The reasons every claim of an experiment shares: its runs on a busy machine.
void add_load_reasons(Headline& h, const LoadSummary& load);

// Writes <out>/<experiment>.headlines.tsv (replacing an earlier one).
void write_headlines(const std::string& out_dir, const std::string& experiment,
                     const std::vector<Headline>& headlines, const LoadSummary& load);

// The headline check's sentence and table from every experiment's file, in
// `experiments` order ("" when none has claims); REPORT.md puts it under its own
// heading, marked for the README's excerpt.
std::string headline_check(const std::string& out_dir, const std::vector<std::string>& experiments);

}  // namespace tp::experiments
