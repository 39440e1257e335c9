#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

// Replaced by the buffer pool stress test when bufmgr lands; until then it
// checks that the ThreadSanitizer build and the "concurrency" label work.
TEST(Concurrency, AtomicCounterFromFourThreads) {
  std::atomic<int> n{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) n.fetch_add(1, std::memory_order_relaxed);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(n.load(), 4000);
}
