// Every plan returns the same rows: seq, index (prefetch off and on), bitmap
// (exact and lossy), BitmapOr, for random predicates. Plus plan choice, index
// order, and buffer counts of index scans (cold, small pool; LIMIT 1 with
// prefetch on reads no more than with it off).
#include <gtest/gtest.h>

#include <random>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::scalar;
using testing::TempDir;

std::string first_line(Session& s, const std::string& sql) {
  return s.execute("EXPLAIN " + sql).rows.at(0).at(0);
}

std::string plan_text(Session& s, const std::string& sql) {
  std::string out;
  for (const auto& row : s.execute(sql).rows) out += row[0] + "\n";
  return out;
}

// The number after `key` ("read=") on the first line that has it, or 0.
uint64_t figure(const std::string& text, const std::string& key) {
  size_t p = text.find(key);
  return p == std::string::npos ? 0 : std::stoull(text.substr(p + key.size()));
}

// 40,000 rows at fillfactor 10 (~1,800 pages: larger than the 1,024 entries
// of work_mem = 64kB, so bitmaps can go lossy), in random order.
class Plans : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir;
    s_ = new Session(testing::options_for(tmp_->data()));
    s_->execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
    s_->execute(
        "INSERT INTO t SELECT i, i % 97 FROM generate_series(1, 40000) s(i) ORDER BY random()");
    s_->execute("CREATE INDEX ON t (a)");
    s_->execute("CREATE INDEX ON t (b, a)");
    s_->execute("ANALYZE t");
  }
  static void TearDownTestSuite() {
    delete s_;
    delete tmp_;
  }
  void SetUp() override { s_->execute("RESET ALL"); }

  static TempDir* tmp_;
  static Session* s_;
};
TempDir* Plans::tmp_ = nullptr;
Session* Plans::s_ = nullptr;

struct Config {
  const char* name;
  std::vector<std::string> sets;
  const char* expect;  // a node the plan must contain (checked when the path applies)
};

TEST_F(Plans, EveryPlanReturnsTheSameRows) {
  const std::vector<Config> configs = {
      {"seq", {"enable_indexscan = off", "enable_bitmapscan = off"}, "Seq Scan"},
      {"index",
       {"enable_seqscan = off", "enable_bitmapscan = off", "enable_indexonlyscan = off"},
       "Index Scan"},
      {"index+prefetch",
       {"enable_seqscan = off", "enable_bitmapscan = off", "enable_indexonlyscan = off",
        "index_prefetch = on", "effective_io_concurrency = 4"},
       "Index Scan"},
      {"index+prefetch immediate",
       {"enable_seqscan = off", "enable_bitmapscan = off", "enable_indexonlyscan = off",
        "index_prefetch = immediate", "effective_io_concurrency = 8"},
       "Index Scan"},
      // (b, a) holds every column these queries read.
      {"index only", {"enable_seqscan = off", "enable_bitmapscan = off"}, "Index"},
      {"bitmap", {"enable_seqscan = off", "enable_indexscan = off"}, "Bitmap Heap Scan"},
      {"bitmap lossy",
       {"enable_seqscan = off", "enable_indexscan = off", "work_mem = '64kB'"},
       "Bitmap Heap Scan"},
  };
  std::mt19937 rng(12345);
  auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  uint64_t lossy_seen = 0;
  for (int i = 0; i < 24; ++i) {
    int x = r(1, 40000), y = r(1, 40000), k1 = r(0, 96), k2 = r(0, 96);
    if (x > y) std::swap(x, y);
    std::vector<std::string> preds = {
        "a < " + std::to_string(x),
        "a BETWEEN " + std::to_string(x) + " AND " + std::to_string(y),
        "b = " + std::to_string(k1) + " AND a > " + std::to_string(x),
        "(b = " + std::to_string(k1) + " AND a < " + std::to_string(y) +
            ") OR (b = " + std::to_string(k2) + " AND a >= " + std::to_string(x) + ")",
        "a >= " + std::to_string(x) + " AND b <> " + std::to_string(k1),
        "(a < " + std::to_string(x / 10) + " OR a > " + std::to_string(40000 - x / 10) + ")",
        "a IN (" + std::to_string(x) + ", " + std::to_string(y) + ", 17, " + std::to_string(x + 1) +
            ")",
        "b IN (" + std::to_string(k1) + ", " + std::to_string(k2) + ") AND a < " +
            std::to_string(y),
    };
    const std::string& pred = preds[size_t(i) % preds.size()];
    std::string agg = "SELECT count(*), sum(a), sum(b), min(a), max(b) FROM t WHERE " + pred;
    std::string top = "SELECT a, b FROM t WHERE " + pred + " ORDER BY a DESC LIMIT 7";
    std::vector<std::string> want_agg, want_top;
    for (const Config& c : configs) {
      s_->execute("RESET ALL");
      for (const std::string& set : c.sets) s_->execute("SET " + set);
      ResultSet ra = s_->execute(agg);
      ResultSet rt = s_->execute(top);
      std::vector<std::string> got_top;
      for (const auto& row : rt.rows) got_top.push_back(row[0] + "," + row[1]);
      if (want_agg.empty()) {
        want_agg = ra.rows.at(0);
        want_top = got_top;
        continue;
      }
      EXPECT_EQ(ra.rows.at(0), want_agg) << c.name << ": " << pred;
      EXPECT_EQ(got_top, want_top) << c.name << ": " << pred;
      std::string plan = plan_text(*s_, "EXPLAIN (ANALYZE, TIMING OFF) " + agg);
      if (std::string(c.expect) != "Index Scan" || pred.find(" OR ") == std::string::npos) {
        EXPECT_NE(plan.find(c.expect), std::string::npos) << c.name << ": " << pred << "\n" << plan;
      }
      lossy_seen += figure(plan, "lossy=");
    }
  }
  EXPECT_GT(lossy_seen, 0u) << "work_mem = 64kB never made a bitmap lossy";
}

TEST_F(Plans, PlanChoiceFollowsTheCosts) {
  EXPECT_NE(first_line(*s_, "SELECT * FROM t WHERE a < 30").find("Bitmap Heap Scan"),
            std::string::npos);
  EXPECT_EQ(first_line(*s_, "SELECT * FROM t WHERE a < 30000").rfind("Seq Scan", 0), 0u);
  EXPECT_EQ(first_line(*s_, "SELECT * FROM t WHERE a = 30").rfind("Index Scan using t_a_idx", 0),
            0u);
  // The article's OR query shape: BitmapOr over two Bitmap Index Scans.
  std::string plan = plan_text(*s_,
                               "EXPLAIN SELECT * FROM t WHERE (b = 5 AND a BETWEEN 100 AND 900) OR "
                               "(b = 7 AND a BETWEEN 2000 AND 2500)");
  EXPECT_NE(plan.find("BitmapOr"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Bitmap Index Scan on t_b_a_idx"), std::string::npos) << plan;
  // IN lists are index conditions (one B-tree scan per element).
  plan = plan_text(*s_, "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE a IN (5, 3, 9)");
  EXPECT_NE(plan.find("Index Cond: (a = ANY ('{5,3,9}'::integer[]))"), std::string::npos) << plan;
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a IN (5, 3, 9, 3, 40001)"), "3");
  // Random I/O as cheap as sequential: the index wins a much wider range.
  s_->execute("SET random_page_cost = 1");
  EXPECT_EQ(first_line(*s_, "SELECT * FROM t WHERE a < 2000").rfind("Index Scan", 0), 0u)
      << plan_text(*s_, "EXPLAIN SELECT * FROM t WHERE a < 2000");
}

TEST_F(Plans, IndexGivesTheOrderInBothDirections) {
  s_->execute("SET enable_seqscan = off");
  ResultSet r = s_->execute("SELECT a FROM t ORDER BY a DESC LIMIT 3");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0][0], "40000");
  EXPECT_EQ(r.rows[2][0], "39998");
  std::string plan = plan_text(*s_, "EXPLAIN (COSTS OFF) SELECT a FROM t ORDER BY a DESC LIMIT 3");
  // The index holds the only column read: PostgreSQL's index-only scan.
  EXPECT_EQ(plan, "Limit\n  ->  Index Only Scan Backward using t_a_idx on t\n");
  s_->execute("SET enable_indexonlyscan = off");
  plan = plan_text(*s_, "EXPLAIN (COSTS OFF) SELECT a FROM t ORDER BY a DESC LIMIT 3");
  EXPECT_EQ(plan, "Limit\n  ->  Index Scan Backward using t_a_idx on t\n");
  r = s_->execute("SELECT a FROM t WHERE a > 10 ORDER BY a LIMIT 2");
  EXPECT_EQ(r.rows[0][0], "11");
  EXPECT_EQ(r.rows[1][0], "12");
}

// A cold full-table index scan of a shuffled table reads about one heap page
// per row; the hits are what the small pool still holds.
// An index holding every column read gives PostgreSQL's Index Only Scan; with no
// visibility map every entry is still fetched from the heap, as PostgreSQL before VACUUM.
TEST_F(Plans, IndexOnlyScanFetchesEveryRowFromTheHeap) {
  s_->execute("SET enable_bitmapscan = off");  // 99 rows on ~96 pages: a bitmap would win
  std::string plan = plan_text(
      *s_, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT a FROM t WHERE a < 100 AND a <> 50");
  EXPECT_NE(plan.find("Index Only Scan using t_a_idx on t (actual rows=98 loops=1)\n"
                      "  Index Cond: (a < 100)\n"
                      "  Filter: (a <> 50)\n"
                      "  Rows Removed by Filter: 1\n"
                      "  Heap Fetches: 99\n"),
            std::string::npos)
      << plan;
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 100 AND a <> 50"), "98");
  s_->execute("SET enable_indexonlyscan = off");
  EXPECT_EQ(first_line(*s_, "SELECT a FROM t WHERE a < 100").rfind("Index Scan using t_a_idx", 0),
            0u);
}

TEST_F(Plans, ColdFullIndexScanReadsAboutOnePagePerRow) {
  s_->execute("SET shared_buffers = '1MB'");  // 128 pages against ~1,800
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  s_->storage().evict_all();
  std::string plan =
      plan_text(*s_, "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT * FROM t ORDER BY a");
  EXPECT_NE(plan.find("Index Scan using t_a_idx"), std::string::npos) << plan;
  uint64_t read = figure(plan, "read="), hit = figure(plan, "hit=");
  EXPECT_GT(read, 40000u * 85 / 100) << plan;
  EXPECT_LT(read, 40000u + 200) << plan;  // rows + index pages at most
  EXPECT_GT(hit, 0u) << plan;
  EXPECT_LT(hit, 40000u * 20 / 100) << plan;
}

// LIMIT 1: the prefetch stream starts only after 4 heap block switches, so
// it reads nothing more than the plain scan.
TEST_F(Plans, LimitOneWithPrefetchReadsNoMore) {
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  uint64_t reads[2];
  for (int on = 0; on < 2; ++on) {
    s_->execute(std::string("SET index_prefetch = ") + (on ? "on" : "off"));
    s_->storage().evict_all();
    std::string plan =
        plan_text(*s_,
                  "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT * FROM t WHERE a > 500 ORDER BY a "
                  "LIMIT 1");
    EXPECT_NE(plan.find("Index Scan using"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("Prefetch:"), std::string::npos) << plan;  // the stream never started
    reads[on] = figure(plan, "read=");
  }
  EXPECT_GT(reads[0], 0u);
  EXPECT_LE(reads[1], reads[0]);
}

// index_prefetch = immediate starts the stream before the first heap read,
// even under LIMIT 1, and returns the same row as the plain scan.
TEST_F(Plans, ImmediatePrefetchStartsAtOnce) {
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  const char* query = "SELECT * FROM t WHERE a > 500 ORDER BY a LIMIT 1";
  ResultSet plain = s_->execute(query);
  s_->execute("SET index_prefetch = immediate");
  s_->storage().evict_all();
  std::string plan = plan_text(*s_, std::string("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ") + query);
  EXPECT_NE(plan.find("Prefetch:"), std::string::npos) << plan;
  EXPECT_EQ(s_->execute(query).rows, plain.rows);
}

TEST_F(Plans, PrefetchStreamReadsAheadOnAColdScan) {
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  s_->execute("SET index_prefetch = on");
  s_->execute("SET effective_io_concurrency = 8");
  s_->storage().evict_all();
  std::string plan = plan_text(
      *s_, "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t WHERE a < 5000");
  ASSERT_NE(plan.find("Prefetch: distance avg="), std::string::npos) << plan;
  EXPECT_GT(figure(plan, "I/Os="), 1000u) << plan;
  EXPECT_GT(figure(plan, "max="), 1u) << plan;
  EXPECT_NE(plan.find(" of 8"), std::string::npos) << plan;
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 5000"), "4999");
  // Above the thread's 64 I/O handles (io_max_concurrency) the stream is clamped, and
  // the Prefetch line says so.
  s_->execute("SET effective_io_concurrency = 256");
  s_->storage().evict_all();
  plan = plan_text(*s_,
                   "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t WHERE a < 5000");
  EXPECT_NE(plan.find(" of 64 (effective_io_concurrency=256 clamped by io_max_concurrency)"),
            std::string::npos)
      << plan;
  EXPECT_LE(figure(plan, "in flight max="), 64u) << plan;
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 5000"), "4999");
  // io_max_concurrency (PostgreSQL's name) lifts it: no clamp, no note.
  s_->execute("SET io_max_concurrency = 256");
  s_->storage().evict_all();
  plan = plan_text(*s_,
                   "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(*) FROM t WHERE a < 5000");
  EXPECT_NE(plan.find(" of 256"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("clamped"), std::string::npos) << plan;
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a < 5000"), "4999");
  s_->execute("RESET io_max_concurrency");
}

// Two selective conditions on columns with indexes of their own: as PostgreSQL's
// choose_bitmap_and does, the plan ANDs the two bitmaps and reads only the pages both
// name; a condition that barely filters stays a Filter instead.
TEST(PlansBitmapAnd, SelectiveConditionsOnTwoIndexesAndTheirBitmaps) {
  TempDir dir;
  Session s(testing::options_for(dir.data()));
  s.execute("CREATE TABLE u (a int, b int)");
  s.execute(
      "INSERT INTO u SELECT g, (g * 7919) % 100000 FROM generate_series(1, 100000) g "
      "ORDER BY random()");
  s.execute("CREATE INDEX ON u (a)");
  s.execute("CREATE INDEX ON u (b)");
  s.execute("ANALYZE u");
  int want = 0;
  for (int64_t g = 1; g <= 100000; ++g) want += g < 5000 && (g * 7919) % 100000 < 5000;

  const std::string q = "SELECT count(*) FROM u WHERE a < 5000 AND b < 5000";
  std::string plan = plan_text(s, "EXPLAIN (COSTS OFF) " + q);
  EXPECT_NE(plan.find("->  Bitmap Heap Scan on u"), std::string::npos) << plan;
  EXPECT_NE(plan.find("->  BitmapAnd"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Bitmap Index Scan on u_a_idx"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Bitmap Index Scan on u_b_idx"), std::string::npos) << plan;
  size_t recheck = plan.find("Recheck Cond: ");
  ASSERT_NE(recheck, std::string::npos) << plan;
  std::string line = plan.substr(recheck, plan.find('\n', recheck) - recheck);
  EXPECT_NE(line.find("(a < 5000)"), std::string::npos) << line;
  EXPECT_NE(line.find("(b < 5000)"), std::string::npos) << line;
  EXPECT_EQ(plan.find("Filter:"), std::string::npos) << plan;
  EXPECT_EQ(scalar(s, q), std::to_string(want));

  // b < 90000 keeps nine rows in ten: scanning u_b_idx for it costs more than it saves.
  const std::string wide = "SELECT count(*) FROM u WHERE a < 5000 AND b < 90000";
  plan = plan_text(s, "EXPLAIN (COSTS OFF) " + wide);
  EXPECT_EQ(plan.find("BitmapAnd"), std::string::npos) << plan;
  EXPECT_NE(plan.find("(b < 90000)"), std::string::npos) << plan;
  want = 0;
  for (int64_t g = 1; g <= 100000; ++g) want += g < 5000 && (g * 7919) % 100000 < 90000;
  EXPECT_EQ(scalar(s, wide), std::to_string(want));
}

}  // namespace
}  // namespace tp
