// The headline check and the machine-load figures on made-up inputs: other processes'
// share of the CPU from two samples (interrupts and this process left out, short
// intervals refused), the busy mark, each section's sentence, the headline files and
// the report's table (yes / no / not measured, reasons only where a claim fails, busy
// figures starred).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/tools/experiments/experiments_test_util.h"
#include "tools/experiments/headlines.h"
#include "tools/experiments/machine_load.h"
#include "tools/experiments/output.h"

namespace tp::experiments {
namespace {

CpuSample sample(uint64_t busy, uint64_t total, uint64_t steal, uint64_t own, double load) {
  CpuSample s;
  s.machine_busy = busy;
  s.machine_total = total;
  s.steal = steal;
  s.own = own;
  s.load_avg_1m = load;
  s.valid = true;
  return s;
}

TEST(MachineLoad, OtherProcessesShareLeavesThisProcessOut) {
  // 10,000 ticks of every CPU: 6,000 busy, of which 2,000 this process's; 300 stolen.
  const LoadInterval l = load_between(sample(0, 0, 0, 0, 0), sample(6000, 10000, 300, 2000, 1.5));
  ASSERT_TRUE(l.valid);
  EXPECT_DOUBLE_EQ(l.other_cpu_pct, 40.0);
  EXPECT_DOUBLE_EQ(l.steal_pct, 3.0);
  EXPECT_DOUBLE_EQ(l.load_avg_1m, 1.5);
  EXPECT_TRUE(l.busy());
  // This process alone: nobody else, not busy (never below zero).
  const LoadInterval alone = load_between(sample(0, 0, 0, 0, 0), sample(5000, 10000, 0, 5200, 1));
  EXPECT_DOUBLE_EQ(alone.other_cpu_pct, 0.0);
  EXPECT_FALSE(alone.busy());
  // Too short for a share (one tick), or no samples: not valid, never busy.
  EXPECT_FALSE(load_between(sample(0, 0, 0, 0, 0), sample(1, 1, 0, 0, 0)).valid);
  EXPECT_FALSE(load_between(CpuSample{}, sample(6000, 10000, 0, 0, 0)).busy());
  // The real /proc of this machine reads.
  EXPECT_TRUE(sample_cpu().valid);
}

TEST(MachineLoad, TheSectionSentenceCountsBusyIntervals) {
  LoadSummary quiet;
  EXPECT_EQ(quiet.sentence(), "Machine load: not sampled (no run recorded, or no /proc).");
  quiet.add(load_between(sample(0, 0, 0, 0, 0), sample(1000, 10000, 0, 500, 0.5)));
  EXPECT_NE(quiet.sentence().find("No interval was busy"), std::string::npos) << quiet.sentence();
  LoadSummary busy = quiet;
  busy.add(load_between(sample(0, 0, 0, 0, 0), sample(9000, 10000, 800, 1000, 3.2)));
  EXPECT_EQ(busy.runs(), 2);
  EXPECT_EQ(busy.busy_runs(), 1);
  EXPECT_DOUBLE_EQ(busy.max_other_cpu_pct(), 80.0);
  EXPECT_NE(busy.sentence().find("**1 of 2 intervals were measured on a busy machine**"),
            std::string::npos)
      << busy.sentence();
}

TEST(Headlines, TheCheckTableShowsEachClaimAndWhyOneFails) {
  test::TempDir dir;
  Headline held{"claim one", "1.10x", "1.08x (holds: at most 1.25x)", true, true, {"unseen"}};
  Headline failed{"claim two", "1.60x", "1.17x (holds: at most 1.25x)",
                  true,        false,   {"not calibrated"}};
  Headline missing{"claim three", "-", "76%", false, false, {}};
  write_headlines(dir.path(), "selectivity", {held, failed, missing}, LoadSummary{});
  LoadSummary busy;
  busy.add(load_between(sample(0, 0, 0, 0, 0), sample(9000, 10000, 0, 1000, 3.0)));
  write_headlines(dir.path(), "eic", {held}, busy);
  const std::string md = headline_check(dir.path(), {"rpc", "selectivity", "eic"});
  EXPECT_EQ(md.rfind("Each claim the README makes from these experiments", 0), 0u) << md;
  EXPECT_NE(md.find("2 hold, 1 do not, 1 not measured"), std::string::npos) << md;
  EXPECT_NE(md.find("| selectivity | claim one | 1.10x | 1.08x (holds: at most 1.25x) | yes |  |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| selectivity | claim two | 1.60x | 1.17x (holds: at most 1.25x) | **no** | "
                    "not calibrated |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| selectivity | claim three | - | 76% | not measured |"), std::string::npos)
      << md;
  // The busy experiment's figure is starred, and a claim that held says it was busy.
  EXPECT_NE(md.find("| eic | claim one | 1.10x * | 1.08x (holds: at most 1.25x) | yes (busy) |"),
            std::string::npos)
      << md;
  EXPECT_LT(md.find("| selectivity |"), md.find("| eic |"));  // in the experiments' order
  EXPECT_EQ(headline_check(dir.path(), {"rpc"}), "");         // none: no section
}

}  // namespace
}  // namespace tp::experiments
