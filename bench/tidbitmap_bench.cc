// TID bitmap throughput: building from index order (random blocks), iterating
// in block order, and BitmapAnd. Each benchmark checks what it built.
//   build/rel/bin/tidbitmap_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "scans/tidbitmap.h"

namespace tp {
namespace {

// `n` TIDs of a 454,546-page table (the fillfactor-10 table: 22 tuples per
// page) in random order, as an uncorrelated index returns them.
std::vector<Tid> random_tids(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> block(0, 454545);
  std::uniform_int_distribution<uint32_t> off(1, 22);
  std::vector<Tid> t(n);
  for (Tid& x : t) x = {block(rng), static_cast<OffsetNumber>(off(rng))};
  return t;
}

void BM_BuildExact(benchmark::State& state) {
  const auto tids = random_tids(static_cast<size_t>(state.range(0)), 1);
  for (auto _ : state) {
    TidBitmap bm(int64_t{1} << 30);  // never lossy
    bm.add_tids(tids);
    if (bm.lossy_page_count() != 0) state.SkipWithError("unexpected lossy pages");
    benchmark::DoNotOptimize(bm.entries());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_BuildExact)->Arg(100000)->Arg(1000000);

void BM_BuildLossy4MB(benchmark::State& state) {
  const auto tids = random_tids(static_cast<size_t>(state.range(0)), 2);
  for (auto _ : state) {
    TidBitmap bm(int64_t{4} << 20);
    bm.add_tids(tids);
    if (bm.entries() > bm.max_entries()) state.SkipWithError("over budget");
    state.counters["lossy_pages"] = static_cast<double>(bm.lossy_page_count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_BuildLossy4MB)->Arg(1000000);

void BM_Iterate(benchmark::State& state) {
  const auto tids = random_tids(static_cast<size_t>(state.range(0)), 3);
  TidBitmap bm(int64_t{1} << 30);
  bm.add_tids(tids);
  const int64_t want = bm.exact_tuple_count();
  for (auto _ : state) {
    TidBitmapIterator it = bm.begin_iterate();
    TbmPage page;
    int64_t tuples = 0;
    BlockNumber last = 0;
    while (it.next(&page)) {
      if (page.block < last) state.SkipWithError("blocks out of order");
      last = page.block;
      tuples += static_cast<int64_t>(page.offsets.size());
    }
    if (tuples != want) state.SkipWithError("tuple count mismatch");
  }
  state.SetItemsProcessed(state.iterations() * want);
}
BENCHMARK(BM_Iterate)->Arg(1000000);

void BM_Intersect(benchmark::State& state) {
  const auto a_tids = random_tids(static_cast<size_t>(state.range(0)), 4);
  const auto b_tids = random_tids(static_cast<size_t>(state.range(0)), 5);
  TidBitmap b(int64_t{1} << 30);
  b.add_tids(b_tids);
  for (auto _ : state) {
    state.PauseTiming();
    TidBitmap a(int64_t{1} << 30);
    a.add_tids(a_tids);
    state.ResumeTiming();
    a.intersect_with(b);
    benchmark::DoNotOptimize(a.entries());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Intersect)->Arg(1000000);

}  // namespace
}  // namespace tp

BENCHMARK_MAIN();
