// A parallel index scan's shared leaf position (engine/btree/parallel_scan.h): several
// threads, each with its own IndexScan, seize the position one leaf page at a time.
// Together they return exactly the serial scan's entries, each once, forward and
// backward, over several primitive scans (an IN list); every leaf is read once; a
// participant that fails ends the scan for the others instead of leaving them waiting.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "btree_test_util.h"
#include "engine/btree/mem_page_store.h"
#include "engine/btree/parallel_scan.h"

namespace tp::btree {
namespace {

using testing::Entry;

struct ParallelRun {
  std::vector<Entry> entries;       // all participants', in no particular order
  std::vector<BlockNumber> leaves;  // every batch's leaf
  size_t pages_seized = 0;
};

ParallelRun parallel_scan(const BTree& tree, const std::vector<std::vector<ColumnCondition>>& sets,
                          ScanDirection direction, int participants) {
  ParallelLeafScan shared(sets.size());
  ParallelRun run;
  std::mutex m;
  std::vector<std::thread> threads;
  for (int p = 0; p < participants; ++p)
    threads.emplace_back([&] {
      IndexScan scan(tree, sets[0], direction, /*leaf_readahead=*/false);
      size_t mine = 0;
      IndexBatch batch;
      while (auto s = shared.seize()) {
        if (s->primitive != mine) scan.rescan(sets[mine = s->primitive]);
        scan.read_one_page(s->position, batch,
                           [&](const LeafPosition& next) { shared.release(next); });
        std::lock_guard lock(m);
        if (!batch.empty()) run.leaves.push_back(batch.leaf_block);
        for (size_t i = 0; i < batch.size(); ++i)
          run.entries.push_back({batch.key(i), batch.tids[i]});
      }
    });
  for (auto& t : threads) t.join();
  run.pages_seized = shared.pages_handed_out();
  return run;
}

std::vector<Entry> serial_scan(const BTree& tree,
                               const std::vector<std::vector<ColumnCondition>>& sets,
                               ScanDirection direction) {
  std::vector<Entry> out;
  for (const auto& c : sets) {
    std::vector<Entry> part = testing::scan_all(tree, c, nullptr, nullptr, direction);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// The entries' TIDs are unique: an order to compare the two sets in.
bool by_tid(const Entry& x, const Entry& y) {
  return x.second.block != y.second.block ? x.second.block < y.second.block
                                          : x.second.offset < y.second.offset;
}

class ParallelLeafScanTest : public ::testing::TestWithParam<ScanDirection> {
 protected:
  void SetUp() override {
    def_ = testing::index_def("p", {KeyType::kInt4, KeyType::kInt4});
    tree_.emplace(BTree::create(store_, def_));
    // 20,000 entries (unique (i % 500, i) keys) over some 60 leaves.
    for (int i = 0; i < 20000; ++i)
      tree_->insert({i % 500, i}, Tid{uint32_t(i / 50 + 1), uint16_t(i % 50 + 1)});
  }
  MemPageStore store_{"p"};
  IndexDef def_;
  std::optional<BTree> tree_;
};

TEST_P(ParallelLeafScanTest, ParticipantsTogetherReturnTheSerialScanOnce) {
  const std::vector<std::vector<std::vector<ColumnCondition>>> cases = {
      {{}},                                       // the whole index
      {{ColumnCondition::between(0, 100, 300)}},  // a range
      {{ColumnCondition::eq(0, 7)}, {ColumnCondition::eq(0, 250)}, {ColumnCondition::eq(0, 499)}},
      {{ColumnCondition::eq(0, 1000)}},           // nothing
      {{ColumnCondition::between(1, 500, 900)}},  // a later column only
  };
  for (int participants : {1, 2, 4}) {
    for (const auto& sets : cases) {
      std::vector<Entry> want = serial_scan(*tree_, sets, GetParam());
      ParallelRun run = parallel_scan(*tree_, sets, GetParam(), participants);
      std::vector<Entry> got = run.entries;
      std::sort(got.begin(), got.end(), by_tid);
      std::sort(want.begin(), want.end(), by_tid);
      EXPECT_EQ(got, want) << participants << " participants";
      // No leaf handed out twice: each batch's leaf is distinct.
      std::vector<BlockNumber> leaves = run.leaves;
      std::sort(leaves.begin(), leaves.end());
      EXPECT_EQ(std::adjacent_find(leaves.begin(), leaves.end()), leaves.end());
      EXPECT_GE(run.pages_seized, leaves.size());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Directions, ParallelLeafScanTest,
                         ::testing::Values(ScanDirection::kForward, ScanDirection::kBackward));

TEST(ParallelLeafScan, AnAbandonedScanEndsForEveryParticipant) {
  ParallelLeafScan shared(2);
  auto first = shared.seize();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->primitive, 0u);
  std::optional<ParallelLeafScan::Seized> second{ParallelLeafScan::Seized{}};
  std::thread waiter([&] { second = shared.seize(); });  // waits: `first` is advancing
  shared.abandon();
  waiter.join();
  EXPECT_FALSE(second.has_value());
  // A reset starts it again.
  shared.reset();
  EXPECT_TRUE(shared.seize().has_value());
}

TEST(ParallelLeafScan, ADonePrimitiveScanMovesEveryoneToTheNext) {
  ParallelLeafScan shared(2);
  auto s = shared.seize();
  shared.release({ScanState::kDone, kInvalidBlock, kInvalidBlock});
  s = shared.seize();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->primitive, 1u);
  EXPECT_EQ(s->position.state, ScanState::kInitial);
  shared.release({ScanState::kDone, kInvalidBlock, kInvalidBlock});
  EXPECT_FALSE(shared.seize().has_value());
}

}  // namespace
}  // namespace tp::btree
