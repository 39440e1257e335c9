// Index prefetching where it is hard (issue 34): the inner Index Scan of a Nested Loop
// keeps its stream and its policy from outer row to outer row; `rescan_aware` starts
// the stream at once for lookups that read several blocks and not for one-page ones,
// and reads ahead no further than a LIMIT's rows (or a semi-join's first match) may take; a Merge
// Join over a streamed inner scan and an Index Only Scan that streams only the pages the visibility
// map does not cover give the rows prefetching off gives. Every statement starts with an empty
// pool, so each heap page it needs is a read.
#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// t: 20,000 rows, fillfactor 10 (22 rows a page), a = i % 500: each value of a has 40
// rows, 500 rows (23 pages) apart. o: 20 keys 25 apart, so no heap page holds rows of
// two of them: each lookup reads 40 pages no other lookup reads.
class RescanPrefetch : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
    s_.execute("INSERT INTO t SELECT i % 500, i FROM generate_series(1, 20000) s(i)");
    s_.execute("CREATE INDEX t_a ON t (a)");
    s_.execute("CREATE TABLE o (k int)");
    s_.execute("INSERT INTO o SELECT 25 * i FROM generate_series(0, 19) s(i)");
    s_.execute("ANALYZE");
    for (const char* set :
         {"SET enable_hashjoin = off", "SET enable_mergejoin = off", "SET enable_material = off",
          "SET enable_memoize = off", "SET enable_bitmapscan = off", "SET io_method = sync"})
      s_.execute(set);
  }

  // The statement's rows on an empty pool, with no pin left behind.
  std::vector<std::vector<std::string>> cold_rows(const std::string& sql) {
    s_.storage().evict_all();
    auto rows = s_.execute(sql).rows;
    EXPECT_EQ(s_.storage().pool().my_pin_count(), 0u) << sql;
    return rows;
  }
  // EXPLAIN (ANALYZE, BUFFERS) on an empty pool, one line per row.
  std::string cold_plan(const std::string& sql) {
    s_.storage().evict_all();
    std::string plan;
    for (const auto& row : s_.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql).rows)
      plan += row[0] + "\n";
    EXPECT_EQ(s_.storage().pool().my_pin_count(), 0u) << sql;
    return plan;
  }
  // The number after `key` on the first line after the one holding `node`, or -1.
  static long long figure(const std::string& plan, const std::string& node,
                          const std::string& key) {
    size_t at = plan.find(node);
    if (at == std::string::npos) return -1;
    at = plan.find(key, at);
    return at == std::string::npos ? -1 : std::stoll(plan.substr(at + key.size()));
  }
  void prefetch(const std::string& mode, const std::string& policy) {
    s_.execute("SET index_prefetch = " + mode);
    s_.execute("SET prefetch_policy = " + policy);
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

const char* const kJoin = "SELECT count(*), sum(t.b) FROM o JOIN t ON t.a = o.k";
const char* const kInner = "Index Scan using t_a on t";

TEST_F(RescanPrefetch, EveryPolicyJoinsTheRowsPrefetchOffJoins) {
  prefetch("off", "tidepool");
  const std::string plan = cold_plan(kJoin);
  ASSERT_THAT(plan, HasSubstr("Nested Loop"));
  ASSERT_THAT(plan, HasSubstr(kInner));
  EXPECT_THAT(plan, HasSubstr("loops=20"));
  const auto off = cold_rows(kJoin);
  ASSERT_EQ(off.at(0).at(0), "800");
  for (const std::string mode : {"on", "immediate"})
    for (const std::string& policy : bufmgr::prefetch_policy_names()) {
      prefetch(mode, policy);
      EXPECT_EQ(cold_rows(kJoin), off) << mode << " " << policy;
      // The same again with the pages cached: every run of the stream hits.
      EXPECT_EQ(s_.execute(kJoin).rows, off) << mode << " " << policy << " cached";
    }
}

// The default starts a stream in each run after 4 heap-block switches, from distance 1;
// rescan_aware starts it at once from the second run on, at the distance the run before
// ended with. Both read each of the 800 heap pages once, as prefetching off does;
// rescan_aware streams more of them and looks further ahead.
TEST_F(RescanPrefetch, RescanAwareStartsLaterRunsAtOnceAtTheCarriedDistance) {
  prefetch("off", "tidepool");
  const long long reads = figure(cold_plan(kJoin), kInner, "read=");
  EXPECT_GE(reads, 800);  // and the index's pages
  prefetch("on", "tidepool");
  const std::string fresh = cold_plan(kJoin);
  prefetch("on", "rescan_aware");
  const std::string carried = cold_plan(kJoin);
  for (const std::string* plan : {&fresh, &carried}) {
    ASSERT_THAT(*plan, HasSubstr(kInner));
    EXPECT_EQ(figure(*plan, kInner, "read="), reads) << *plan;
    EXPECT_EQ(figure(*plan, kInner, "wasted="), -1) << *plan;  // no reads thrown away
  }
  // Each run streams the 36 pages after its first 4.
  EXPECT_EQ(figure(fresh, kInner, "I/Os="), 20 * 36) << fresh;
  // The first run as the default; the 19 others stream all 40 pages.
  EXPECT_EQ(figure(carried, kInner, "I/Os="), 36 + 19 * 40) << carried;
  EXPECT_THAT(carried, HasSubstr("policy=rescan_aware"));
  EXPECT_GT(figure(carried, kInner, "distance avg="), figure(fresh, kInner, "distance avg="));
}

// An EXISTS stops each lookup at its first row, here on its first page: rescan_aware
// never starts them early and reads exactly what prefetching off reads.
TEST_F(RescanPrefetch, LookupsCutShortReadNoMoreThanWithoutPrefetch) {
  const std::string semi =
      "SELECT count(*) FROM o WHERE EXISTS (SELECT 1 FROM t WHERE t.a = o.k AND t.b > 0)";
  prefetch("off", "tidepool");
  const std::string off = cold_plan(semi);
  ASSERT_THAT(off, HasSubstr("Nested Loop Semi Join"));
  ASSERT_THAT(off, HasSubstr(kInner));
  // One row and one heap page per lookup, as in PostgreSQL.
  EXPECT_THAT(off, HasSubstr("rows=1 loops=20"));
  const long long reads = figure(off, kInner, "read=");
  EXPECT_LT(reads, 20 + 40);  // 20 heap pages and the index's
  prefetch("on", "rescan_aware");
  const std::string aware = cold_plan(semi);
  EXPECT_EQ(figure(aware, kInner, "read="), reads) << aware;
  EXPECT_EQ(figure(aware, kInner, "wasted="), -1) << aware;
  EXPECT_EQ(cold_rows(semi).at(0).at(0), "20");
}

// With a Filter, each lookup passes 3 or 4 entries before its match, each on a page of
// its own. Prefetching off reads them one by one. rescan_aware's first run does too;
// the later runs start at once with their look-ahead bounded by the entries a match has
// taken so far (about 4): they stream their pages, and throw away at most a few each.
TEST_F(RescanPrefetch, LookupsCutShortAfterSeveralReadsStartAtOnceBoundedByTheirEntries) {
  const std::string semi =
      "SELECT count(*) FROM o WHERE EXISTS (SELECT 1 FROM t WHERE t.a = o.k AND t.b > 1200)";
  prefetch("off", "tidepool");
  const std::string off = cold_plan(semi);
  ASSERT_THAT(off, HasSubstr("Nested Loop Semi Join"));
  ASSERT_THAT(off, HasSubstr(kInner));
  EXPECT_THAT(off, HasSubstr("rows=1 loops=20"));
  EXPECT_EQ(figure(off, kInner, "Rows Removed by Filter: "), 2) << off;  // 49 over 20 loops
  const long long reads = figure(off, kInner, "read=");
  prefetch("on", "rescan_aware");
  const std::string aware = cold_plan(semi);
  EXPECT_THAT(aware, HasSubstr("rows=1 loops=20"));
  // The 19 later runs stream their 69 pages (3 or 4 each)...
  EXPECT_GE(figure(aware, kInner, "I/Os="), 19 * 3) << aware;
  // ...and read ahead no more than 3 pages a run that their match did not need (the
  // Buffers line counts only the pages the scan used: the same as without prefetching).
  EXPECT_LE(figure(aware, kInner, "wasted="), 19 * 3) << aware;
  EXPECT_EQ(figure(aware, kInner, "read="), reads) << aware;
  EXPECT_EQ(cold_rows(semi).at(0).at(0), "20");
  // The default policy never gets to 4 reads in a run: no stream read.
  prefetch("on", "tidepool");
  EXPECT_EQ(figure(cold_plan(semi), kInner, "I/Os="), 0);
}

// Merge Join: the inner Index Scan streams its heap pages while the join walks equal
// runs on both sides (o2 holds each key twice).
TEST_F(RescanPrefetch, MergeJoinOverAStreamedInnerScanGivesEveryPair) {
  s_.execute("CREATE TABLE o2 (k int, x int)");
  s_.execute("INSERT INTO o2 SELECT (i % 250) * 2, i FROM generate_series(1, 500) s(i)");
  s_.execute("CREATE INDEX o2_k ON o2 (k)");
  s_.execute("ANALYZE o2");
  s_.execute("SET enable_nestloop = off");
  s_.execute("SET enable_mergejoin = on");
  s_.execute("SET enable_sort = off");
  s_.execute("SET enable_seqscan = off");
  const std::string q = "SELECT count(*), sum(t.b + o2.x) FROM o2 JOIN t ON t.a = o2.k";
  prefetch("off", "tidepool");
  const std::string plan = cold_plan(q);
  ASSERT_THAT(plan, HasSubstr("Merge Join"));
  ASSERT_THAT(plan, HasSubstr(kInner));
  const auto off = cold_rows(q);
  EXPECT_EQ(off.at(0).at(0), "20000");  // 250 keys x 2 rows x 40 rows
  for (const std::string policy : {"tidepool", "fixed", "rescan_aware"}) {
    prefetch("immediate", policy);
    EXPECT_THAT(cold_plan(q), HasSubstr("Prefetch:")) << policy;
    EXPECT_EQ(cold_rows(q), off) << policy;
  }
}

// An Index Only Scan streams only the heap pages the visibility map does not mark
// all-visible: rows inserted after the VACUUM sit on pages it has not seen, and the
// stream reads nothing else.
TEST_F(RescanPrefetch, IndexOnlyScanStreamsOnlyPagesNotAllVisible) {
  s_.execute("VACUUM t");
  s_.execute("INSERT INTO t SELECT i % 100, i FROM generate_series(1, 2000) s(i)");
  s_.execute("SET enable_seqscan = off");
  const std::string q = "SELECT count(a) FROM t WHERE a < 100";
  prefetch("off", "tidepool");
  const std::string off = cold_plan(q);
  ASSERT_THAT(off, HasSubstr("Index Only Scan using t_a on t"));
  const long long fetches = figure(off, "Index Only Scan", "Heap Fetches: ");
  EXPECT_GT(fetches, 0);
  // The 2,000 new rows (and any old row that shares a page with one); the 4,000 entries
  // on the vacuumed pages come from the index.
  EXPECT_GE(fetches, 2000);
  EXPECT_LT(fetches, 2100);
  const auto rows = cold_rows(q);
  for (const std::string policy : {"tidepool", "fixed"}) {
    prefetch("immediate", policy);
    const std::string plan = cold_plan(q);
    EXPECT_EQ(figure(plan, "Index Only Scan", "Heap Fetches: "), fetches) << plan;
    EXPECT_EQ(figure(plan, "Index Only Scan", "read="), figure(off, "Index Only Scan", "read="))
        << plan;
    EXPECT_THAT(plan, HasSubstr("Prefetch:"));
    EXPECT_EQ(cold_rows(q), rows);
  }
}

// Under a LIMIT, rescan_aware's stream reads ahead only the entries the rows still
// wanted may take: even started at once it reads what prefetching off reads, where the
// default's immediate stream reads a distance's worth past the 10th row. On a table in
// key order (22 entries a page, the consumer passing the callback on each page) and
// through a Filter that keeps one row in four, the rows are those of prefetching off.
TEST_F(RescanPrefetch, ALimitBoundsRescanAwaresLookAhead) {
  s_.execute("CREATE TABLE sh (a int, b int) WITH (fillfactor=10)");
  s_.execute("INSERT INTO sh SELECT (i * 7919) % 20011, i FROM generate_series(1, 20010) s(i)");
  s_.execute("CREATE INDEX sh_a ON sh (a)");
  s_.execute("CREATE TABLE kc (a int, b int) WITH (fillfactor=10)");
  s_.execute("INSERT INTO kc SELECT i, i FROM generate_series(1, 20000) s(i)");
  s_.execute("CREATE INDEX kc_a ON kc (a)");
  s_.execute("ANALYZE");
  s_.execute("SET enable_seqscan = off");
  s_.execute("SET enable_sort = off");
  const std::string limited = "SELECT a, b FROM sh WHERE a > 100 ORDER BY a LIMIT 10";
  prefetch("off", "tidepool");
  const std::string off = cold_plan(limited);
  ASSERT_THAT(off, HasSubstr("Index Scan using sh_a on sh"));
  const long long reads = figure(off, "Index Scan", "read=");
  prefetch("immediate", "tidepool");
  EXPECT_GT(figure(cold_plan(limited), "Index Scan", "wasted="), 0);
  prefetch("immediate", "rescan_aware");
  const std::string bounded = cold_plan(limited);
  EXPECT_THAT(bounded, HasSubstr("Prefetch:"));
  EXPECT_EQ(figure(bounded, "Index Scan", "wasted="), -1) << bounded;
  EXPECT_EQ(figure(bounded, "Index Scan", "read="), reads) << bounded;
  for (const std::string& q :
       {limited, std::string("SELECT a, b FROM sh WHERE a > 100 AND b % 4 = 0 ORDER BY a LIMIT 25"),
        std::string("SELECT a, b FROM kc WHERE a > 7 ORDER BY a LIMIT 300"),
        std::string("SELECT a, b FROM kc WHERE a > 7 AND b % 3 = 0 ORDER BY a LIMIT 300 OFFSET 9"),
        std::string("SELECT a, b FROM sh ORDER BY a DESC LIMIT 40")}) {
    prefetch("off", "tidepool");
    const auto want = cold_rows(q);
    ASSERT_FALSE(want.empty()) << q;
    for (const std::string mode : {"on", "immediate"}) {
      prefetch(mode, "rescan_aware");
      EXPECT_EQ(cold_rows(q), want) << mode << ": " << q;
    }
  }
}

// nestloop_prefetch: the Nested Loop looks up 32 outer rows ahead and reads their inner
// heap pages through its own stream; each inner scan then finds its pages in the pool.
// Inner, left, semi and anti joins give the rows they give without it, with NULL and
// repeated keys and more outer rows than one batch.
TEST_F(RescanPrefetch, NestLoopBatchingReadsTheInnerPagesAheadAndJoinsTheSameRows) {
  s_.execute("SET nestloop_prefetch = on");
  const std::string plan = cold_plan(kJoin);
  ASSERT_THAT(plan, HasSubstr("Prefetch Batch: 32 outer rows"));
  // The join's stream read the 800 heap pages; the inner scans read only index pages.
  EXPECT_EQ(figure(plan, "Nested Loop", "I/Os="), 800) << plan;
  EXPECT_LT(figure(plan, kInner, "read="), 40) << plan;
  EXPECT_EQ(cold_rows(kJoin).at(0).at(0), "800");

  s_.execute("CREATE TABLE ob (k int, x int)");
  s_.execute(
      "INSERT INTO ob SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 37) % 600 END, i "
      "FROM generate_series(1, 3000) s(i)");
  s_.execute("ANALYZE ob");
  for (const std::string& q :
       {std::string("SELECT count(*), sum(t.b), sum(ob.x) FROM ob JOIN t ON t.a = ob.k"),
        std::string("SELECT count(*), sum(t.b), count(ob.x) FROM ob LEFT JOIN t ON t.a = ob.k"),
        std::string("SELECT count(*), sum(x) FROM ob WHERE EXISTS (SELECT 1 FROM t WHERE t.a = "
                    "ob.k AND t.b > 10000)"),
        std::string("SELECT count(*), sum(x) FROM ob WHERE NOT EXISTS (SELECT 1 FROM t WHERE "
                    "t.a = ob.k AND t.b > 10000)")}) {
    s_.execute("SET nestloop_prefetch = off");
    const auto want = cold_rows(q);
    for (const std::string rows : {"1", "32", "1024"}) {
      s_.execute("SET nestloop_prefetch = on");
      s_.execute("SET nestloop_prefetch_rows = " + rows);
      const std::string p = cold_plan(q);
      EXPECT_THAT(p, HasSubstr("Prefetch Batch: " + rows + " outer rows")) << q;
      EXPECT_EQ(cold_rows(q), want) << rows << ": " << q;
      prefetch("immediate", "rescan_aware");
      EXPECT_EQ(cold_rows(q), want) << rows << " with index prefetching: " << q;
      prefetch("off", "tidepool");
    }
  }
  s_.execute("RESET nestloop_prefetch_rows");
}

// cost_model = prefetch_aware prices the batching: with the inner heap pages out of the
// pool (direct I/O, so no kernel cache either) the look-ups ahead save reads at depth
// 1, and the planner batches and lowers the join's cost; with the pages in the pool they
// save nothing, and it does not batch.
TEST_F(RescanPrefetch, PrefetchAwareBatchesOnlyWhereTheInnerPagesAreNotCached) {
  s_.execute("SET io_method = worker");  // a device curve where depth pays
  s_.execute("SET io_direct = on");
  s_.execute("SET cost_model = prefetch_aware");
  s_.execute("SET index_prefetch = on");
  const std::string explain = std::string("EXPLAIN ") + kJoin;
  auto plan = [&] {
    std::string text;
    for (const auto& row : s_.execute(explain).rows) text += row[0] + "\n";
    return text;
  };
  auto join_cost = [](const std::string& p) {
    const size_t at = p.find("..", p.find("Nested Loop"));
    return at == std::string::npos ? -1.0 : std::stod(p.substr(at + 2));
  };
  s_.storage().evict_all();
  const std::string unbatched = plan();
  s_.execute("SET nestloop_prefetch = on");
  const std::string cold = plan();
  EXPECT_THAT(cold, HasSubstr("Prefetch Batch: 32 outer rows")) << cold;
  EXPECT_LT(join_cost(cold), join_cost(unbatched)) << cold << unbatched;
  EXPECT_THAT(unbatched, Not(HasSubstr("Prefetch Batch"))) << unbatched;

  // Every page of t in the pool (the model takes a relation's cached share as spread
  // evenly over its pages, so the join's own 800 of 910 would leave some reads).
  s_.execute("SET enable_seqscan = off");
  s_.execute("SELECT count(*) FROM t WHERE a >= 0");
  s_.execute("RESET enable_seqscan");
  const std::string warm = plan();
  EXPECT_THAT(warm, HasSubstr("Nested Loop")) << warm;
  EXPECT_THAT(warm, Not(HasSubstr("Prefetch Batch"))) << warm;
  // PostgreSQL 15's costs: on means every nested loop over an index scan batches.
  s_.execute("SET cost_model = pg15");
  EXPECT_THAT(plan(), HasSubstr("Prefetch Batch: 32 outer rows"));
}

}  // namespace
}  // namespace tp
