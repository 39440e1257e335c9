// The cost of a Sort's cancel check (scans/sort_limit_agg.h, SortCancelCheck: a
// counter and a branch per comparison, a check_for_interrupts every 65,536): the
// same stable sort of row indexes by a key slot as SortNode's, with and without it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "scans/sort_limit_agg.h"

namespace {

std::vector<int64_t> random_keys(size_t n) {
  std::mt19937_64 rng(42);
  std::vector<int64_t> keys(n);
  for (int64_t& k : keys) k = int64_t(rng() % 1000000);
  return keys;
}

template <bool kCheck>
void BM_StableSortOfRowIndexes(benchmark::State& state) {
  const std::vector<int64_t> keys = random_keys(size_t(state.range(0)));
  std::vector<uint32_t> order(keys.size());
  for (auto _ : state) {
    std::iota(order.begin(), order.end(), 0u);
    tp::scans::SortCancelCheck cancel;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      if constexpr (kCheck) cancel.tick();
      return keys[x] < keys[y];
    });
    benchmark::DoNotOptimize(order.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}

BENCHMARK_TEMPLATE(BM_StableSortOfRowIndexes, false)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_StableSortOfRowIndexes, true)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
