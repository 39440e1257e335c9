// A traced parallel scan: the leader and its parallel workers record into one trace
// while I/O workers (or the io_uring completion path) stamp the same records. Run under
// ThreadSanitizer with the other concurrency tests; here it also checks that the file
// accounts for every block the plan read, with a track per participant.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using Json = nlohmann::json;

class TracedParallelScan : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("CREATE TABLE p (a int, b int) WITH (fillfactor = 10, parallel_workers = 2)");
    s_->execute("INSERT INTO p SELECT i, i FROM generate_series(1, 20000) i");
    for (const char* set :
         {"SET max_parallel_workers_per_gather = 2", "SET parallel_setup_cost = 0",
          "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0"})
      s_->execute(set);
  }
  testing::TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_P(TracedParallelScan, EveryParticipantAndEveryReadIsInTheTrace) {
  const std::string method = GetParam();
  try {
    s_->execute("SET io_method = " + method);
  } catch (const Error& e) {
    GTEST_SKIP() << method << " unavailable here: " << e.what();
  }
  const std::string trace = tmp_.path() + "/parallel.json";
  s_->execute("SET io_trace = '" + trace + "'");
  s_->storage().evict_all();
  ResultSet r = s_->execute("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM p");
  s_->execute("RESET io_trace");
  std::string plan;
  for (const auto& row : r.rows) plan += row.at(0) + "\n";
  ASSERT_NE(plan.find("Workers Launched: 2"), std::string::npos) << plan;

  std::ifstream in(trace);
  std::stringstream text;
  text << in.rdbuf();
  const Json j = Json::parse(text.str());
  long long blocks = 0;
  std::map<long long, std::string> names;
  std::set<long long> issuers;
  for (const Json& e : j.at("traceEvents")) {
    if (e.value("ph", "") == "b" && e.value("cat", "") == "io" &&
        e.value("name", "").rfind("read ", 0) == 0) {
      blocks += e.at("args").at("blocks").get<long long>();
      issuers.insert(e.at("tid").get<long long>());
    }
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
      names[e.at("tid").get<long long>()] = e.at("args").at("name").get<std::string>();
  }
  EXPECT_EQ(blocks, 910) << plan;  // 20,000 rows at 22 a page: every page read once
  EXPECT_EQ(j.at("otherData").at("ios_dropped").get<int>(), 0);
  // Who read is timing (a quick leader may claim every block before a worker starts),
  // but each reader is the query or one of its two workers, named as such.
  ASSERT_FALSE(issuers.empty());
  for (long long tid : issuers) {
    const std::string& name = names[tid];
    EXPECT_TRUE(name == "query" || name == "parallel worker 0" || name == "parallel worker 1")
        << tid << " " << name;
  }
  int io_workers = 0;
  for (const auto& [tid, name] : names) io_workers += name.rfind("io worker ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(io_workers, method == "worker" ? 3 : 0);  // each I/O worker has its track
}

INSTANTIATE_TEST_SUITE_P(Methods, TracedParallelScan,
                         ::testing::Values("sync", "worker", "io_uring"));

}  // namespace
}  // namespace tp
