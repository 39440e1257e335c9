// /proc/stat, /proc/self/stat and /proc/loadavg, read between runs.
#include "tools/experiments/machine_load.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "tools/experiments/output.h"

namespace tp::experiments {

CpuSample sample_cpu() {
  CpuSample s;
  {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    std::ifstream in("/proc/stat");
    std::string label;
    std::vector<uint64_t> f(10, 0);
    if (!(in >> label) || label != "cpu") return s;
    for (uint64_t& v : f) in >> v;
    if (!in) return s;
    s.machine_busy = f[0] + f[1] + f[2];
    // Guest time is already inside user and nice.
    s.machine_total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
    s.steal = f[7];
  }
  {
    // The command name may hold spaces: fields count from the last ')'.
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return s;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    uint64_t utime = 0, stime = 0;
    // Fields 3.. after the name: state is field 3, utime 14, stime 15.
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stoull(field);
      if (i == 15) stime = std::stoull(field);
    }
    s.own = utime + stime;
  }
  {
    std::ifstream in("/proc/loadavg");
    in >> s.load_avg_1m;
  }
  s.valid = true;
  return s;
}

LoadInterval load_between(const CpuSample& before, const CpuSample& after) {
  LoadInterval l;
  if (!before.valid || !after.valid || after.machine_total <= before.machine_total) return l;
  const double total = double(after.machine_total - before.machine_total);
  static const double min_ticks =
      0.2 * double(sysconf(_SC_CLK_TCK)) * double(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  if (total < min_ticks) return l;
  const double busy = double(after.machine_busy - before.machine_busy);
  const double own = double(after.own - before.own);
  // Interrupts are left out: most are this process's own I/O completing.
  l.other_cpu_pct = std::max(0.0, busy - own) / total * 100;
  l.steal_pct = double(after.steal - before.steal) / total * 100;
  l.load_avg_1m = after.load_avg_1m;
  l.valid = true;
  return l;
}

void LoadSummary::add(const LoadInterval& l) {
  if (!l.valid) return;
  ++runs_;
  if (l.busy()) ++busy_runs_;
  sum_other_ += l.other_cpu_pct;
  max_other_ = std::max(max_other_, l.other_cpu_pct);
  max_steal_ = std::max(max_steal_, l.steal_pct);
  max_load_ = std::max(max_load_, l.load_avg_1m);
}

std::string LoadSummary::sentence() const {
  if (runs_ == 0) return "Machine load: not sampled (no run recorded, or no /proc).";
  std::ostringstream s;
  s << "Machine load while it measured (" << runs_
    << " intervals between its CSV rows): other processes took " << fixed(mean_other_cpu_pct(), 0)
    << "% of the CPU on average (at most " << fixed(max_other_cpu_pct(), 0)
    << "% in one run), steal at most " << fixed(max_steal_, 1) << "%, load average at most "
    << fixed(max_load_, 2) << ". ";
  if (busy_runs_ == 0)
    s << "No interval was busy (others above " << fixed(kBusyOtherCpuPct, 0) << "% of the CPU).";
  else
    s << "**" << busy_runs_ << " of " << runs_ << " intervals were measured on a busy machine** "
      << "(others above " << fixed(kBusyOtherCpuPct, 0)
      << "% of the CPU: `machine_busy` = 1 in the CSV): their figures may be slower than this "
         "machine can do.";
  return s.str();
}

}  // namespace tp::experiments
