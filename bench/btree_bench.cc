// B-tree micro-benchmarks, all on the in-memory page store (the "cached"
// case: no I/O). Run from a Release build:
//   build/rel/bin/btree_bench --benchmark_counters_tabular=true
//
// Each row carries its configuration in its name (keys, range width) and
// reports the pages it built or read, so rows can be compared across runs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <random>

#include "engine/btree/btree_build.h"
#include "engine/btree/btree_scan.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

IndexDef int4_def() {
  return IndexDef{"t_a_idx", {{"a", KeyType::kInt4}}, false};
}

// The heap a CREATE INDEX would scan: key k is row k, rows stored in random
// key order (like INSERT ... ORDER BY random()), 226 rows per heap page.
const std::vector<uint32_t>& heap_order(uint32_t n) {
  static std::map<uint32_t, std::vector<uint32_t>> cache;
  auto& keys = cache[n];
  if (keys.empty()) {
    keys.resize(n);
    std::iota(keys.begin(), keys.end(), 0);
    std::shuffle(keys.begin(), keys.end(), std::mt19937_64(1));
  }
  return keys;
}

Tid heap_tid(uint32_t row) {
  return Tid{row / 226, OffsetNumber(row % 226 + 1)};
}

std::unique_ptr<MemPageStore> build(uint32_t n, BuildStats* stats = nullptr) {
  auto store = std::make_unique<MemPageStore>("t_a_idx");
  const std::vector<uint32_t>& keys = heap_order(n);
  BTreeBuilder builder(*store, int4_def());
  builder.reserve(n);
  for (uint32_t row = 0; row < n; ++row) builder.add({int64_t(keys[row])}, heap_tid(row));
  BuildStats s = builder.finish();
  if (stats) *stats = s;
  return store;
}

// Sorted build: queue the (key, TID) pairs, sort, write every page.
void BM_SortedBuild(benchmark::State& state) {
  const uint32_t n = uint32_t(state.range(0));
  heap_order(n);  // generate the input outside the timing
  BuildStats stats;
  for (auto _ : state) {
    std::unique_ptr<MemPageStore> store = build(n, &stats);
    state.PauseTiming();
    store.reset();  // freeing pages is not part of the build
    state.ResumeTiming();
  }
  state.counters["keys"] = double(n);
  state.counters["pages"] = double(stats.pages);
  state.counters["root_level"] = double(stats.root_level);
}
BENCHMARK(BM_SortedBuild)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// Point lookup in a cached 1 M-key index: metapage + 3 levels per lookup.
void BM_PointLookup(benchmark::State& state) {
  const uint32_t n = uint32_t(state.range(0));
  static std::map<uint32_t, std::unique_ptr<MemPageStore>> stores;
  auto& store = stores[n];
  if (!store) store = build(n);
  BTree tree = BTree::open(*store, int4_def());
  std::mt19937_64 rng(7);
  uint64_t found = 0;
  ScanCounters counters;
  for (auto _ : state) {
    std::optional<Tid> tid = tree.lookup({int64_t(rng() % n)}, &counters);
    found += tid.has_value();
    benchmark::DoNotOptimize(tid);
  }
  if (found != uint64_t(state.iterations())) state.SkipWithError("a key was not found");
  state.counters["pages_per_lookup"] =
      double(counters.index_pages_read) / double(state.iterations());
}
BENCHMARK(BM_PointLookup)->Arg(1'000'000)->Arg(10'000'000);

// Range scan `a BETWEEN x AND x + width - 1` in a cached 1 M-key index,
// consuming every batch; items_per_second is TIDs per second.
void BM_RangeScan(benchmark::State& state) {
  const uint32_t n = 1'000'000;
  const int64_t width = state.range(0);
  static std::unique_ptr<MemPageStore> store;
  if (!store) store = build(n);
  BTree tree = BTree::open(*store, int4_def());
  std::mt19937_64 rng(9);
  IndexScan scan(tree, {});
  IndexBatch batch;
  uint64_t tids = 0;
  for (auto _ : state) {
    int64_t lo = int64_t(rng() % uint64_t(n - width + 1));
    scan.rescan({ColumnCondition::between(0, lo, lo + width - 1)});
    uint64_t got = 0;
    while (scan.next_batch(batch)) {
      got += batch.size();
      benchmark::DoNotOptimize(batch.tids.data());
    }
    if (got != uint64_t(width)) state.SkipWithError("wrong number of TIDs");
    tids += got;
  }
  state.SetItemsProcessed(int64_t(tids));
  state.counters["leaf_pages_per_scan"] =
      double(scan.counters().leaf_pages_read) / double(state.iterations());
}
BENCHMARK(BM_RangeScan)->Arg(100)->Arg(10'000)->Arg(1'000'000);

// Random inserts into a cached index that starts with 1 M keys.
void BM_RandomInsert(benchmark::State& state) {
  const uint32_t n = 1'000'000;
  std::unique_ptr<MemPageStore> store = build(n);
  BTree tree = BTree::open(*store, int4_def());
  std::mt19937_64 rng(11);
  uint32_t row = n;
  for (auto _ : state) {
    tree.insert({int64_t(rng() % (uint64_t(n) * 4))}, heap_tid(row));
    ++row;
  }
  state.counters["pages_after"] = double(store->nblocks());
}
BENCHMARK(BM_RandomInsert)->Iterations(500'000);

}  // namespace
}  // namespace tp::btree

BENCHMARK_MAIN();
