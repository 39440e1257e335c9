// The `policies` experiment at a tiny scale: every registered policy (the README's
// walkthrough policy, example_linear, among them) runs every workload, each row has
// the documented columns, and the report names the fastest policy of each workload.
// The `limit` experiment: every LIMIT and configuration, cold and cached. The
// `prefetch-suite` experiment: every family under every configuration, cold and warm.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bufmgr/prefetch_policy.h"
#include "tests/support/paths.h"
#include "tests/tools/experiments/experiments_test_util.h"
#include "tools/experiments/experiments.h"

namespace tp::experiments {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace): the tests' helpers

TEST(Experiments, PoliciesRunsEveryPolicyOnEveryWorkloadAndNamesTheBest) {
  TempDir dir;
  Lab lab(tiny(dir.path(), 5000));
  Context ctx = context_for(lab);
  Outcome o = run_policies(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/policies.csv");
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"workload", "policy", "rows", "repeat", "ms", "shared_read",
                                      "ios", "waits", "wasted"}));
  std::map<std::string, std::map<std::string, int>> runs;  // [policy][workload]
  for (const auto& r : csv.rows) {
    ++runs[r.at("policy")][r.at("workload")];
    EXPECT_GT(num(r, "ms"), 0);
    EXPECT_GE(num(r, "shared_read"), 1) << "every run is cold";
    EXPECT_EQ(r.at("prefetch_policy"), r.at("policy")) << "the session's setting";
  }
  const std::vector<std::string> names = bufmgr::prefetch_policy_names();
  ASSERT_GE(names.size(), 6u);
  EXPECT_EQ(runs.size(), names.size());
  for (const std::string& p : names) EXPECT_EQ(runs[p].size(), 9u) << p;
  EXPECT_TRUE(runs.count("example_linear")) << "the walkthrough's policy runs";
  const std::string md = slurp(lab.options().out_dir + "/policies.md");
  EXPECT_NE(md.find("Status: **complete**, " + std::to_string(9 * names.size()) +
                    " runs in `policies.csv`."),
            std::string::npos);
  for (const char* w :
       {"shuffled full index scan", "shuffled, table 4x the pool", "correlated full index scan",
        "half cached (every other page)", "LIMIT 10", "LIMIT 100", "LIMIT 1000",
        "bitmap heap scan (2%)", "parallel seq scan, 2 streams"}) {
    const size_t row = md.find("| " + std::string(w) + " |");
    ASSERT_NE(row, std::string::npos) << w << "\n" << md;
    const std::string line = md.substr(row, md.find('\n', row) - row);
    EXPECT_NE(line.find("| **"), std::string::npos) << "the best policy is named: " << line;
  }
}

// The `limit` experiment at a tiny scale: every LIMIT under every configuration, cold
// and cached, each row a round of prepared executions; the cached rounds read (almost)
// nothing,
// the cold ones read (at this scale `fixed` reads the whole table ahead in its first
// query, so not a page per query); the report gives the crossover
// beside the published one and draws both charts.
TEST(Experiments, LimitRunsEveryConfigurationColdAndCached) {
  TempDir dir;
  LabOptions options = tiny(dir.path(), 5000);
  options.tidepool_binary = tp::testing::tidepool_binary();  // the pgbench part serves with it
  Lab lab(options);
  Context ctx = context_for(lab);
  Outcome o = run_prepared_limit(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/limit.csv");
  EXPECT_EQ(own_columns(csv),
            (std::vector<std::string>{"temperature", "limit", "config", "mode", "policy", "rows",
                                      "repeat", "qps", "reads_per_query", "client"}));
  const size_t configs = bufmgr::prefetch_policy_names().size() + 2;  // off, on x P, immediate
  const bool pgbench = std::system("command -v pgbench > /dev/null 2>&1") == 0;
  EXPECT_EQ(csv.rows.size(), 2 * 6 * (configs + (pgbench ? 4 : 0)));  // pgbench: 4 of them
  std::map<std::string, int> per_config;
  for (const auto& r : csv.rows) {
    if (r.at("client") == "pgbench -M prepared") {
      EXPECT_GT(num(r, "qps"), 0) << r.at("config") << " LIMIT " << r.at("limit");
      continue;
    }
    EXPECT_EQ(r.at("client"), "in process");
    ++per_config[r.at("config")];
    EXPECT_GT(num(r, "qps"), 0);
    EXPECT_EQ(r.at("index_prefetch"), r.at("mode")) << "the session's setting";
    EXPECT_EQ(r.at("prefetch_policy"), r.at("policy"));
    if (r.at("temperature") == "cached")
      // (the planner's look at the index's ends may read a page once)
      EXPECT_LT(num(r, "reads_per_query"), 0.5) << r.at("config") << " LIMIT " << r.at("limit");
    else
      EXPECT_GT(num(r, "reads_per_query"), 0) << r.at("config") << " LIMIT " << r.at("limit");
  }
  EXPECT_EQ(per_config.size(), configs);
  EXPECT_EQ(per_config["on, rescan_aware"], 12);
  const std::string md = slurp(lab.options().out_dir + "/limit.md");
  for (const char* s : {"Status: **complete**", "| 1024 | ", "Cold, LIMIT 1: delayed start",
                        "(published: always prefetching wins from about LIMIT 16)",
                        "limit_cold.png", "limit_cached.png",
                        pgbench ? "Cold through pgbench, `immediate` catches up with `on` from"
                                : "The pgbench part did not run"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
}

// The `prefetch-suite` experiment at a tiny scale: every query family cold and warm
// under prefetching off, every policy and nested-loop batching, the rows of each query
// the same under every configuration (checked by the experiment), the regression table
// and the per-configuration summary in the report.
TEST(Experiments, PrefetchSuiteRunsEveryFamilyUnderEveryConfiguration) {
  TempDir dir;
  LabOptions options = tiny(dir.path());
  options.suite_random = 6;
  options.suite_seed = 3;
  options.suite_rounds = 2;
  Lab lab(options);
  Context ctx = context_for(lab);
  Outcome o = run_prefetch_suite(lab, ctx);
  ASSERT_EQ(o.status, OutcomeStatus::kComplete) << o.error;
  Csv csv = load(lab.options().out_dir + "/prefetch-suite.csv");
  EXPECT_EQ(own_columns(csv), (std::vector<std::string>{"query", "family", "temperature", "config",
                                                        "rows", "repeat", "ms", "shared_read"}));
  // off, off again, each policy, batching; two rounds of each
  const size_t configs = bufmgr::prefetch_policy_names().size() + 3;
  EXPECT_EQ(csv.rows.size(), 2 * 2 * (15 + 6) * configs);
  std::map<std::string, int> families;
  std::set<std::string> generated;
  for (const auto& r : csv.rows) {
    if (r.at("query").rfind("random ", 0) == 0) {
      generated.insert(r.at("query"));
      continue;
    }
    ++families[r.at("family")];
    EXPECT_GT(num(r, "ms"), 0);
    if (r.at("temperature") == "cold") {
      EXPECT_GT(num(r, "shared_read"), 0) << r.at("query");
    }
    if (r.at("config") == "off, again") {
      EXPECT_EQ(r.at("index_prefetch"), "off");
    }
    EXPECT_EQ(r.at("nestloop_prefetch"),
              r.at("config") == "rescan_aware + nestloop batching" ? "on" : "off");
  }
  // Rounds interleave the configurations: round 1 runs each once, then round 2 does.
  std::set<std::string> first_round;
  for (size_t i = 0; i < configs; ++i) {
    EXPECT_EQ(csv.rows[i].at("repeat"), "0");
    EXPECT_EQ(csv.rows[i].at("query"), csv.rows[0].at("query"));
    first_round.insert(csv.rows[i].at("config"));
  }
  EXPECT_EQ(first_round.size(), configs);
  EXPECT_EQ(csv.rows[configs].at("repeat"), "1");
  EXPECT_EQ(csv.rows[configs].at("config"), "off");
  EXPECT_EQ(families["regular"], int(2 * 2 * 8 * configs));
  EXPECT_EQ(families["adversarial"], int(2 * 2 * 7 * configs));
  EXPECT_EQ(generated.size(), 6u);
  const std::string md = slurp(lab.options().out_dir + "/prefetch-suite.md");
  for (const char* s :
       {"Status: **complete**", "| rescan_aware + nestloop batching | ", "| off, again | ",
        "in 2 rounds", "| nested-loop inner LIMIT 1 | adversarial | ", "**cold**", "**warm**",
        "prefetch_suite.png"})
    EXPECT_NE(md.find(s), std::string::npos) << s << "\n" << md;
}

}  // namespace
}  // namespace tp::experiments
