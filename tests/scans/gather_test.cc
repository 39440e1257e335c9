// Gather over a Parallel Seq Scan (and over a Partial Aggregate) returns exactly what
// the serial plan returns, for 0..8 workers, with and without the leader, over tables
// from empty to several chunks per participant; workers' figures reach the leader's
// copy of each node; a Limit, a read error in a worker and a cancel stop every worker
// and give back their slots and pins.
#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "aio/faults.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/interrupts.h"
#include "scans/gather.h"
#include "scans/seq_scan.h"
#include "scans/sort_limit_agg.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using scans::AggKind;
using scans::AggSpec;
using scans::AggState;
using ::testing::HasSubstr;

// The aggregates every test computes: count(*), sum/min/max of a, avg of b.
std::vector<AggSpec> aggs() {
  return {{AggKind::kCountStar, 0}, {AggKind::kSum, 0}, {AggKind::kMin, 0},
          {AggKind::kMax, 0},       {AggKind::kAvg, 1}, {AggKind::kCount, 1}};
}

class GatherTest : public ::testing::Test {
 protected:
  void TearDown() override { aio::clear_faults(); }

  // t(a, b): a = i * 7919 % rows - rows / 2 (negative and positive, unordered), b = i % 1000.
  void load(int64_t rows, int fillfactor = 100) {
    s_.execute("DROP TABLE IF EXISTS t");
    s_.execute("CREATE TABLE t (a bigint, b int) WITH (fillfactor=" + std::to_string(fillfactor) +
               ")");
    if (rows > 0)
      s_.execute("INSERT INTO t SELECT (i * 7919) % " + std::to_string(rows) + " - " +
                 std::to_string(rows / 2) + ", i % 1000 FROM generate_series(1, " +
                 std::to_string(rows) + ") s(i)");
  }
  const RelationEntry& table() { return *s_.catalog().find("t"); }
  bufmgr::BufferPool& pool() { return s_.storage().pool(); }
  aio::IoFile& heap() { return s_.storage().file(table()); }

  scans::SeqScanParams scan_params(scans::ParallelBlocks* shared) {
    HeapTupleLayout layout(table().columns);
    scans::SeqScanParams p;
    p.relation = "t";
    p.nblocks = heap().size_blocks();
    p.output = scans::TupleReader(table().columns, {0, 1});
    p.parallel = shared;
    return p;
  }
  std::unique_ptr<scans::ExecNode> scan(scans::ParallelBlocks* shared) {
    return std::make_unique<scans::SeqScanNode>(pool(), heap(), scan_params(shared));
  }
  scans::GatherParams gather_params(int workers, bool leader) {
    scans::GatherParams g;
    g.nblocks = heap().size_blocks();
    g.workers_planned = workers;
    g.leader_participation = leader;
    g.slots = &slots_;
    g.max_parallel_workers = 64;
    return g;
  }
  // Finalize Aggregate -> Gather -> Partial Aggregate -> Parallel Seq Scan.
  std::unique_ptr<scans::AggregateNode> parallel_aggregate(int workers, bool leader,
                                                           scans::GatherNode** gather = nullptr) {
    auto g = std::make_unique<scans::GatherNode>(
        [this](scans::ParallelBlocks& b) {
          return std::make_unique<scans::AggregateNode>(scan(&b), aggs(), scans::AggMode::kPartial);
        },
        gather_params(workers, leader));
    if (gather) *gather = g.get();
    return std::make_unique<scans::AggregateNode>(std::move(g), aggs(), scans::AggMode::kFinalize);
  }
  static std::vector<AggState> run_aggregate(scans::AggregateNode& agg) {
    agg.open();
    while (agg.next()) {
    }
    agg.shutdown();
    return agg.results();
  }
  // Every (a, b) the node returns, sorted (a Gather's order is not defined).
  static std::vector<std::pair<int64_t, int64_t>> rows_of(scans::ExecNode& node) {
    std::vector<std::pair<int64_t, int64_t>> out;
    node.open();
    while (const scans::RowBatch* b = node.next())
      for (uint32_t i = 0; i < b->count; ++i) out.push_back({b->row(i)[0], b->row(i)[1]});
    node.shutdown();
    std::sort(out.begin(), out.end());
    return out;
  }
  uint64_t pinned() { return pool().pins_held(); }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
  scans::ParallelWorkerSlots slots_;
};

void expect_same(const std::vector<AggState>& serial, const std::vector<AggState>& parallel,
                 const std::string& what) {
  ASSERT_EQ(serial.size(), parallel.size()) << what;
  for (size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(serial[i].count, parallel[i].count) << what << " aggregate " << i;
    EXPECT_TRUE(serial[i].sum == parallel[i].sum) << what << " aggregate " << i;
    if (serial[i].count > 0) {
      EXPECT_EQ(serial[i].min, parallel[i].min) << what << " aggregate " << i;
      EXPECT_EQ(serial[i].max, parallel[i].max) << what << " aggregate " << i;
    }
  }
}

TEST_F(GatherTest, PartialAggregatesEqualTheSerialPlanForEveryWorkerCountAndTableSize) {
  // Empty, one block (smaller than any chunk), a few hundred blocks (chunks of 1) and,
  // at fillfactor 10, 2,300 blocks (chunks of 2 with a ramp-down).
  for (auto [rows, ff] : {std::pair<int64_t, int>{0, 100}, {5, 100}, {60000, 100}, {50000, 10}}) {
    load(rows, ff);
    scans::AggregateNode serial(scan(nullptr), aggs());
    std::vector<AggState> want = run_aggregate(serial);
    ASSERT_EQ(want[0].count, rows);
    for (int workers : {0, 1, 2, 3, 8})
      for (bool leader : {true, false}) {
        std::string what = std::to_string(rows) + " rows, " + std::to_string(workers) +
                           " workers, leader " + (leader ? "on" : "off");
        scans::GatherNode* gather = nullptr;
        auto agg = parallel_aggregate(workers, leader, &gather);
        expect_same(want, run_aggregate(*agg), what);
        EXPECT_EQ(gather->workers_launched(), workers) << what;
        // Partial Aggregate ran once per participant; the scan read each row once.
        const scans::ExecNode& partial = *gather->children()[0];
        const scans::ExecNode& pscan = *partial.children()[0];
        const uint64_t participants = uint64_t(workers) + (leader || workers == 0 ? 1 : 0);
        EXPECT_EQ(partial.instr.loops, participants) << what;
        EXPECT_EQ(partial.instr.rows, participants) << what;
        EXPECT_EQ(pscan.instr.rows, uint64_t(rows)) << what;
        EXPECT_EQ(gather->instr.rows, participants) << what;
        EXPECT_EQ(slots_.in_use(), 0) << what;
        EXPECT_EQ(pinned(), 0u) << what;
      }
  }
}

TEST_F(GatherTest, RowsThroughGatherAreTheSerialRowsInSomeOrder) {
  load(40000);
  std::unique_ptr<scans::ExecNode> serial = scan(nullptr);
  auto want = rows_of(*serial);
  ASSERT_EQ(want.size(), 40000u);
  for (int workers : {0, 1, 4})
    for (bool leader : {true, false}) {
      scans::GatherNode gather([this](scans::ParallelBlocks& b) { return scan(&b); },
                               gather_params(workers, leader));
      EXPECT_EQ(rows_of(gather), want) << workers << " workers, leader " << leader;
      EXPECT_EQ(gather.instr.rows, 40000u);
      EXPECT_EQ(gather.explain_name(), "Gather");
      EXPECT_EQ(gather.children()[0]->explain_name(), "Parallel Seq Scan");
    }
}

TEST_F(GatherTest, BuffersAndReadStreamsOfWorkersAddUpToOneReadOfEachBlock) {
  load(60000);
  const BlockNumber n = heap().size_blocks();
  s_.storage().evict_all();
  scans::GatherNode* gather = nullptr;
  auto agg = parallel_aggregate(3, true, &gather);
  run_aggregate(*agg);
  const scans::ExecNode& pscan = *gather->children()[0]->children()[0];
  // Every block read once by some participant: the workers' reads are counted too.
  EXPECT_EQ(pscan.instr.buffers.shared_read, n);
  EXPECT_EQ(pscan.instr.buffers.shared_hit, 0u);
  EXPECT_EQ(gather->instr.buffers.shared_read, n);  // the Gather includes its workers
  EXPECT_EQ(agg->instr.buffers.shared_read, n);     // ... and so do the nodes above
  bufmgr::ReadStreamStats streams = *pscan.stream_stats();
  streams += pscan.instr.worker_streams;
  EXPECT_EQ(streams.buffers_returned, n);
  EXPECT_EQ(streams.io_blocks, n);
  EXPECT_EQ(pscan.instr.loops, 4u);
}

TEST_F(GatherTest, FewerWorkersStartWhenTheSlotsAreTaken) {
  load(20000);
  scans::AggregateNode serial(scan(nullptr), aggs());
  std::vector<AggState> want = run_aggregate(serial);
  ASSERT_EQ(slots_.reserve(5, 64), 5);  // another statement holds 5 slots
  // With max_parallel_workers = 7, only 2 of the 4 planned can start.
  auto limited = std::make_unique<scans::GatherNode>(
      [this](scans::ParallelBlocks& b) {
        return std::make_unique<scans::AggregateNode>(scan(&b), aggs(), scans::AggMode::kPartial);
      },
      [&] {
        scans::GatherParams g = gather_params(4, true);
        g.max_parallel_workers = 7;
        return g;
      }());
  scans::GatherNode* lim = limited.get();
  scans::AggregateNode fin(std::move(limited), aggs(), scans::AggMode::kFinalize);
  expect_same(want, run_aggregate(fin), "2 of 4 workers");
  EXPECT_EQ(lim->workers_launched(), 2);
  EXPECT_EQ(slots_.in_use(), 5);
  slots_.release(5);
  // None left at all: the leader runs the whole plan, even without participation.
  ASSERT_EQ(slots_.reserve(64, 64), 64);
  scans::GatherNode* gather = nullptr;
  auto none = parallel_aggregate(4, false, &gather);
  expect_same(want, run_aggregate(*none), "no worker slot");
  EXPECT_EQ(gather->workers_launched(), 0);
  slots_.release(64);
}

TEST_F(GatherTest, LimitStopsTheWorkersAndGivesBackTheirSlotsAndPins) {
  load(60000);
  auto gather = std::make_unique<scans::GatherNode>(
      [this](scans::ParallelBlocks& b) { return scan(&b); }, gather_params(4, true));
  scans::GatherNode* g = gather.get();
  scans::LimitNode limit(std::move(gather), 10);
  uint64_t rows = 0;
  limit.open();
  while (const scans::RowBatch* b = limit.next()) rows += b->count;
  EXPECT_EQ(rows, 10u);
  // The Limit ended its window: the workers were stopped and joined already (their
  // pins gone with them; the leader's scan keeps its page until the plan ends).
  EXPECT_EQ(slots_.in_use(), 0);
  EXPECT_EQ(g->workers_launched(), 4);
  EXPECT_EQ(g->children()[0]->instr.loops, 5u);  // the workers' loops were collected
  // ... and their buffers count in the Gather too, as PostgreSQL's ExecShutdownNode does.
  EXPECT_EQ(
      g->instr.buffers.shared_hit + g->instr.buffers.shared_read,
      g->children()[0]->instr.buffers.shared_hit + g->children()[0]->instr.buffers.shared_read);
  EXPECT_LE(pinned(), uint64_t(pool().my_pin_count()));
}

TEST_F(GatherTest, AReadErrorInAWorkerFailsTheStatementAndStopsEveryWorker) {
  load(60000);
  const BlockNumber n = heap().size_blocks();
  for (bool leader : {true, false}) {
    s_.storage().evict_all();
    aio::clear_faults();
    aio::inject_fault({.relnumber = heap().relnumber(), .block = n / 2, .once = false});
    auto agg = parallel_aggregate(3, leader);
    try {
      run_aggregate(*agg);
      ADD_FAILURE() << "the read error was lost, leader " << leader;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("block " + std::to_string(n / 2)));
    }
    agg.reset();
    EXPECT_EQ(slots_.in_use(), 0);
    EXPECT_EQ(pinned(), 0u);
  }
  aio::clear_faults();
  // The pool and the I/O system still work.
  scans::AggregateNode serial(scan(nullptr), aggs());
  EXPECT_EQ(run_aggregate(serial)[0].count, 60000);
}

TEST_F(GatherTest, ACancelStopsEveryWorker) {
  load(60000);
  for (bool leader : {true, false}) {
    std::atomic<bool> cancel{false};
    StatementCancelScope scope(cancel);
    auto gather = std::make_unique<scans::GatherNode>(
        [this](scans::ParallelBlocks& b) { return scan(&b); }, gather_params(3, leader));
    gather->open();
    ASSERT_NE(gather->next(), nullptr);
    cancel = true;  // as Session::cancel() from another thread
    EXPECT_THROW(
        {
          while (gather->next()) {
          }
        },
        QueryCanceled);
    gather.reset();
    EXPECT_EQ(slots_.in_use(), 0);
    EXPECT_EQ(pinned(), 0u);
  }
}

TEST_F(GatherTest, ExplainShowsWorkersPlannedAndLaunched) {
  load(1000);
  scans::GatherNode gather([this](scans::ParallelBlocks& b) { return scan(&b); },
                           gather_params(2, true));
  std::vector<std::string> lines;
  gather.explain_details(lines, false);
  EXPECT_EQ(lines, std::vector<std::string>{"Workers Planned: 2"});
  rows_of(gather);
  lines.clear();
  gather.explain_details(lines, true);
  EXPECT_EQ(lines, (std::vector<std::string>{"Workers Planned: 2", "Workers Launched: 2"}));
}

// Every worker thread gets its own I/O handles (and, with io_uring, its own ring) on
// first use and gives them back when it ends: cold parallel scans under each method,
// buffered and direct, return the serial result and read each block once.
TEST_F(GatherTest, EveryIoMethodBufferedAndDirect) {
  load(30000);
  scans::AggregateNode serial(scan(nullptr), aggs());
  const std::vector<AggState> want = run_aggregate(serial);
  for (const char* method : {"sync", "worker", "io_uring"}) {
#if defined(__SANITIZE_THREAD__)
    // io_uring's completions are ordered through kernel ring memory TSan cannot see
    // (tests/bufmgr/stress_test.cc); the ASan build runs it.
    if (std::string(method) == "io_uring") continue;
#endif
    for (const char* direct : {"off", "on"}) {
      s_.execute(std::string("SET io_method = ") + method);
      s_.execute(std::string("SET io_direct = ") + direct);
      s_.storage().evict_all();
      for (int round = 0; round < 2; ++round) {  // the second run reuses freed thread slots
        scans::GatherNode* gather = nullptr;
        auto agg = parallel_aggregate(4, true, &gather);
        std::string what = std::string(method) + ", io_direct " + direct;
        expect_same(want, run_aggregate(*agg), what);
        const scans::ExecNode& pscan = *gather->children()[0]->children()[0];
        EXPECT_EQ(pscan.instr.buffers.shared_read + pscan.instr.buffers.shared_hit,
                  heap().size_blocks())
            << what;
        if (round == 0) {
          EXPECT_EQ(pscan.instr.buffers.shared_read, heap().size_blocks()) << what;
        }
      }
    }
  }
}

// 32 workers and the leader on a 1 MB pool (128 buffers): each participant's stream
// takes its share of half the pool, so the scans still find buffers to evict (without
// the share, 33 streams pinned every buffer: "no unpinned buffers available").
TEST_F(GatherTest, ManyWorkersOnATinyPoolShareItsBuffers) {
  s_.execute("SET shared_buffers = '1MB'");
  load(20000, 10);
  ASSERT_GT(heap().size_blocks(), 800u);
  scans::AggregateNode serial(scan(nullptr), aggs());
  const std::vector<AggState> want = run_aggregate(serial);
  scans::GatherNode* gather = nullptr;
  auto agg = parallel_aggregate(32, true, &gather);
  expect_same(want, run_aggregate(*agg), "32 workers, 128 buffers");
  EXPECT_EQ(gather->workers_launched(), 32);
  EXPECT_EQ(pinned(), 0u);
}

// Three statements at once (as sessions of a server would run them), each a Gather with
// three workers, over two tables that together do not fit in a 4 MB pool: twelve
// threads pin, evict and read on the shared pool while their rings recycle buffers.
// Every result must still be exact (and ThreadSanitizer must see no race).
TEST_F(GatherTest, ManyParallelScansShareASmallPoolWhileItEvicts) {
  s_.execute("SET shared_buffers = '4MB'");
  load(60000);
  s_.execute("CREATE TABLE u (a bigint, b int)");
  s_.execute("INSERT INTO u SELECT i, i % 1000 FROM generate_series(1, 60000) s(i)");
  aio::IoFile& t_file = heap();
  aio::IoFile& u_file = s_.storage().file(*s_.catalog().find("u"));
  ASSERT_GT(t_file.size_blocks() + u_file.size_blocks(), BlockNumber(pool().shared_buffers()));
  scans::AggregateNode serial_t(scan(nullptr), aggs());
  const std::vector<AggState> want_t = run_aggregate(serial_t);
  scans::SeqScanParams u_params = scan_params(nullptr);
  u_params.nblocks = u_file.size_blocks();
  scans::AggregateNode serial_u(std::make_unique<scans::SeqScanNode>(pool(), u_file, u_params),
                                aggs());
  const std::vector<AggState> want_u = run_aggregate(serial_u);

  std::atomic<int> mismatches{0};
  auto statement = [&](int id) {
    for (int round = 0; round < 4; ++round) {
      bool on_t = (id + round) % 2 == 0;
      aio::IoFile& file = on_t ? t_file : u_file;
      scans::SeqScanParams p = scan_params(nullptr);
      p.nblocks = file.size_blocks();
      scans::GatherParams g = gather_params(3, true);
      g.nblocks = p.nblocks;
      auto gather = std::make_unique<scans::GatherNode>(
          [&, p](scans::ParallelBlocks& b) mutable {
            p.parallel = &b;
            return std::make_unique<scans::AggregateNode>(
                std::make_unique<scans::SeqScanNode>(pool(), file, p), aggs(),
                scans::AggMode::kPartial);
          },
          g);
      scans::AggregateNode fin(std::move(gather), aggs(), scans::AggMode::kFinalize);
      std::vector<AggState> got = run_aggregate(fin);
      const std::vector<AggState>& want = on_t ? want_t : want_u;
      for (size_t i = 0; i < want.size(); ++i)
        if (got[i].count != want[i].count || got[i].sum != want[i].sum) ++mismatches;
    }
  };
  std::vector<std::thread> statements;
  for (int id = 0; id < 3; ++id) statements.emplace_back(statement, id);
  for (std::thread& t : statements) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(slots_.in_use(), 0);
  EXPECT_EQ(pinned(), 0u);
}

}  // namespace
}  // namespace tp
