// SET io_trace = 'file.json': the statement's I/Os, waits and read-stream counters as a
// Chrome trace-event file. The file is read back as JSON and checked against what the
// plan itself reports (EXPLAIN's Buffers line) and against the threads that did the work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using Json = nlohmann::json;
using testing::statement_reads;
using testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string line_with(const ResultSet& r, const std::string& what) {
  for (const auto& row : r.rows)
    if (row.at(0).find(what) != std::string::npos) return row[0];
  return "";
}

class IoTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    // Shuffled at fillfactor 10: an index scan's heap fetches are reads of their own.
    s_->execute("CREATE TABLE t (a int, b int) WITH (fillfactor = 10)");
    s_->execute("INSERT INTO t SELECT (i * 7919) % 8000, i FROM generate_series(1, 8000) i");
    s_->execute("CREATE INDEX t_a_idx ON t (a)");
    s_->execute("ANALYZE t");
    s_->execute("SET enable_seqscan = off");
    s_->execute("SET enable_bitmapscan = off");
    trace_ = tmp_.path() + "/trace.json";
  }
  Session& s() { return *s_; }
  Json traced(const std::string& sql, ResultSet* out = nullptr) {
    s().storage().evict_all();
    ResultSet r = s().execute(sql);
    if (out) *out = r;
    return Json::parse(read_file(trace_));
  }
  TempDir tmp_;
  std::unique_ptr<Session> s_;
  std::string trace_;
};

// Blocks of every read slice (the async "b" that opens each I/O).
long long read_blocks(const Json& j) {
  long long blocks = 0;
  for (const Json& e : j.at("traceEvents"))
    if (e.value("ph", "") == "b" && e.value("cat", "") == "io" &&
        e.value("name", "").rfind("read ", 0) == 0)
      blocks += e.at("args").at("blocks").get<long long>();
  return blocks;
}

std::set<std::string> thread_names(const Json& j) {
  std::set<std::string> names;
  for (const Json& e : j.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
      names.insert(e.at("args").at("name").get<std::string>());
  return names;
}

// The largest value a counter track of this name reached.
long long counter_max(const Json& j, const std::string& name) {
  long long best = -1;
  for (const Json& e : j.at("traceEvents"))
    if (e.value("ph", "") == "C" && e.value("name", "") == name)
      for (const auto& [k, v] : e.at("args").items()) best = std::max(best, v.get<long long>());
  return best;
}

TEST_F(IoTraceTest, ColdIndexScanUnderWorkerMatchesTheBuffersLineAndNamesEachWorker) {
  s().execute("SET io_method = worker");
  s().execute("SET io_workers = 3");
  s().execute("SET index_prefetch = on");
  s().execute("SET io_trace = '" + trace_ + "'");
  ResultSet r;
  Json j = traced("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t WHERE a < 4000", &r);
  const long long shared_read = statement_reads(r);
  ASSERT_GT(shared_read, 100) << line_with(r, "Buffers:");
  EXPECT_EQ(read_blocks(j), shared_read);
  EXPECT_EQ(j.at("otherData").at("ios_dropped").get<int>(), 0);
  std::set<std::string> names = thread_names(j);
  EXPECT_TRUE(names.count("query")) << j.dump().substr(0, 400);
  int workers = 0;
  for (const std::string& n : names) workers += n.rfind("io worker ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(workers, 3);  // a track for each I/O worker, busy or not
  // The heap stream looked ahead.
  EXPECT_GT(counter_max(j, "look-ahead distance, index heap"), 1);
  EXPECT_GE(counter_max(j, "I/Os in flight"), 1);
  const std::string line = line_with(r, "I/O Trace:");
  EXPECT_NE(line.find(" 0 dropped -> " + trace_), std::string::npos) << line;
}

TEST_F(IoTraceTest, WithoutIndexPrefetchTheDistanceStaysAtOneAndSyncReadsInTheQueryThread) {
  s().execute("SET io_method = sync");
  s().execute("SET index_prefetch = off");
  s().execute("SET io_trace = '" + trace_ + "'");
  ResultSet r;
  Json j = traced("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t WHERE a < 2000", &r);
  EXPECT_EQ(read_blocks(j), statement_reads(r));
  // Planning read the index's metapage and root (cold): PostgreSQL's "Planning:" lines.
  EXPECT_NE(line_with(r, "Planning:"), "");
  // The heap pages come without a stream, one at a time: the heap's distance track says
  // 1 throughout; only the leaves are read ahead.
  EXPECT_EQ(counter_max(j, "look-ahead distance, index heap"), 1);
  EXPECT_GE(counter_max(j, "look-ahead distance, index leaves"), 1);
  EXPECT_GE(counter_max(j, "I/Os in flight"), 1);
  // sync: each preadv runs on the query thread, inside a DataFileRead wait there.
  long long query_tid = -1;
  for (const Json& e : j.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name" &&
        e.at("args").at("name") == "query")
      query_tid = e.at("tid").get<long long>();
  std::vector<std::pair<double, double>> waits;
  for (const Json& e : j.at("traceEvents"))
    if (e.value("name", "") == "wait: DataFileRead" && e.at("tid") == query_tid)
      waits.emplace_back(e.at("ts").get<double>(),
                         e.at("ts").get<double>() + e.at("dur").get<double>());
  int syscalls = 0;
  for (const Json& e : j.at("traceEvents")) {
    if (e.value("cat", "") != "io.syscall") continue;
    ++syscalls;
    EXPECT_EQ(e.at("tid").get<long long>(), query_tid);
    const double begin = e.at("ts").get<double>(), end = begin + e.at("dur").get<double>();
    bool inside = false;
    for (const auto& [b, f] : waits) inside = inside || (b <= begin && end <= f);
    EXPECT_TRUE(inside) << e.dump();
  }
  EXPECT_EQ(syscalls, j.at("otherData").at("ios").get<int>());
}

TEST_F(IoTraceTest, EachStatementReplacesTheFileAndSetIsNotTraced) {
  s().execute("SET io_trace = '" + trace_ + "'");
  EXPECT_FALSE(std::filesystem::exists(trace_));  // SET itself writes nothing
  Json first = traced("SELECT count(b) FROM t WHERE a < 3000");
  Json second = traced("SELECT count(b) FROM t WHERE a < 10");
  EXPECT_EQ(second.at("otherData").at("statement"), "SELECT count(b) FROM t WHERE a < 10");
  EXPECT_LT(read_blocks(second), read_blocks(first));
  s().execute("SET io_trace = ''");
  std::filesystem::remove(trace_);
  s().execute("SELECT count(b) FROM t WHERE a < 3000");
  EXPECT_FALSE(std::filesystem::exists(trace_));
}

TEST_F(IoTraceTest, AFileTidepoolDidNotWriteIsNeverOverwritten) {
  std::ofstream(trace_) << "my notes\n";
  s().execute("SET io_trace = '" + trace_ + "'");
  ResultSet r = s().execute("SELECT count(b) FROM t WHERE a < 100");
  EXPECT_EQ(r.rows.at(0).at(0), "100");  // the statement's result stands
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("will not overwrite \"" + trace_ + "\""), std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(read_file(trace_), "my notes\n");
  for (const auto& e : std::filesystem::directory_iterator(tmp_.path()))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(IoTraceTest, NoTraceIsWrittenInsideTheDataDirectory) {
  const std::string inside = tmp_.data() + "/base/../trace.json";
  s().execute("SET io_trace = '" + inside + "'");
  ResultSet r = s().execute("SELECT count(b) FROM t WHERE a < 100");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("inside the data directory"), std::string::npos) << r.warnings[0];
  EXPECT_FALSE(std::filesystem::exists(tmp_.data() + "/trace.json"));
}

TEST_F(IoTraceTest, PastItsCapacityATraceCountsWhatItDropped) {
  s().execute("SET io_method = sync");
  s().execute("SET index_prefetch = off");
  s().execute("SET index_leaf_readahead = off");  // one block per read, leaves too
  s().execute("SET io_trace_max_events = 1000");
  s().execute("SET shared_buffers = '256kB'");  // each heap fetch reads its page again
  s().execute("SET io_trace = '" + trace_ + "'");
  ResultSet r;
  Json j = traced("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM t WHERE a < 4000", &r);
  const long long shared_read = statement_reads(r);
  ASSERT_GT(shared_read, 1000);
  const Json& other = j.at("otherData");
  EXPECT_EQ(other.at("ios").get<long long>(), 1000);
  EXPECT_EQ(other.at("ios").get<long long>() + other.at("ios_dropped").get<long long>(),
            shared_read);  // every read here is one block: one I/O each
  EXPECT_NE(line_with(r, "I/O Trace:").find("1000 I/Os"), std::string::npos);
  EXPECT_EQ(line_with(r, "I/O Trace:").find(" 0 dropped"), std::string::npos);
}

}  // namespace
}  // namespace tp
