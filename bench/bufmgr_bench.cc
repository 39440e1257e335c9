// Buffer pool micro-benchmarks (Google Benchmark; build with -DCMAKE_BUILD_TYPE=Release).
//
//   BM_HitPath                 read_buffer of a cached block + unpin (mapping lookup, pin)
//   BM_CachedStream/<policy>   a read stream over 1024 cached blocks (the fast path);
//                              0 = the default prefetch policy, 1 = pg18
//   BM_SeqScan/<method>        cold O_DIRECT seq scan of the bench table through the pool
//                              and a read stream (bulk-read ring, eic 16, 128 kB reads)
//   BM_RawSeq/<method>         the same bytes read by aio alone: 128 kB reads at depth 16
//   BM_RandomStream/<method>   8192 distinct random blocks through a read stream, eic 32
//   BM_RawRandom/<method>      8192 random 8 kB reads by aio alone at depth 32
//   BM_SeqPair, BM_RandomPair  the same two comparisons, raw and pool measured back to
//                              back in every iteration; counters give both rates and
//                              pool_pct_of_raw (quote these: the VM's disk drifts)
// Methods: 1 = worker (3 workers), 2 = io_uring. Each Seq/Random pair runs in the same
// process, so compare them with each other, not with other runs (the VM's disk varies).
// The table (256 MB of stamped pages) lives in $TIDEPOOL_BENCH_DIR (default
// /var/tmp/tidepool_bench) and is created on first use. Every page a scan returns is
// checked for its block number.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "aio/aio.h"
#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "bufmgr/strategy.h"
#include "engine/core/error.h"
#include "engine/core/page.h"

namespace tp::bufmgr {
namespace {

constexpr BlockNumber kTableBlocks = 32768;  // 256 MB: twice the 128 MB pool
constexpr uint32_t kRelnumber = 4242;

std::string bench_dir() {
  const char* d = std::getenv("TIDEPOOL_BENCH_DIR");
  std::string dir = d ? d : "/var/tmp/tidepool_bench";
  ::mkdir(dir.c_str(), 0700);
  return dir;
}

// Block b's page: an initialised page whose first item holds b; checksummed.
std::string table_path() {
  std::string path = bench_dir() + "/bufmgr_bench_table";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && st.st_size == off_t(kTableBlocks) * kBlockSize) return path;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) std::abort();
  std::vector<char> chunk(size_t(kBlockSize) * 128);
  for (BlockNumber b = 0; b < kTableBlocks; b += 128) {
    for (BlockNumber i = 0; i < 128; ++i) {
      char* page = chunk.data() + size_t(i) * kBlockSize;
      page_init(page, 0);
      uint32_t item[16] = {b + i};
      page_add_item(page, item, sizeof item);
      page_set_checksum(page, b + i);
    }
    if (::pwrite(fd, chunk.data(), chunk.size(), off_t(b) * kBlockSize) != ssize_t(chunk.size()))
      std::abort();
  }
  ::fsync(fd);
  ::close(fd);
  return path;
}

BlockNumber stamped_block(const char* page) {
  uint32_t v;
  std::memcpy(&v, page_item(page, 1), sizeof v);
  return v;
}

aio::IoConfig io_config(int64_t method) {
  return {.method = method == 2 ? aio::IoMethodKind::kIoUring : aio::IoMethodKind::kWorker,
          .io_workers = 3,
          .io_direct = true};
}

const char* method_label(int64_t method) {
  return method == 2 ? "io_uring" : "worker";
}

void BM_HitPath(benchmark::State& state) {
  aio::IoSystem io({.method = aio::IoMethodKind::kSync});
  BufferPool pool(io, {.shared_buffers = 16384});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  for (BlockNumber b = 0; b < 1024; ++b) pool.read_buffer(*file, b);
  BlockNumber b = 0;
  for (auto _ : state) {
    PinGuard pin = pool.read_buffer(*file, b);
    benchmark::DoNotOptimize(pin.buffer());
    b = (b + 1) & 1023;
  }
  state.SetItemsProcessed(state.iterations());
  pool.drop_relation(*file);
}
BENCHMARK(BM_HitPath);

// A read stream over 1024 cached blocks: the all-cached fast path (one pin swapped for
// the next block per call). Arg 0: the default policy, called without the vtable; 1:
// pg18, a policy behind the vtable (its hooks are not called on this path either way);
// 2: the default policy on a thread whose streams publish to a session's gauges (a
// session's statement: the live page's bars), three relaxed stores per block.
void BM_CachedStream(benchmark::State& state) {
  aio::IoSystem io({.method = aio::IoMethodKind::kSync});
  BufferPool pool(io, {.shared_buffers = 16384});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  for (BlockNumber b = 0; b < 1024; ++b) pool.read_buffer(*file, b);
  ReadStreamConfig config;
  if (state.range(0) == 1) config.policy = find_prefetch_policy("pg18");
  StreamGauges gauges;
  StreamGaugeScope watched(state.range(0) == 2 ? StreamGaugeSlot{.gauges = &gauges}
                                               : StreamGaugeSlot{});
  for (auto _ : state) {
    BlockNumber next = 0;
    ReadStream stream(pool, *file, config,
                      [&](void*) { return next < 1024 ? next++ : kInvalidBlock; });
    while (PinGuard pin = stream.next_buffer()) benchmark::DoNotOptimize(pin.buffer());
  }
  state.SetItemsProcessed(state.iterations() * 1024);
  pool.drop_relation(*file);
}
BENCHMARK(BM_CachedStream)->Arg(0)->Arg(1)->Arg(2);

// A sequential scan of the bench table through the pool as the seq scan node reads it
// (a ring, 128 kB reads, 16 in flight); returns how many pages did not hold their block.
uint64_t pool_seq_scan(BufferPool& pool, aio::IoFile& file, ReadStreamStats* stats = nullptr) {
  auto ring = BufferStrategy::for_seq_scan(pool, kTableBlocks, 16, 16);
  BlockNumber next = 0;
  ReadStream scan(pool, file,
                  {.effective_io_concurrency = 16,
                   .io_combine_limit = 16,
                   .strategy = ring.get(),
                   .sequential = true},
                  [&](void*) { return next < kTableBlocks ? next++ : kInvalidBlock; });
  uint64_t bad = 0;
  BlockNumber expect = 0;
  while (PinGuard buf = scan.next_buffer()) {
    ReadGuard page = std::move(buf).lock_shared();
    bad += stamped_block(page.page()) != expect++;
  }
  if (stats) *stats = scan.stats();
  return bad;
}

void BM_SeqScan(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  BufferPool pool(io, {.shared_buffers = 16384});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  uint64_t bad = 0;
  uint64_t ios = 0;
  uint64_t blocks = 0;
  for (auto _ : state) {
    state.PauseTiming();
    pool.evict_all();
    state.ResumeTiming();
    ReadStreamStats stats;
    bad += pool_seq_scan(pool, *file, &stats);
    ios += stats.ios;
    blocks += stats.io_blocks;
  }
  if (bad) state.SkipWithError("a page did not hold its block");
  state.SetBytesProcessed(int64_t(state.iterations()) * kTableBlocks * kBlockSize);
  state.counters["blocks_per_io"] = ios ? double(blocks) / double(ios) : 0;
  state.SetLabel(method_label(state.range(0)));
  pool.drop_relation(*file);
}
BENCHMARK(BM_SeqScan)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2);

// Reads `blocks` (8 kB * nblocks each) with aio alone, keeping `depth` in flight.
uint64_t raw_reads(aio::IoSystem& io, aio::IoFile& file, const std::vector<BlockNumber>& starts,
                   int nblocks, int depth) {
  struct Slot {
    aio::IoResult result;
    aio::IoWaitRef ref;
    std::byte* buffer;
    BlockNumber block;
  };
  std::vector<Slot> slots(static_cast<size_t>(depth));
  size_t bytes = size_t(nblocks) * kBlockSize;
  std::byte* memory = static_cast<std::byte*>(std::aligned_alloc(4096, bytes * size_t(depth)));
  for (int i = 0; i < depth; ++i) slots[size_t(i)].buffer = memory + bytes * size_t(i);
  uint64_t bad = 0;
  auto finish = [&](Slot& s) {
    io.wait(s.ref);
    aio::check_io_result(s.result, file);
    bad += stamped_block(reinterpret_cast<const char*>(s.buffer)) != s.block;
  };
  for (size_t i = 0; i < starts.size(); ++i) {
    Slot& s = slots[i % size_t(depth)];
    if (i >= size_t(depth)) finish(s);
    aio::IoHandle* h = io.acquire(&s.result);
    s.ref = h->wait_ref();
    s.block = starts[i];
    io.start_read(h, file, starts[i], s.buffer, nblocks);
  }
  for (size_t i = starts.size() > size_t(depth) ? starts.size() - size_t(depth) : 0;
       i < starts.size(); ++i)
    finish(slots[i % size_t(depth)]);
  std::free(memory);
  return bad;
}

void BM_RawSeq(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  std::vector<BlockNumber> starts;
  for (BlockNumber b = 0; b < kTableBlocks; b += 16) starts.push_back(b);
  uint64_t bad = 0;
  for (auto _ : state) bad += raw_reads(io, *file, starts, 16, 16);
  if (bad) state.SkipWithError("a page did not hold its block");
  state.SetBytesProcessed(int64_t(state.iterations()) * kTableBlocks * kBlockSize);
  state.SetLabel(method_label(state.range(0)));
}
BENCHMARK(BM_RawSeq)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2);

std::vector<BlockNumber> random_blocks(size_t n) {
  std::vector<BlockNumber> all(kTableBlocks);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), std::mt19937(42));
  all.resize(n);
  return all;
}

constexpr size_t kRandomReads = 8192;

void BM_RandomStream(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  BufferPool pool(io, {.shared_buffers = 16384});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  const std::vector<BlockNumber> blocks = random_blocks(kRandomReads);
  uint64_t bad = 0;
  double distance = 0;
  for (auto _ : state) {
    state.PauseTiming();
    pool.evict_all();
    size_t next = 0;
    ReadStream stream(pool, *file, {.effective_io_concurrency = 32, .io_combine_limit = 16},
                      [&](void*) { return next < blocks.size() ? blocks[next++] : kInvalidBlock; });
    state.ResumeTiming();
    size_t i = 0;
    while (PinGuard buf = stream.next_buffer()) {
      ReadGuard page = std::move(buf).lock_shared();
      bad += stamped_block(page.page()) != blocks[i++];
    }
    distance = stream.stats().avg_distance();
  }
  if (bad) state.SkipWithError("a page did not hold its block");
  state.SetItemsProcessed(int64_t(state.iterations() * kRandomReads));
  state.counters["avg_distance"] = distance;
  state.SetLabel(method_label(state.range(0)));
  pool.drop_relation(*file);
}
BENCHMARK(BM_RandomStream)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2);

void BM_RawRandom(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  const std::vector<BlockNumber> blocks = random_blocks(kRandomReads);
  uint64_t bad = 0;
  for (auto _ : state) bad += raw_reads(io, *file, blocks, 1, 32);
  if (bad) state.SkipWithError("a page did not hold its block");
  state.SetItemsProcessed(int64_t(state.iterations() * kRandomReads));
  state.SetLabel(method_label(state.range(0)));
}
BENCHMARK(BM_RawRandom)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2);

// Paired runs: each iteration measures raw aio and then the pool + stream on the same
// data, back to back, so a slow patch of the shared VM hits both sides alike. Reports
// both rates and their ratio (the figure the targets are about).
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Arg 1: method; arg 2: 1 = verify page checksums on read (default), 0 = header only.
void BM_SeqPair(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  BufferPool pool(io, {.shared_buffers = 16384, .verify_checksums = state.range(1) != 0});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  std::vector<BlockNumber> starts;
  for (BlockNumber b = 0; b < kTableBlocks; b += 16) starts.push_back(b);
  double raw_s = 0, pool_s = 0;
  uint64_t bad = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    bad += raw_reads(io, *file, starts, 16, 16);
    raw_s += seconds_since(t0);
    pool.evict_all();
    t0 = std::chrono::steady_clock::now();
    bad += pool_seq_scan(pool, *file);
    pool_s += seconds_since(t0);
  }
  if (bad) state.SkipWithError("a page did not hold its block");
  const double mb = double(kTableBlocks) * kBlockSize / 1e6 * double(state.iterations());
  state.counters["raw_MBps"] = mb / raw_s;
  state.counters["pool_MBps"] = mb / pool_s;
  state.counters["pool_pct_of_raw"] = 100.0 * raw_s / pool_s;
  state.SetLabel(std::string(method_label(state.range(0))) +
                 (state.range(1) ? " checksums" : " no-checksums"));
  pool.drop_relation(*file);
}
BENCHMARK(BM_SeqPair)
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6);

void BM_RandomPair(benchmark::State& state) {
  aio::IoSystem io(io_config(state.range(0)));
  BufferPool pool(io, {.shared_buffers = 16384});
  auto file = aio::IoFile::open(table_path(), "bench", kRelnumber);
  const std::vector<BlockNumber> blocks = random_blocks(kRandomReads);
  double raw_s = 0, pool_s = 0;
  uint64_t bad = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    bad += raw_reads(io, *file, blocks, 1, 32);
    raw_s += seconds_since(t0);
    pool.evict_all();
    size_t next = 0;
    ReadStream stream(pool, *file, {.effective_io_concurrency = 32, .io_combine_limit = 16},
                      [&](void*) { return next < blocks.size() ? blocks[next++] : kInvalidBlock; });
    t0 = std::chrono::steady_clock::now();
    size_t i = 0;
    while (PinGuard buf = stream.next_buffer()) {
      ReadGuard page = std::move(buf).lock_shared();
      bad += stamped_block(page.page()) != blocks[i++];
    }
    pool_s += seconds_since(t0);
  }
  if (bad) state.SkipWithError("a page did not hold its block");
  const double reads = double(kRandomReads) * double(state.iterations());
  state.counters["raw_iops"] = reads / raw_s;
  state.counters["pool_iops"] = reads / pool_s;
  state.counters["pool_pct_of_raw"] = 100.0 * raw_s / pool_s;
  state.SetLabel(method_label(state.range(0)));
  pool.drop_relation(*file);
}
BENCHMARK(BM_RandomPair)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(10);

}  // namespace
}  // namespace tp::bufmgr

BENCHMARK_MAIN();
