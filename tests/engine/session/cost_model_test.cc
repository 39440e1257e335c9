// cost_model = prefetch_aware through SQL: plans priced from the device curve and the
// look-ahead, PostgreSQL 15's model untouched by the settings it does not read, the
// pool's contents turning fetches into hits, EXPLAIN's Cost Model line; and pg_prewarm,
// which puts a chosen share of a table in the pool.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

// The top node's "(cost=S..T" total.
double top_cost(Session& s, const std::string& query) {
  const std::string line = s.execute("EXPLAIN " + query).rows.at(0).at(0);
  const size_t dots = line.find("..");
  EXPECT_NE(dots, std::string::npos) << line;
  return std::stod(line.substr(dots + 2));
}

std::string top_node(Session& s, const std::string& query) {
  const std::string line = s.execute("EXPLAIN " + query).rows.at(0).at(0);
  return line.substr(0, line.find("  ("));
}

class CostModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    s_->execute("SET io_direct = on");
    s_->execute("CREATE TABLE t (a bigint, b bigint) WITH (fillfactor = 10)");
    s_->execute("INSERT INTO t SELECT (i * 7919) % 20000, i FROM generate_series(1, 20000) i");
    s_->execute("CREATE INDEX t_a_idx ON t (a)");
    s_->execute("ANALYZE t");
    s_->storage().evict_all();
  }
  Session& s() { return *s_; }
  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

const char* const kBitmap = "SELECT * FROM t WHERE a BETWEEN 1 AND 400";

TEST_F(CostModelTest, Pg15IsTheDefaultAndPrintsNoCostModelLine) {
  EXPECT_EQ(scalar(s(), "SHOW cost_model"), "pg15");
  for (const auto& row : s().execute(std::string("EXPLAIN ") + kBitmap).rows)
    EXPECT_EQ(row[0].find("Cost Model"), std::string::npos) << row[0];
  // PostgreSQL 15's model reads neither the device curves nor the µs figures.
  const double before = top_cost(s(), kBitmap);
  s().execute("SET device_worker_direct = 'seq=1 d1=1000'");
  s().execute("SET cpu_tuple_us = 50");
  EXPECT_EQ(top_cost(s(), kBitmap), before);
  EXPECT_NE(error_of(s(), "SET cost_model = magic").find("cost_model"), std::string::npos);
}

TEST_F(CostModelTest, EffectiveIoConcurrencyChangesPrefetchAwareCostsOnly) {
  s().execute("SET enable_seqscan = off");
  s().execute("SET enable_indexscan = off");
  const double pg15_16 = top_cost(s(), kBitmap);
  s().execute("SET effective_io_concurrency = 0");
  EXPECT_EQ(top_cost(s(), kBitmap), pg15_16);
  s().execute("SET cost_model = prefetch_aware");
  const double aware_0 = top_cost(s(), kBitmap);
  s().execute("SET effective_io_concurrency = 16");
  const double aware_16 = top_cost(s(), kBitmap);
  EXPECT_EQ(top_node(s(), kBitmap), "Bitmap Heap Scan on t");
  // Reads one at a time cost the curve's depth-1 figure; 16 in flight, its d16 figure.
  EXPECT_GT(aware_0, 1.5 * aware_16);
}

TEST_F(CostModelTest, IndexPrefetchMakesIndexScansCheaper) {
  s().execute("SET cost_model = prefetch_aware");
  s().execute("SET enable_bitmapscan = off");
  s().execute("SET enable_seqscan = off");
  const double off = top_cost(s(), kBitmap);
  s().execute("SET index_prefetch = immediate");
  EXPECT_LT(top_cost(s(), kBitmap), 0.6 * off);
}

TEST_F(CostModelTest, ExplainNamesTheModelTheCurveAndTheLookAhead) {
  s().execute("SET cost_model = prefetch_aware");
  s().execute("SET io_method = worker");
  s().execute("SET device_worker_direct = 'seq=10 d1=100 d16=25'");
  ResultSet r = s().execute(std::string("EXPLAIN ") + kBitmap);
  EXPECT_EQ(r.rows.back()[0],
            "Cost Model: prefetch_aware (device_worker_direct = 'seq=10 d1=100 d16=25'; reads "
            "in flight: seq 16, bitmap 16, index 1; 1.0 = 10 us)");
  ResultSet json = s().execute(std::string("EXPLAIN (FORMAT JSON) ") + kBitmap);
  EXPECT_NE(json.rows[0][0].find("\"Cost Model\": \"prefetch_aware (device_worker_direct"),
            std::string::npos);
}

TEST_F(CostModelTest, CachedPagesAreHits) {
  s().execute("SET cost_model = prefetch_aware");
  s().execute("SET enable_indexscan = off");
  s().execute("SET enable_bitmapscan = off");
  const std::string seq = "SELECT * FROM t";
  const double cold = top_cost(s(), seq);
  const std::string pages = scalar(s(), "SELECT pg_relation_size('t')");
  const int64_t blocks = std::stoll(pages) / 8192;
  EXPECT_EQ(scalar(s(), "SELECT pg_prewarm('t')"), std::to_string(blocks));
  const double warm = top_cost(s(), seq);
  EXPECT_LT(warm, 0.5 * cold);
  // Half the heap: between the two.
  s().storage().evict_all();
  s().execute("SELECT pg_prewarm('t', 'buffer', 'main', 0, " + std::to_string(blocks / 2 - 1) +
              ")");
  const double half = top_cost(s(), seq);
  EXPECT_LT(half, cold);
  EXPECT_GT(half, warm);
}

TEST_F(CostModelTest, PrewarmReadsTheBlocksAskedForIntoThePool) {
  EXPECT_EQ(scalar(s(), "SELECT pg_prewarm('t', 'buffer', 'main', 3, 12)"), "10");
  ResultSet cached = s().execute("SELECT relblocknumber FROM pg_buffercache WHERE relation = 't'");
  std::set<std::string> blocks;
  for (const auto& row : cached.rows) blocks.insert(row[0]);
  EXPECT_EQ(blocks, (std::set<std::string>{"3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}));
  EXPECT_EQ(scalar(s(), "SELECT pg_prewarm('t_a_idx')"),
            std::to_string(std::stoll(scalar(s(), "SELECT pg_relation_size('t_a_idx')")) / 8192));
  EXPECT_NE(error_of(s(), "SELECT pg_prewarm('t', 'read')")
                .find("prewarm type \"read\" is not supported"),
            std::string::npos);
  EXPECT_NE(error_of(s(), "SELECT pg_prewarm('t', 'bogus')").find("invalid prewarm type"),
            std::string::npos);
  EXPECT_NE(error_of(s(), "SELECT pg_prewarm('t', 'buffer', 'fsm')").find("invalid fork name"),
            std::string::npos);
  EXPECT_NE(error_of(s(), "SELECT pg_prewarm('t', 'buffer', 'main', 0, 1000000)")
                .find("ending block number must be between 0 and "),
            std::string::npos);
  EXPECT_NE(error_of(s(), "SELECT pg_prewarm('nosuch')").find("\"nosuch\" does not exist"),
            std::string::npos);
}

}  // namespace
}  // namespace tp
