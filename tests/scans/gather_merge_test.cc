// Gather Merge over `Sort -> Parallel Seq Scan` returns exactly the serial Sort's rows in
// the serial Sort's order (by the keys; rows equal on every key may come in another
// order), for 0..4 workers with and without the leader, ascending, descending and on two
// keys with duplicates, over an empty table too; a Limit (with each participant's Sort
// bounded) stops the workers; a read error in a worker and a cancel stop every worker
// and give back their slots and pins.
#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>

#include "aio/faults.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/interrupts.h"
#include "scans/gather_merge.h"
#include "scans/seq_scan.h"
#include "scans/sort_limit_agg.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using scans::SortKey;
using ::testing::HasSubstr;

using Row = std::pair<int64_t, int64_t>;  // (a, b)

class GatherMergeTest : public ::testing::Test {
 protected:
  void TearDown() override { aio::clear_faults(); }

  // t(a, b): a = i * 7919 % rows - rows / 2 (distinct, unordered), b = i % 1000 (duplicates).
  void load(int64_t rows) {
    s_.execute("DROP TABLE IF EXISTS t");
    s_.execute("CREATE TABLE t (a bigint, b int)");
    if (rows > 0)
      s_.execute("INSERT INTO t SELECT (i * 7919) % " + std::to_string(rows) + " - " +
                 std::to_string(rows / 2) + ", i % 1000 FROM generate_series(1, " +
                 std::to_string(rows) + ") s(i)");
  }
  const RelationEntry& table() { return *s_.catalog().find("t"); }
  bufmgr::BufferPool& pool() { return s_.storage().pool(); }
  aio::IoFile& heap() { return s_.storage().file(table()); }

  std::unique_ptr<scans::ExecNode> scan(scans::ParallelBlocks* shared) {
    HeapTupleLayout layout(table().columns);
    scans::SeqScanParams p;
    p.relation = "t";
    p.nblocks = heap().size_blocks();
    p.output = scans::TupleReader(table().columns, {0, 1});
    p.parallel = shared;
    return std::make_unique<scans::SeqScanNode>(pool(), heap(), std::move(p));
  }
  std::unique_ptr<scans::ExecNode> sorted(scans::ParallelBlocks* shared,
                                          const std::vector<SortKey>& keys, int64_t bound = 0) {
    return std::make_unique<scans::SortNode>(scan(shared), keys, "k", bound, uint64_t(1) << 30);
  }
  std::unique_ptr<scans::GatherMergeNode> gather_merge(int workers, bool leader,
                                                       const std::vector<SortKey>& keys,
                                                       int64_t bound = 0) {
    scans::GatherParams g;
    g.nblocks = heap().size_blocks();
    g.workers_planned = workers;
    g.leader_participation = leader;
    g.slots = &slots_;
    g.max_parallel_workers = 64;
    return std::make_unique<scans::GatherMergeNode>(
        [this, keys, bound](scans::ParallelBlocks& b) { return sorted(&b, keys, bound); }, g, keys);
  }
  static std::vector<Row> rows_of(scans::ExecNode& node) {
    std::vector<Row> out;
    node.open();
    while (const scans::RowBatch* b = node.next())
      for (uint32_t i = 0; i < b->count; ++i) out.push_back({b->row(i)[0], b->row(i)[1]});
    node.shutdown();
    return out;
  }
  uint64_t pinned() { return pool().pins_held(); }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
  scans::ParallelWorkerSlots slots_;
};

// The rows' key columns, in order: what a merge must reproduce exactly.
std::vector<std::vector<int64_t>> keys_of(const std::vector<Row>& rows,
                                          const std::vector<SortKey>& keys) {
  std::vector<std::vector<int64_t>> out;
  for (const Row& r : rows) {
    std::vector<int64_t> k;
    for (const SortKey& key : keys) k.push_back(key.slot == 0 ? r.first : r.second);
    out.push_back(k);
  }
  return out;
}

std::vector<Row> sorted_copy(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST_F(GatherMergeTest, TheSerialSortsOrderForEveryWorkerCountAndKey) {
  const std::vector<std::vector<SortKey>> key_sets = {
      {{0, false}}, {{0, true}}, {{1, false}, {0, true}}, {{1, true}}};
  for (int64_t rows : {0, 5, 40000}) {
    load(rows);
    for (const auto& keys : key_sets) {
      scans::SortNode serial(scan(nullptr), keys, "k", 0, uint64_t(1) << 30);
      const std::vector<Row> want = rows_of(serial);
      ASSERT_EQ(want.size(), size_t(rows));
      for (int workers = 0; workers <= 4; ++workers)
        for (bool leader : {true, false}) {
          std::string what = std::to_string(rows) + " rows, " + std::to_string(keys.size()) +
                             " keys, first desc " + std::to_string(keys[0].descending) + ", " +
                             std::to_string(workers) + " workers, leader " +
                             (leader ? "on" : "off");
          auto gm = gather_merge(workers, leader, keys);
          const std::vector<Row> got = rows_of(*gm);
          EXPECT_EQ(keys_of(got, keys), keys_of(want, keys)) << what;
          EXPECT_EQ(sorted_copy(got), sorted_copy(want)) << what;
          EXPECT_EQ(gm->workers_launched(), workers) << what;
          EXPECT_EQ(gm->instr.rows, uint64_t(rows)) << what;
          // Each participant sorted its share; together they read every row once.
          const scans::ExecNode& sort = *gm->children()[0];
          const uint64_t participants = uint64_t(workers) + (leader || workers == 0 ? 1 : 0);
          EXPECT_EQ(sort.instr.loops, participants) << what;
          EXPECT_EQ(sort.instr.rows, uint64_t(rows)) << what;
          EXPECT_EQ(sort.children()[0]->instr.rows, uint64_t(rows)) << what;
          EXPECT_EQ(slots_.in_use(), 0) << what;
          EXPECT_EQ(pinned(), 0u) << what;
        }
    }
  }
}

TEST_F(GatherMergeTest, ALimitStopsTheWorkersAndEachSortKeepsItsTopN) {
  load(60000);
  const std::vector<SortKey> keys = {{0, true}};
  scans::SortNode serial(scan(nullptr), keys, "k", 10, uint64_t(1) << 30);
  const std::vector<Row> want = rows_of(serial);
  ASSERT_EQ(want.size(), 10u);
  auto gm = gather_merge(4, true, keys, 10);
  scans::GatherMergeNode* g = gm.get();
  scans::LimitNode limit(std::move(gm), 10);
  EXPECT_EQ(rows_of(limit), want);
  EXPECT_EQ(slots_.in_use(), 0);
  EXPECT_EQ(g->workers_launched(), 4);
  const scans::ExecNode& sort = *g->children()[0];
  EXPECT_EQ(sort.instr.loops, 5u);  // the workers' loops were collected
  EXPECT_LE(sort.instr.rows, 50u);  // each participant returned at most its top 10
  // The workers joined at the Limit's shutdown: their buffers count in the Gather Merge.
  EXPECT_EQ(g->instr.buffers.shared_hit + g->instr.buffers.shared_read,
            uint64_t(heap().size_blocks()));
  EXPECT_EQ(sort.instr.buffers.shared_hit + sort.instr.buffers.shared_read,
            uint64_t(heap().size_blocks()));
  std::vector<std::string> lines;
  sort.explain_details(lines, true);
  // The leader's own Sort: a top-N heap once it reads a block (hundreds of rows),
  // or nothing at all when the workers took every block first (a loaded machine).
  if (lines[1].find("quicksort") != std::string::npos)
    EXPECT_THAT(lines[1], HasSubstr("Memory: 0kB"));
  else
    EXPECT_THAT(lines[1], HasSubstr("top-N heapsort"));
  EXPECT_LE(pinned(), uint64_t(pool().my_pin_count()));
}

TEST_F(GatherMergeTest, AReadErrorInAWorkerFailsTheStatementAndStopsEveryWorker) {
  load(60000);
  const BlockNumber n = heap().size_blocks();
  for (bool leader : {true, false}) {
    s_.storage().evict_all();
    aio::clear_faults();
    aio::inject_fault({.relnumber = heap().relnumber(), .block = n / 2, .once = false});
    auto gm = gather_merge(3, leader, {{0, false}});
    try {
      rows_of(*gm);
      ADD_FAILURE() << "the read error was lost, leader " << leader;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("block " + std::to_string(n / 2)));
    }
    gm.reset();
    EXPECT_EQ(slots_.in_use(), 0);
    EXPECT_EQ(pinned(), 0u);
  }
  aio::clear_faults();
  auto gm = gather_merge(2, true, {{0, false}});
  EXPECT_EQ(rows_of(*gm).size(), 60000u);  // the pool and the I/O system still work
}

TEST_F(GatherMergeTest, ACancelStopsEveryWorker) {
  load(60000);
  for (bool leader : {true, false}) {
    std::atomic<bool> cancel{false};
    StatementCancelScope scope(cancel);
    auto gm = gather_merge(3, leader, {{1, false}, {0, false}});
    gm->open();
    ASSERT_NE(gm->next(), nullptr);
    cancel = true;  // as Session::cancel() from another thread
    EXPECT_THROW(
        {
          // The leader checks at its next batch even when every worker is waiting on
          // a full queue.
          while (gm->next()) {
          }
        },
        QueryCanceled);
    gm.reset();
    EXPECT_EQ(slots_.in_use(), 0);
    EXPECT_EQ(pinned(), 0u);
  }
}

TEST_F(GatherMergeTest, ExplainShowsGatherMergeWorkersPlannedAndLaunched) {
  load(1000);
  auto gm = gather_merge(2, true, {{0, false}});
  EXPECT_EQ(gm->explain_name(), "Gather Merge");
  EXPECT_EQ(gm->children()[0]->explain_name(), "Sort");
  std::vector<std::string> lines;
  gm->explain_details(lines, false);
  EXPECT_EQ(lines, std::vector<std::string>{"Workers Planned: 2"});
  rows_of(*gm);
  lines.clear();
  gm->explain_details(lines, true);
  EXPECT_EQ(lines, (std::vector<std::string>{"Workers Planned: 2", "Workers Launched: 2"}));
}

}  // namespace
}  // namespace tp
