// Issue 10, through a session: SET shared_buffers beyond the machine's memory is an error
// that leaves the pool working, and the index-prefetch stream (and the leaf read-ahead
// stream nested in it) submits its staged reads before it waits for a B-tree leaf lock.
#include <unistd.h>

#include <gmock/gmock.h>

#include <atomic>
#include <thread>

#include "engine/btree/btree_page.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using ::testing::HasSubstr;

TEST(SessionIo, SharedBuffersBeyondTheMachinesMemoryIsAnErrorAndQueriesStillRun) {
  const uint64_t machine = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE));
  const uint64_t gb = machine / (uint64_t(1) << 30) + 1;  // more than the machine has
  if (gb > 32) GTEST_SKIP() << "this machine has more memory than shared_buffers allows";
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 5000) s(i)");
  try {
    s.execute("SET shared_buffers = '" + std::to_string(gb) + "GB'");
    FAIL() << "a pool larger than the machine's memory was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("shared_buffers"));
    EXPECT_THAT(e.detail(), HasSubstr("physical memory"));
  }
  EXPECT_EQ(testing::scalar(s, "SHOW shared_buffers"), "128MB");
  EXPECT_EQ(s.storage().pool().shared_buffers(), 16384);
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "5000");
  EXPECT_EQ(testing::scalar(s, "SELECT sum(b) FROM t WHERE a <= 100"), "5050");
  s.execute("SET shared_buffers = '2MB'");
  EXPECT_EQ(s.storage().pool().shared_buffers(), 256);
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "5000");
}

// Another thread holds leaves [first_held, first_held + held) of the index exclusively
// (held = 0: up to the one before the rightmost, which the planner probes for the
// column's upper end). The scan (prefetch immediate, cold heap) reaches the first of
// them from the heap stream's callback and sleeps on its lock: by then none of its reads
// may be left staged, since only this thread could submit them and the lock holder might
// be waiting for one. Returns the reads staged while it slept (-1: it never waited).
int staged_while_waiting_for_a_leaf(bool cold_index, size_t first_held, size_t held,
                                    std::vector<std::string> settings = {}) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b int) WITH (fillfactor=10)");
  // In key order: each leaf's entries cover ~17 consecutive heap blocks, which the
  // stream combines into large reads. With io_method = sync every read counts as a wait,
  // so the distance grows the same way on every run and the look-ahead rounds that cross
  // into the held leaves have started (and staged) a read first.
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 20000) s(i)");
  s.execute("CREATE INDEX t_a ON t (a)");
  for (const char* set : {"SET enable_seqscan = off", "SET enable_bitmapscan = off",
                          "SET enable_indexonlyscan = off", "SET index_prefetch = immediate",
                          "SET effective_io_concurrency = 64", "SET io_method = sync"})
    s.execute(set);
  for (const std::string& set : settings) s.execute(set);
  const std::string query = "SELECT sum(b) FROM t WHERE a BETWEEN 1 AND 20000";
  EXPECT_EQ(testing::scalar(s, query), "200010000");  // caches the index

  Storage& storage = s.storage();
  bufmgr::BufferPool& pool = storage.pool();
  aio::IoFile& heap = storage.file(*s.catalog().find("t"));
  aio::IoFile& index = storage.file(*s.catalog().find("t_a"));
  // The leaves, left to right.
  std::vector<BlockNumber> leaves;
  for (BlockNumber b = 1; b < index.size_blocks() && leaves.empty(); ++b) {
    bufmgr::ReadGuard page = pool.read_buffer(index, b).lock_shared();
    if (btree::bt_leaf(page.page()) && btree::bt_special(page.page())->prev == kInvalidBlock)
      leaves.push_back(b);
  }
  EXPECT_FALSE(leaves.empty());
  for (;;) {
    bufmgr::ReadGuard page = pool.read_buffer(index, leaves.back()).lock_shared();
    BlockNumber next = btree::bt_special(page.page())->next;
    if (next == kInvalidBlock) break;
    leaves.push_back(next);
  }
  EXPECT_GT(leaves.size(), 20u);
  pool.drop_relation(heap);  // cold heap: the heap stream has reads to stage
  // Cold leaves: the leaf stream (index_leaf_readahead) has reads to stage too.
  if (cold_index) pool.drop_relation(index);
  const size_t end = held == 0 ? leaves.size() - 1 : first_held + held;

  std::atomic<bool> locked{false}, query_done{false};
  int staged_while_waiting = -1;
  std::thread holder([&] {
    std::vector<bufmgr::WriteGuard> guards;
    for (size_t i = first_held; i < end; ++i)
      guards.push_back(pool.read_buffer(index, leaves[i]).lock_exclusive());
    locked = true;
    const bufmgr::RwLatch& first = pool.desc(guards.front().buffer()).content;
    while (!first.has_sleepers() && !query_done.load()) std::this_thread::yield();
    if (first.has_sleepers()) {
      staged_while_waiting = 0;
      for (const aio::IoInFlightRow& row : storage.io().in_flight())
        if (row.state == aio::IoState::kStaged) ++staged_while_waiting;
    }
  });
  while (!locked.load()) std::this_thread::yield();
  EXPECT_EQ(testing::scalar(s, query), "200010000");
  query_done = true;
  holder.join();
  return staged_while_waiting;
}

TEST(SessionIo, IndexPrefetchSubmitsStagedReadsBeforeWaitingForALeafLock) {
  EXPECT_EQ(staged_while_waiting_for_a_leaf(false, 14, 0), 0)
      << "-1: the scan never waited for the locked leaf";
}

// The same with a cold index: the leaf stream's look-ahead, nested in the heap stream's
// batch, stages reads of the leaves after the held ones. With a window of 3 one-block
// reads, the call that hands out the first held leaf (a hit: the holder read it) starts
// the read of a leaf 3 further on; it is submitted before the scan locks the leaf.
TEST(SessionIo, LeafReadaheadSubmitsStagedReadsBeforeWaitingForALeafLock) {
  EXPECT_EQ(staged_while_waiting_for_a_leaf(
                true, 14, 2, {"SET effective_io_concurrency = 2", "SET io_combine_limit = 1"}),
            0)
      << "-1: the scan never waited for the locked leaf";
}

}  // namespace
}  // namespace tp
