// The block-based parallel scan's allocation (scans/parallel_blocks.h): chunk
// sizes as PostgreSQL 15 computes them, the ramp-down to single blocks at the
// end, and every block handed out exactly once however many participants
// (threads) share the scan.
#include "scans/parallel_blocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace tp::scans {
namespace {

TEST(ParallelBlocks, ChunkSizeIsAPowerOfTwoFromTheTableSize) {
  EXPECT_EQ(parallel_scan_chunk_size(0), 1u);
  EXPECT_EQ(parallel_scan_chunk_size(1), 1u);
  EXPECT_EQ(parallel_scan_chunk_size(4095), 1u);            // 4095 / 2048 = 1
  EXPECT_EQ(parallel_scan_chunk_size(6144), 4u);            // 3 -> 4
  EXPECT_EQ(parallel_scan_chunk_size(45455), 32u);          // the 1 M-row rpc table: 22 -> 32
  EXPECT_EQ(parallel_scan_chunk_size(454546), 256u);        // the 10 M-row table: 221 -> 256
  EXPECT_EQ(parallel_scan_chunk_size(8388608), 4096u);      // 64 GB
  EXPECT_EQ(parallel_scan_chunk_size(4294967294u), 8192u);  // capped
}

// One participant alone reads the table in order, in chunks that ramp down
// to 1 block over the last 64 chunks' worth.
TEST(ParallelBlocks, OneParticipantReadsEveryBlockInOrderAndRampsDown) {
  const BlockNumber n = 45455;
  ParallelBlocks shared(n);
  ParallelBlockClaimer mine(shared);
  std::vector<uint32_t> sizes;
  BlockNumber expect = 0;
  for (BlockNumber b; (b = mine.next()) != kInvalidBlock; ++expect) {
    ASSERT_EQ(b, expect);
    if (sizes.empty() || sizes.back() != mine.chunk_size()) sizes.push_back(mine.chunk_size());
  }
  EXPECT_EQ(expect, n);
  EXPECT_EQ(mine.next(), kInvalidBlock);  // stays used up
  EXPECT_EQ(sizes, (std::vector<uint32_t>{32, 16, 8, 4, 2, 1}));
}

TEST(ParallelBlocks, TablesSmallerThanOneChunkAndEmptyTables) {
  for (BlockNumber n : {0u, 1u, 2u, 7u, 63u, 64u, 65u}) {
    SCOPED_TRACE(n);
    ParallelBlocks shared(n);
    ParallelBlockClaimer a(shared), b(shared);
    std::vector<BlockNumber> seen;
    for (bool more = true; more;) {
      more = false;
      for (ParallelBlockClaimer* p : {&a, &b})
        if (BlockNumber blk = p->next(); blk != kInvalidBlock) {
          seen.push_back(blk);
          more = true;
        }
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), n);
    for (BlockNumber i = 0; i < n; ++i) EXPECT_EQ(seen[i], i);
  }
}

// Threads share one scan: each block exactly once, whatever the interleaving.
TEST(ParallelBlocks, ThreadsTogetherReadEveryBlockExactlyOnce) {
  for (BlockNumber n : {1u, 100u, 4096u, 45455u, 200001u}) {
    for (int threads : {2, 3, 4}) {
      SCOPED_TRACE(testing::Message() << n << " blocks, " << threads << " threads");
      ParallelBlocks shared(n);
      std::vector<std::vector<BlockNumber>> got(static_cast<size_t>(threads));
      std::vector<std::thread> workers;
      for (int t = 0; t < threads; ++t)
        workers.emplace_back([&shared, &mine = got[size_t(t)]] {
          ParallelBlockClaimer claimer(shared);
          for (BlockNumber b; (b = claimer.next()) != kInvalidBlock;) mine.push_back(b);
        });
      for (auto& w : workers) w.join();
      std::vector<uint8_t> count(n, 0);
      for (const auto& mine : got) {
        // Claims come from one counter, so each participant's blocks ascend.
        for (size_t i = 1; i < mine.size(); ++i) ASSERT_GT(mine[i], mine[i - 1]);
        for (BlockNumber b : mine) ++count[b];
      }
      EXPECT_EQ(std::count(count.begin(), count.end(), 1), std::ptrdiff_t(n));
    }
  }
}

}  // namespace
}  // namespace tp::scans
