// Prefetch policies: for each registered policy, the reads a stream issues and the
// most buffers it pins on small deterministic patterns (all misses in a row, all
// misses apart, all hits, cached and uncached blocks alternating), what it wastes
// when the consumer stops early, the index-scan start rule, and the registry.
// Under io_method sync every read the consumer reaches counts as a wait, so the
// figures are exact.
#include "bufmgr/prefetch_policy.h"

#include <map>

#include "bufmgr/read_stream.h"
#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::PoolTest;

ReadStream::BlockCallback blocks_of(std::vector<BlockNumber> blocks) {
  auto list = std::make_shared<std::vector<BlockNumber>>(std::move(blocks));
  auto next = std::make_shared<size_t>(0);
  return [list, next](void*) { return *next < list->size() ? (*list)[(*next)++] : kInvalidBlock; };
}

std::vector<BlockNumber> every(BlockNumber step, BlockNumber from, BlockNumber to) {
  std::vector<BlockNumber> v;
  for (BlockNumber b = from; b < to; b += step) v.push_back(b);
  return v;
}

// What a drained stream did: reads started, blocks read, the most buffers it held
// pinned ahead of the consumer, and what it wasted.
struct Figures {
  uint64_t ios = 0;
  uint64_t io_blocks = 0;
  int max_pinned_ahead = 0;
  uint64_t wasted = 0;
  bool operator==(const Figures&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Figures& f) {
  return os << "{ios=" << f.ios << " blocks=" << f.io_blocks << " pins=" << f.max_pinned_ahead
            << " wasted=" << f.wasted << "}";
}

ReadStreamConfig config_for(const std::string& policy, int fixed_distance = 0) {
  ReadStreamConfig c{.effective_io_concurrency = 4, .io_combine_limit = 4};
  c.policy = find_prefetch_policy(policy);
  c.policy_settings.fixed_distance = fixed_distance;
  return c;
}

// Drains (or takes `take` buffers of, then resets) a stream over `blocks`.
Figures run(BufferPool& pool, aio::IoFile& file, const std::string& policy,
            std::vector<BlockNumber> blocks, size_t take = SIZE_MAX) {
  ReadStream stream(pool, file, config_for(policy), blocks_of(std::move(blocks)));
  Figures f;
  size_t taken = 0;
  while (taken < take) {
    PinGuard buf = stream.next_buffer();
    if (!buf) break;
    ++taken;
    f.max_pinned_ahead = std::max(f.max_pinned_ahead, stream.pinned());
  }
  stream.reset();
  f.ios = stream.stats().ios;
  f.io_blocks = stream.stats().io_blocks;
  f.wasted = stream.stats().wasted_reads;
  EXPECT_EQ(pool.pins_held(), 0u);
  return f;
}

const std::vector<std::string> kPolicies = {"tidepool",      "pg18",        "fixed",
                                            "delayed_start", "cache_aware", "example_linear"};

class Policy : public PoolTest {
 protected:
  // Runs `pattern` for every policy on a fresh pool each time (`cached` blocks read first).
  std::map<std::string, Figures> for_each_policy(const std::vector<BlockNumber>& pattern,
                                                 const std::vector<BlockNumber>& cached,
                                                 size_t take = SIZE_MAX) {
    std::map<std::string, Figures> out;
    for (const std::string& p : kPolicies) {
      BufferPool& pool = make_pool(256, 256);
      aio::IoFile& t = make_relation("t_" + p, 200);
      for (BlockNumber b : cached) pool.read_buffer(t, b);
      out[p] = run(pool, t, p, pattern, take);
    }
    return out;
  }
};

TEST_P(Policy, ConsecutiveMisses) {
  // 64 blocks in a row, nothing cached; max_pinned = (4 + 1) x 4 = 20.
  auto f = for_each_policy(every(1, 0, 64), {});
  for (const auto& [p, x] : f) EXPECT_EQ(x.io_blocks, 64u) << p;
  // Ramping up (reads of 1, 2, 4 blocks) costs the adaptive policies two reads over
  // fixed's sixteen 4-block reads; all but cache_aware end with max_pinned - 1 = 19
  // ahead. cache_aware stops at max_ios x 4 blocks per read = 16 (15 ahead): what
  // keeps 4 reads in flight.
  EXPECT_EQ(f["tidepool"], (Figures{18, 64, 19, 0}));
  EXPECT_EQ(f["pg18"], (Figures{18, 64, 19, 0}));
  EXPECT_EQ(f["fixed"], (Figures{16, 64, 19, 0}));
  EXPECT_EQ(f["delayed_start"], (Figures{18, 64, 19, 0}));
  EXPECT_EQ(f["cache_aware"], (Figures{18, 64, 15, 0}));
  EXPECT_EQ(f["example_linear"], (Figures{17, 64, 19, 0}));
}

TEST_P(Policy, ScatteredMisses) {
  // 50 blocks two apart: every read is one block.
  auto f = for_each_policy(every(2, 0, 100), {});
  // Four reads in flight (max_ios) bound everyone at 4 ahead; cache_aware's target,
  // 4 reads x 1 block, stops it at distance 4 (3 ahead) without losing a read slot's
  // worth of look-ahead it could use.
  for (const auto& [p, x] : f) {
    EXPECT_EQ(x.ios, 50u) << p;
    EXPECT_EQ(x.max_pinned_ahead, p == "cache_aware" ? 3 : 4) << p;
  }
}

TEST_P(Policy, AllHitsNeverReadAndOnlyFixedPinsAhead) {
  auto f = for_each_policy(every(1, 0, 50), every(1, 0, 50));
  for (const auto& [p, x] : f) {
    EXPECT_EQ(x.ios, 0u) << p;
    EXPECT_EQ(x.max_pinned_ahead, p == "fixed" ? 20 : 1) << p;
  }
}

TEST_P(Policy, AlternatingHitsAndMisses) {
  // Even blocks cached, odd ones not: 50 one-block reads between hits.
  auto f = for_each_policy(every(1, 0, 100), every(2, 0, 100));
  for (const auto& [p, x] : f) EXPECT_EQ(x.ios, 50u) << p;
  // Four reads in flight with a hit between each: 8 ahead. pg18 and delayed_start lose
  // by a hit what a read gained and stay at distance 2 (one read ahead at a time).
  EXPECT_EQ(f["tidepool"].max_pinned_ahead, 8);
  EXPECT_EQ(f["pg18"].max_pinned_ahead, 2);
  EXPECT_EQ(f["fixed"].max_pinned_ahead, 8);
  EXPECT_EQ(f["delayed_start"].max_pinned_ahead, 2);
  EXPECT_EQ(f["cache_aware"].max_pinned_ahead, 8);
  EXPECT_EQ(f["example_linear"].max_pinned_ahead, 8);
}

TEST_P(Policy, StoppingEarlyCountsWhatWasReadAhead) {
  // The consumer takes 10 of 64 blocks two apart, then the stream is reset.
  auto f = for_each_policy(every(2, 0, 128), {}, 10);
  for (const auto& [p, x] : f) EXPECT_EQ(x.wasted, x.io_blocks - 10) << p;
  // What each held ahead when it stopped: the reads in flight (cache_aware one fewer).
  for (const auto& [p, x] : f) EXPECT_EQ(x.wasted, p == "cache_aware" ? 3u : 4u) << p;
}

TEST_P(Policy, FixedDistanceFollowsItsSetting) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 64);
  ReadStream stream(pool, t, config_for("fixed", 3), blocks_of(every(1, 0, 64)));
  EXPECT_EQ(stream.distance(), 3);
  while (PinGuard buf = stream.next_buffer()) EXPECT_EQ(stream.distance(), 3);
  EXPECT_EQ(stream.stats().policy, std::string("fixed"));
}

TEST(PolicyRegistry, NamesEveryPolicyDefaultFirstAndDecidesIndexStarts) {
  std::vector<std::string> names = prefetch_policy_names();
  ASSERT_GE(names.size(), 6u);
  EXPECT_EQ(names[0], kDefaultPrefetchPolicy);
  EXPECT_EQ(find_prefetch_policy("no_such_policy"), nullptr);
  // When an index scan starts its stream: {block switches, heap reads}.
  auto starts = [](const char* name, int switches, int reads) {
    auto p = find_prefetch_policy(name)->make({});
    return p->should_start({.block_switches = switches, .heap_reads = reads});
  };
  EXPECT_FALSE(starts("tidepool", 3, 3));
  EXPECT_TRUE(starts("tidepool", 4, 0));
  EXPECT_TRUE(starts("pg18", 0, 0));
  EXPECT_TRUE(starts("fixed", 0, 0));
  EXPECT_FALSE(starts("delayed_start", 3, 3));
  EXPECT_TRUE(starts("delayed_start", 4, 4));
  EXPECT_FALSE(starts("cache_aware", 100, 3));  // cached switches do not count
  EXPECT_TRUE(starts("cache_aware", 5, 4));
  EXPECT_FALSE(starts("example_linear", 3, 3));
  EXPECT_FALSE(starts("rescan_aware", 100, 3));  // a first run: as cache_aware
  EXPECT_TRUE(starts("rescan_aware", 5, 4));
  for (const std::string& n : names) EXPECT_EQ(find_prefetch_policy(n)->make({})->name(), n);
}

// What each run of a rescanned index scan tells the policy, and what it answers: the
// distance to restart at (0: start over) and whether the next run starts at once.
TEST(PolicyRegistry, RescanAwareStartsRunsThatReadSeveralBlocksAtOnce) {
  for (const std::string& n : prefetch_policy_names()) {
    if (n == "rescan_aware") continue;
    EXPECT_EQ(find_prefetch_policy(n)->make({})->on_rescan({}), 0) << n;
  }
  auto p = find_prefetch_policy("rescan_aware")->make({});
  p->initial_distance({.max_pinned = 64, .max_ios = 16});
  const IndexStartInfo first_switch{.block_switches = 0, .heap_reads = 0, .rescans = 1};
  // One-block lookups: the distance is carried, the start is not brought forward.
  for (uint64_t r = 1; r <= 4; ++r)
    EXPECT_EQ(
        p->on_rescan(
            {.rescans = r, .block_switches = 1, .heap_reads = 1, .distance = 0, .finished = true}),
        1);
  EXPECT_FALSE(p->should_start(first_switch));
  // A run of 40 reads that ended with its stream at distance 24: the next run starts at
  // once, at 24 (the mean reads per run, 11 now, is less).
  EXPECT_EQ(p->on_rescan({.rescans = 5,
                          .block_switches = 40,
                          .heap_reads = 40,
                          .waits = 30,
                          .distance = 24,
                          .finished = true}),
            24);
  EXPECT_TRUE(p->should_start(first_switch));
  EXPECT_FALSE(p->should_start({.block_switches = 0, .heap_reads = 0, .rescans = 0}));
  // Runs with no stream halve the carried distance, down to the mean reads per run
  // (a mean over about four runs, which loses a quarter with each run that reads none).
  EXPECT_EQ(p->on_rescan({.rescans = 6, .block_switches = 2, .heap_reads = 0, .finished = true}),
            12);
  EXPECT_EQ(p->on_rescan({.rescans = 7, .block_switches = 2, .heap_reads = 0, .finished = true}),
            6);
  EXPECT_EQ(p->on_rescan({.rescans = 8, .block_switches = 2, .heap_reads = 0, .finished = true}),
            5);
  EXPECT_TRUE(p->should_start(first_switch));
  // Once the mean falls under 2 reads a run, runs start as a first run does.
  for (uint64_t r = 9; r <= 11; ++r)
    p->on_rescan({.rescans = r, .block_switches = 2, .heap_reads = 0, .finished = true});
  EXPECT_FALSE(p->should_start(first_switch));
  // Runs cut short by their first match, 5 reads each: started at once again (the scan
  // bounds their look-ahead), at the mean reads per run.
  for (uint64_t r = 12; r <= 14; ++r)
    p->on_rescan(
        {.rescans = r, .block_switches = 5, .heap_reads = 5, .distance = 0, .finished = false});
  EXPECT_TRUE(p->should_start(first_switch));
  EXPECT_EQ(
      p->on_rescan(
          {.rescans = 15, .block_switches = 5, .heap_reads = 5, .distance = 0, .finished = false}),
      4);
}

INSTANTIATE_TEST_SUITE_P(Sync, Policy, ::testing::Values(aio::IoMethodKind::kSync));

}  // namespace
}  // namespace tp::bufmgr
