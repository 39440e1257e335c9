// The regret half of the `selectivity` and `cached` experiments: the worlds a plan is
// judged in (prefetching off or on; none, half or all of the table in the pool), the
// cost models that choose (PostgreSQL 15's at random_page_cost 4 and at the measured
// value, the prefetch-aware one), and the tables of what each model picked and what it
// cost against the fastest plan of its world.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tp::experiments {

using SettingList = std::vector<std::pair<std::string, std::string>>;

// Prefetching off: every stream reads one block at a time (effective_io_concurrency 0)
// and index scans do not prefetch; on: the defaults and index_prefetch = on.
struct SweepWorld {
  bool prefetch = true;
  double cached = 0;  // share of the table in the pool when the query starts (0, 0.5, 1)
  std::string name() const;
  SettingList settings() const;
  // The forced plans (names of selectivity's plan list) this world runs.
  std::vector<std::string> plans() const;
};

struct CostModelChoice {
  std::string name;  // "pg15, rpc 4", "pg15, rpc 14.3", "prefetch_aware"
  SettingList settings;
};
std::vector<CostModelChoice> cost_model_choices(double rpc_estimate);

// What one model picked at one point of one world, and its time against the fastest.
struct Pick {
  std::string node;  // EXPLAIN's top node
  double ms = NAN;   // the picked plan's median time in this world
  double fastest_ms = NAN;
  std::string fastest_plan;
  double regret() const { return ms / fastest_ms; }
};

// picks[world][model][fraction]
using PickTable = std::vector<std::vector<std::vector<Pick>>>;

// A model's worst regret over the sweep of one world (NaN when nothing was picked).
double worst_regret(const PickTable& picks, size_t world, size_t model);

// One Markdown table per world (fraction, each plan's time, each model's pick and
// regret) and the summary: each model's worst regret per world, where it happened.
std::string regret_tables(const std::vector<SweepWorld>& worlds,
                          const std::vector<CostModelChoice>& models,
                          const std::vector<double>& fractions_pct, const PickTable& picks,
                          const std::map<std::string, std::vector<std::vector<double>>>& plan_ms);
// The summary alone (the report's excerpt).
std::string worst_regret_table(const std::vector<SweepWorld>& worlds,
                               const std::vector<CostModelChoice>& models,
                               const std::vector<double>& fractions_pct, const PickTable& picks);

}  // namespace tp::experiments
