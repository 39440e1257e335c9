// The prefetch_policy and prefetch_fixed_distance settings: every registered name is
// accepted, an unknown one refused naming the choices, and the policy reaches the
// scans' streams (EXPLAIN's Prefetch line names a policy other than the default, and
// the reads a LIMIT left unused).
#include <gtest/gtest.h>

#include "bufmgr/prefetch_policy.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::string plan_text(Session& s, const std::string& sql) {
  std::string out;
  for (const auto& row : s.execute(sql).rows) out += row[0] + "\n";
  return out;
}

class PrefetchPolicySetting : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
    s_->execute("INSERT INTO t SELECT g, g FROM generate_series(1, 5000) g ORDER BY random()");
    s_->execute("CREATE INDEX t_a_idx ON t (a)");
    s_->execute("ANALYZE t");
  }
  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(PrefetchPolicySetting, AcceptsEveryRegisteredNameAndRefusesOthers) {
  EXPECT_EQ(scalar(*s_, "SHOW prefetch_policy"), "tidepool");
  for (const std::string& name : bufmgr::prefetch_policy_names()) {
    s_->execute("SET prefetch_policy = " + name);
    EXPECT_EQ(scalar(*s_, "SHOW prefetch_policy"), name);
  }
  try {
    s_->execute("SET prefetch_policy = 'eager'");
    ADD_FAILURE() << "an unknown policy was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "invalid value for parameter \"prefetch_policy\": \"eager\"");
    EXPECT_NE(e.hint().find("Available values: tidepool, pg18, fixed, delayed_start, "
                            "cache_aware, rescan_aware, example_linear."),
              std::string::npos)
        << e.hint();
  }
  EXPECT_EQ(scalar(*s_, "SHOW prefetch_policy"), "example_linear");  // unchanged
  EXPECT_NE(error_of(*s_, "SET prefetch_fixed_distance = -1").find("prefetch_fixed_distance"),
            std::string::npos);
}

TEST_F(PrefetchPolicySetting, ExplainNamesAPolicyOtherThanTheDefault) {
  s_->storage().evict_all();
  std::string plan = plan_text(*s_, "EXPLAIN (ANALYZE, TIMING OFF) SELECT * FROM t");
  ASSERT_NE(plan.find("Prefetch: distance avg="), std::string::npos) << plan;
  EXPECT_EQ(plan.find("policy="), std::string::npos) << plan;
  s_->execute("SET prefetch_policy = pg18");
  s_->storage().evict_all();
  plan = plan_text(*s_, "EXPLAIN (ANALYZE, TIMING OFF) SELECT * FROM t");
  EXPECT_NE(plan.find(", policy=pg18\n"), std::string::npos) << plan;
}

TEST_F(PrefetchPolicySetting, AFixedDistanceWastesReadsBeyondALimit) {
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET index_prefetch = on");
  s_->execute("SET prefetch_policy = fixed");
  s_->execute("SET prefetch_fixed_distance = 32");
  s_->storage().evict_all();
  std::string plan =
      plan_text(*s_, "EXPLAIN (ANALYZE, TIMING OFF) SELECT * FROM t ORDER BY a LIMIT 5");
  // Started at once, 32 buffers ahead of the 5 rows' blocks: most of them unused.
  EXPECT_NE(plan.find("policy=fixed"), std::string::npos) << plan;
  EXPECT_NE(plan.find(", wasted="), std::string::npos) << plan;
  // The default starts after 4 heap-block switches: LIMIT 3 never builds a stream.
  s_->execute("RESET prefetch_policy");
  s_->storage().evict_all();
  plan = plan_text(*s_, "EXPLAIN (ANALYZE, TIMING OFF) SELECT * FROM t ORDER BY a LIMIT 3");
  EXPECT_EQ(plan.find("Prefetch:"), std::string::npos) << plan;
}

}  // namespace
}  // namespace tp
