// Readers in parallel with one writer: lookups and scans must never miss a
// key that was present before they started, while splits happen under them.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "btree_test_util.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

// Readers in parallel with one writer: scans over many leaves with or without leaf
// read-ahead see every key present before they started.
void readers_with_a_writer(int span, bool leaf_readahead) {
  MemPageStore store("c");
  IndexDef def = testing::index_def("c", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  // Even keys exist from the start; the writer adds odd keys, splitting pages.
  const int n = 40000;
  for (int k = 0; k < n; k += 2) tree.insert({k}, Tid{uint32_t(k + 1), 1});
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> rounds{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!stop.load()) {
        int k = int(rng() % (n / 2)) * 2;
        if (tree.lookup({k}) != Tid{uint32_t(k + 1), 1}) ++failures;
        int lo = int(rng() % n);
        // Alternate directions: a backward scan must step around pages that
        // split to its left while it was between batches.
        auto got = testing::scan_all(
            tree, {ColumnCondition::between(0, lo, lo + span)}, nullptr, nullptr,
            rng() % 2 ? ScanDirection::kForward : ScanDirection::kBackward, leaf_readahead);
        int evens = 0;
        for (const auto& e : got) evens += e.first[0] % 2 == 0;
        int expected = 0;
        for (int v = lo; v <= lo + span && v < n; ++v) expected += v % 2 == 0;
        if (evens != expected) ++failures;
        ++rounds;
      }
    });
  std::vector<int> odds;
  for (int k = 1; k < n; k += 2) odds.push_back(k);
  std::shuffle(odds.begin(), odds.end(), std::mt19937(9));
  while (rounds.load() < 2) std::this_thread::yield();  // readers are running
  int rounds_before = rounds.load();
  for (size_t i = 0; i < odds.size(); ++i) {
    tree.insert({odds[i]}, Tid{uint32_t(odds[i] + 1), 1});
    // Halfway, let a reader finish a round among the splits, however busy the machine.
    if (i == odds.size() / 2)
      while (rounds.load() == rounds_before) std::this_thread::yield();
  }
  int rounds_during = rounds.load() - rounds_before;
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(rounds_during, 0) << "no read overlapped the writer";
  EXPECT_TRUE(verify_btree(store, def).ok);
}

TEST(BtreeConcurrency, ReadersSeeStableKeysWhileAWriterSplitsPages) {
  readers_with_a_writer(600, false);
}

// Scans of ~30 leaves with read-ahead: the stream's copy of the parent goes stale as the
// writer splits leaves ahead of it, and the scan must drop it rather than skip a leaf.
TEST(BtreeConcurrency, LeafReadaheadUnderSplitsMissesNoKey) {
  readers_with_a_writer(12000, true);
}

}  // namespace
}  // namespace tp::btree
