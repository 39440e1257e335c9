// Was the machine busy while a figure was measured? Each CSV row of an
// experiment carries what the machine did between it and the row before (the
// run it measured): the load average, the share of the CPU that other
// processes used, and the share the hypervisor stole, from /proc. A run during
// which other processes took more than kBusyOtherCpuPct of the machine's CPU is
// marked busy: its section says so, and so does the headline check.
#pragma once

#include <cstdint>
#include <string>

namespace tp::experiments {

// Other processes' share of all CPUs above which a run counts as busy: half a
// core on a 2-core machine.
inline constexpr double kBusyOtherCpuPct = 25.0;

// Cumulative CPU counters of the machine and of this process, in clock ticks.
struct CpuSample {
  uint64_t machine_busy = 0;   // user + nice + system of every CPU (/proc/stat)
  uint64_t machine_total = 0;  // every field but guest time
  uint64_t steal = 0;
  uint64_t own = 0;  // this process's user + system, every thread (/proc/self/stat)
  double load_avg_1m = 0;
  bool valid = false;
};
CpuSample sample_cpu();

// What the machine did between two samples. Shorter than a fifth of a second of
// every CPU, the tick counts are too coarse for a share: not valid.
struct LoadInterval {
  double other_cpu_pct = 0;  // other processes' share of all CPUs
  double steal_pct = 0;
  double load_avg_1m = 0;  // at the end
  bool valid = false;
  bool busy() const { return valid && other_cpu_pct > kBusyOtherCpuPct; }
};
LoadInterval load_between(const CpuSample& before, const CpuSample& after);

// The intervals of one experiment's runs, summed up for its section.
class LoadSummary {
 public:
  void add(const LoadInterval& interval);
  // Intervals: from the start of the measurements to the first CSV row, then between
  // rows (rows written together share one).
  int runs() const { return runs_; }
  int busy_runs() const { return busy_runs_; }
  double max_other_cpu_pct() const { return max_other_; }
  double mean_other_cpu_pct() const { return runs_ ? sum_other_ / runs_ : 0; }
  double max_steal_pct() const { return max_steal_; }
  double max_load_avg() const { return max_load_; }
  // One sentence for a section: how busy the machine was and how many runs were busy.
  std::string sentence() const;

 private:
  int runs_ = 0;
  int busy_runs_ = 0;
  double sum_other_ = 0;
  double max_other_ = 0;
  double max_steal_ = 0;
  double max_load_ = 0;
};

}  // namespace tp::experiments
