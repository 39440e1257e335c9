// `tidepool trace summary` and `tidepool trace plot` over traces a session really wrote:
// the blocks the summary counts are the plan's reads, the look-ahead distance stays at 1
// without index prefetching and rises with it, the picture is a PNG; and the commands'
// errors for files that are missing, not JSON or not a tidepool trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_util.h"
#include "tools/trace/trace_command.h"
#include "tools/trace/trace_data.h"
#include "tools/trace/trace_plot.h"
#include "tools/trace/trace_summary.h"

namespace tp::trace {
namespace {

using testing::TempDir;

int run(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  const int rc = run_trace_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

class TraceToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("SET io_method = worker");
    s_->execute("CREATE TABLE t (a int, b int) WITH (fillfactor = 10)");
    s_->execute("INSERT INTO t SELECT (i * 7919) % 6000, i FROM generate_series(1, 6000) i");
    s_->execute("CREATE INDEX t_a_idx ON t (a)");
    s_->execute("ANALYZE t");
    s_->execute("SET enable_seqscan = off");
    s_->execute("SET enable_bitmapscan = off");
  }

  // A cold full index scan traced into `name`; returns the plan's heap + index reads.
  long long traced_scan(const std::string& name, bool prefetch) {
    s_->execute(std::string("SET index_prefetch = ") + (prefetch ? "on" : "off"));
    s_->execute("SET io_trace = '" + path(name) + "'");
    s_->storage().evict_all();
    ResultSet r = s_->execute("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t WHERE a >= 0");
    s_->execute("RESET io_trace");
    return testing::statement_reads(r);
  }

  std::string path(const std::string& name) const { return tmp_.path() + "/" + name; }

  static std::vector<double> distance(const TraceData& t) {
    std::vector<double> values;
    auto it = t.counters.find("look-ahead distance, index heap");
    if (it != t.counters.end())
      for (const auto& [ts, v] : it->second) values.push_back(v);
    return values;
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(TraceToolTest, ReadsBackEveryBlockTheScanRead) {
  const long long reads = traced_scan("on.json", true);
  const TraceData t = load_trace(path("on.json"));
  long long blocks = 0;
  for (const TraceIo& io : t.ios) {
    EXPECT_FALSE(io.write);
    EXPECT_EQ(io.method, "worker");
    EXPECT_EQ(io.bytes, io.blocks * 8192);
    EXPECT_TRUE(io.in_flight_known()) << io.name;
    EXPECT_LE(io.staged_us, io.submitted_us) << io.name;
    EXPECT_LE(io.done_us, io.reaped_us) << io.name;
    blocks += io.blocks;
  }
  EXPECT_GT(reads, 270);  // 6000 rows at 22 a page: 273 heap pages, and the index
  EXPECT_EQ(blocks, reads);
  EXPECT_EQ(t.ios_dropped, 0);
  EXPECT_NE(t.statement.find("EXPLAIN (ANALYZE, BUFFERS)"), std::string::npos);
  const std::vector<int64_t> threads = t.threads();
  ASSERT_FALSE(threads.empty());
  EXPECT_EQ(t.thread_name(threads.front()), "query");
  EXPECT_TRUE(std::any_of(threads.begin(), threads.end(), [&](int64_t tid) {
    return t.thread_name(tid).rfind("io worker", 0) == 0;
  }));

  const std::string summary = trace_summary(t);
  EXPECT_NE(summary.find("(" + std::to_string(reads) + " blocks read)"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("worker    buffered"), std::string::npos) << summary;
  EXPECT_NE(summary.find("in flight (submit -> result)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("look-ahead distance, index heap"), std::string::npos) << summary;
  EXPECT_NE(summary.find("io worker 0"), std::string::npos) << summary;
}

TEST_F(TraceToolTest, DistanceStaysAtOneWithoutPrefetchAndRisesWithIt) {
  traced_scan("off.json", false);
  traced_scan("on.json", true);
  const TraceData off = load_trace(path("off.json")), on = load_trace(path("on.json"));
  const std::vector<double> d_off = distance(off), d_on = distance(on);
  ASSERT_FALSE(d_off.empty());
  EXPECT_TRUE(std::all_of(d_off.begin(), d_off.end(), [](double v) { return v == 1; }));
  ASSERT_FALSE(d_on.empty());
  EXPECT_GE(*std::max_element(d_on.begin(), d_on.end()), 16);
  // Without prefetching one read is in flight at a time; with it, several.
  const auto levels_off = in_flight_time(off), levels_on = in_flight_time(on);
  EXPECT_EQ(levels_off.rbegin()->first, 1);
  EXPECT_GT(levels_on.rbegin()->first, 1);

  std::string out, err;
  ASSERT_EQ(run({"plot", path("off.json"), path("on.json"), "--out", path("both.png"), "--title",
                 "off", "--title", "on"},
                &out, &err),
            0)
      << err;
  std::ifstream png(path("both.png"), std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  std::ifstream gp(path("both.gp"));
  std::stringstream script;
  script << gp.rdbuf();
  EXPECT_NE(script.str().find("\"look-ahead, index heap\""), std::string::npos);
  EXPECT_NE(script.str().find("\"io worker 0\""), std::string::npos);
}

TEST_F(TraceToolTest, DefaultPictureNameAndSummaryCommand) {
  traced_scan("scan.json", true);
  std::string out, err;
  ASSERT_EQ(run({"plot", path("scan.json")}, &out, &err), 0) << err;
  EXPECT_EQ(out, "wrote " + path("scan.png") + "\n");
  ASSERT_EQ(run({"summary", path("scan.json")}, &out, &err), 0) << err;
  EXPECT_NE(out.find("I/Os by size and method"), std::string::npos);
  EXPECT_NE(out.find("Threads: where the time went"), std::string::npos);
}

TEST(TraceToolErrors, NameTheFileAndWhatIsWrong) {
  TempDir tmp;
  std::string out, err;
  EXPECT_EQ(run({"summary", tmp.path() + "/none.json"}, &out, &err), 1);
  EXPECT_NE(err.find("none.json\": cannot be read"), std::string::npos) << err;

  write(tmp.path() + "/bad.json", "{\"traceEvents\": [");
  EXPECT_EQ(run({"summary", tmp.path() + "/bad.json"}, &out, &err), 1);
  EXPECT_NE(err.find("is not valid JSON"), std::string::npos) << err;

  write(tmp.path() + "/other.json", "{\"traceEvents\": []}");
  EXPECT_EQ(run({"plot", tmp.path() + "/other.json"}, &out, &err), 1);
  EXPECT_NE(err.find("not a tidepool I/O trace"), std::string::npos) << err;

  write(tmp.path() + "/short.json",
        "{\"otherData\": {\"tidepool_io_trace\": 1}, \"traceEvents\": [{\"ph\": \"b\", \"cat\": "
        "\"io\", \"name\": \"read t 0\", \"ts\": 1}]}");
  EXPECT_EQ(run({"summary", tmp.path() + "/short.json"}, &out, &err), 1);
  EXPECT_NE(err.find("event 0 has no \"id\""), std::string::npos) << err;

  EXPECT_EQ(run({"plot", tmp.path() + "/x.json", "--out", tmp.path() + "/x.json"}, &out, &err), 2);
  EXPECT_NE(err.find("is one of the traces"), std::string::npos) << err;
  EXPECT_EQ(run({"sum"}, &out, &err), 2);
  EXPECT_NE(err.find("unknown subcommand \"sum\""), std::string::npos) << err;
  EXPECT_EQ(run({"plot", "--colour"}, &out, &err), 2);
  EXPECT_NE(err.find("unknown option \"--colour\""), std::string::npos) << err;
}

TEST(TraceSummaryMath, PercentilesAndInFlightTime) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(percentile(v, 50), 3);
  EXPECT_EQ(percentile(v, 100), 5);
  EXPECT_EQ(percentile(v, 1), 1);
  std::vector<double> none;
  EXPECT_EQ(percentile(none, 50), 0);

  TraceData t;
  TraceIo a, b;
  a.staged_us = a.submitted_us = 0, a.done_us = a.reaped_us = 10;
  b.staged_us = b.submitted_us = 5, b.done_us = b.reaped_us = 20;
  t.ios = {a, b};
  const auto levels = in_flight_time(t);  // 0-5: 1, 5-10: 2, 10-20: 1
  EXPECT_DOUBLE_EQ(levels.at(1), 15);
  EXPECT_DOUBLE_EQ(levels.at(2), 5);
  EXPECT_DOUBLE_EQ(levels.at(0), 0);

  // Lanes: the query first, I/O workers last and in numeric order.
  t.ios.clear();
  t.thread_names = {
      {7, "io worker 10"}, {8, "io worker 2"}, {9, "query"}, {5, "parallel worker 0"}};
  t.thread_order = {{7, 2}, {8, 2}, {9, 0}};
  EXPECT_EQ(t.threads(), (std::vector<int64_t>{9, 5, 8, 7}));
}

}  // namespace
}  // namespace tp::trace
