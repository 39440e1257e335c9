// The device probe's measuring loop: keep `depth` reads in flight through an IoSystem,
// replace each as it completes (oldest first), count, check the bytes, time.
#include "aio/device_probe.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "aio/file.h"
#include "engine/core/error.h"

namespace tp::aio {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kStamp = 0x7470726f62653031ull;  // "tprobe01": marks a finished probe file

struct AlignedDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<std::byte, AlignedDeleter>;

AlignedBytes aligned_bytes(size_t size) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kDirectIoAlignment, size));
  if (p == nullptr)
    throw Error("device probe: out of memory").with_sqlstate(sqlstate::kOutOfMemory);
  std::memset(p, 0, size);
  return AlignedBytes(p);
}

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? u.release : "unknown";
}

double cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Each block starts with its block number, then (in block 0) the stamp at byte 8.
bool block_holds(const std::byte* page, BlockNumber block) {
  uint64_t stored;
  std::memcpy(&stored, page, sizeof stored);
  return stored == block;
}

struct Measure {
  IoMethodKind method;
  bool direct;
  bool sequential;
  int depth;
  int nblocks;
  // A file of any contents read once, start to end, timed from the first read issued
  // (no warm-up: a scan of the same file has none either); otherwise the probe file,
  // whose blocks are checked, for a fixed time after a warm-up.
  bool whole_file_once = false;
};

struct Slot {
  AlignedBytes buffer;
  IoResult result;
  IoWaitRef ref;
  BlockNumber first = 0;
  Clock::time_point started;
  bool pending = false;  // issued, not yet waited for
};

// Cold cache for buffered runs: drops the file's pages first. If that fails the buffered
// figures would measure memory, so it is an error.
void drop_page_cache(IoFile& file) {
  if (::fdatasync(file.buffered_fd()) != 0)
    throw Error(std::string("device probe: fdatasync failed: ") + std::strerror(errno))
        .with_sqlstate(sqlstate::for_errno(errno));
  if (int rc = ::posix_fadvise(file.buffered_fd(), 0, 0, POSIX_FADV_DONTNEED); rc != 0)
    throw Error(std::string("device probe: could not drop the page cache: ") + std::strerror(rc))
        .with_sqlstate(sqlstate::for_errno(rc));
}

// One measurement: `depth` slots, each a read in flight, replaced oldest first.
class ProbeRun {
 public:
  ProbeRun(IoSystem& io, IoFile& file, const Measure& m, uint64_t seed)
      : io_(io),
        file_(file),
        m_(m),
        positions_(file.size_blocks() / BlockNumber(m.nblocks)),
        rng_(seed),
        slots_(size_t(m.depth)) {
    for (Slot& s : slots_) s.buffer = aligned_bytes(size_t(m.nblocks) * kBlockSize);
  }

  // Warms up for min(0.3 s, seconds / 10), then measures for `seconds`.
  DeviceProbeRow run(double seconds);

 private:
  BlockNumber next_first() {
    if (m_.sequential) {
      BlockNumber first = cursor_ * BlockNumber(m_.nblocks);
      cursor_ = (cursor_ + 1) % positions_;
      return first;
    }
    return BlockNumber(rng_() % positions_) * BlockNumber(m_.nblocks);
  }
  void issue(Slot& s) {
    s.first = next_first();
    IoHandle* h = io_.acquire(&s.result);
    h->set_context(IoContext::kBulkRead);
    s.ref = h->wait_ref();
    s.started = Clock::now();
    s.pending = true;
    io_.start_read(h, file_, s.first, s.buffer.get(), m_.nblocks);
    ++issued_;
  }
  // Counts a finished read and checks its bytes.
  void count(const Slot& s, Clock::time_point now) {
    ++ios_;
    latency_us_sum_ += std::chrono::duration<double, std::micro>(now - s.started).count();
    bool ok = s.result.ok();
    for (int b = 0; ok && !m_.whole_file_once && b < m_.nblocks; ++b)
      ok = block_holds(s.buffer.get() + size_t(b) * kBlockSize, s.first + BlockNumber(b));
    failed_ += ok ? 0 : 1;
  }
  // Waits for a slot's read; counts it once the warm-up is over.
  Clock::time_point complete(Slot& s) {
    io_.wait(s.ref);
    s.pending = false;
    Clock::time_point now = Clock::now();
    if (measuring_) count(s, now);
    return now;
  }
  void start_measuring(Clock::time_point from) {
    measuring_ = true;
    measure_start_ = from;
    cpu0_ = cpu_seconds();
  }
  DeviceProbeRow row(double elapsed, double cpu) const;

  IoSystem& io_;
  IoFile& file_;
  const Measure m_;
  const BlockNumber positions_;
  std::mt19937_64 rng_;
  BlockNumber cursor_ = 0;
  std::vector<Slot> slots_;
  // A sequential run reads the file at most once: a second pass would be served from the
  // page cache (buffered) and measure memory, not the device.
  uint64_t issued_ = 0;
  uint64_t ios_ = 0;
  uint64_t failed_ = 0;
  double latency_us_sum_ = 0;
  bool measuring_ = false;
  Clock::time_point measure_start_;
  double cpu0_ = 0;
};

DeviceProbeRow ProbeRun::run(double seconds) {
  if (!m_.direct) drop_page_cache(file_);
  const Clock::time_point t0 = Clock::now();
  measure_start_ = t0;
  const auto warmup = std::chrono::duration<double>(std::min(0.3, seconds / 10));
  const auto run = std::chrono::duration<double>(seconds);
  if (m_.whole_file_once) start_measuring(t0);
  {
    IoBatch batch(io_);
    for (Slot& s : slots_) issue(s);
  }
  for (size_t next = 0;; next = (next + 1) % slots_.size()) {
    Slot& s = slots_[next];
    const bool was_measuring = measuring_;
    Clock::time_point now = complete(s);
    if (was_measuring && !m_.whole_file_once && now - measure_start_ >= run) break;
    if (!measuring_ && now - t0 >= warmup) start_measuring(now);
    if (m_.sequential && issued_ >= positions_) {
      // The whole file is issued: measure the reads still in flight (from this one's
      // start, if the file went by during the warm-up), then stop.
      if (!was_measuring) {
        start_measuring(s.started);
        count(s, now);
      }
      for (size_t k = 1; k < slots_.size(); ++k) {
        Slot& t = slots_[(next + k) % slots_.size()];
        if (t.pending) complete(t);
      }
      break;
    }
    issue(s);
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - measure_start_).count();
  double cpu = cpu_seconds() - cpu0_;
  io_.wait_all();
  return row(elapsed, cpu);
}

DeviceProbeRow ProbeRun::row(double elapsed, double cpu) const {
  DeviceProbeRow row;
  row.method = io_method_name(m_.method);
  row.direct = m_.direct;
  row.pattern = m_.sequential ? "seq" : "random";
  row.depth = m_.depth;
  row.block_size_bytes = uint32_t(m_.nblocks) * kBlockSize;
  row.ios = ios_;
  row.seconds = elapsed;
  row.iops = elapsed > 0 ? double(ios_) / elapsed : 0;
  row.mb_per_s = row.iops * row.block_size_bytes / 1e6;
  row.avg_latency_us = ios_ ? latency_us_sum_ / double(ios_) : 0;
  row.cpu_us_per_io = ios_ ? cpu * 1e6 / double(ios_) : 0;
  row.failed_ios = failed_;
  return row;
}

DeviceProbeRow measure(IoSystem& io, IoFile& file, const Measure& m, double seconds,
                       uint64_t seed) {
  return ProbeRun(io, file, m, seed).run(seconds);
}

}  // namespace

DeviceProbeRow probe_file_sequential(const std::string& path, IoMethodKind method, bool direct,
                                     int depth, int blocks, int io_workers) {
  if (depth < 1 || blocks < 1)
    throw Error("device probe: depth and blocks per read must be at least 1")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  auto file = IoFile::open(path, "device_probe");
  if (file->size_blocks() == 0)
    throw Error("device probe: \"" + path + "\" is empty")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  // A small file gets smaller or fewer reads, as a scan's stream of it would.
  blocks = int(std::min<BlockNumber>(BlockNumber(blocks), file->size_blocks()));
  depth = int(std::min<BlockNumber>(BlockNumber(depth), file->size_blocks() / BlockNumber(blocks)));
  IoSystem io(IoConfig{.method = method,
                       .io_workers = io_workers,
                       .io_direct = direct,
                       .handles_per_thread = std::max(kHandlesPerThread, depth)});
  const Measure m{method, direct, true, depth, blocks, /*whole_file_once=*/true};
  DeviceProbeRow row = ProbeRun(io, *file, m, 1).run(0);
  row.kernel = kernel_release();
  return row;
}

std::string format_device_probe_row(const DeviceProbeRow& r) {
  char line[512];
  std::snprintf(line, sizeof line,
                "method=%s direct=%d pattern=%s depth=%d block_size=%u repeat=%d ios=%llu "
                "seconds=%.2f MB/s=%.1f IOPS=%.0f avg_latency_us=%.1f cpu_us_per_io=%.2f "
                "failed=%llu kernel=%s",
                r.method.c_str(), r.direct ? 1 : 0, r.pattern.c_str(), r.depth, r.block_size_bytes,
                r.repeat, static_cast<unsigned long long>(r.ios), r.seconds, r.mb_per_s, r.iops,
                r.avg_latency_us, r.cpu_us_per_io, static_cast<unsigned long long>(r.failed_ios),
                r.kernel.c_str());
  return line;
}

std::string prepare_device_probe_file(const DeviceProbeConfig& config) {
  if (config.directory.empty())
    throw Error("device probe: no directory given").with_sqlstate(sqlstate::kInvalidParameterValue);
  if (config.file_size_mb == 0)
    throw Error("device probe: file size must be at least 1 MB")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  const std::string path = config.directory + "/tidepool_device_probe.dat";
  const uint64_t bytes = config.file_size_mb << 20;
  auto file = IoFile::open(path, "device_probe", 0, /*create_if_missing=*/true);
  if (uint64_t(file->size_blocks()) * kBlockSize == bytes) {
    uint64_t head[2] = {};
    if (::pread(file->buffered_fd(), head, sizeof head, 0) == ssize_t(sizeof head) &&
        head[0] == 0 && head[1] == kStamp)
      return path;  // a finished probe file from an earlier run
  }
  file->truncate(0);
  const size_t chunk = 1 << 20;
  std::vector<std::byte> buf(chunk);
  for (uint64_t off = 0; off < bytes; off += chunk) {
    size_t len = size_t(std::min<uint64_t>(chunk, bytes - off));
    for (size_t b = 0; b < len; b += kBlockSize) {
      uint64_t block = (off + b) / kBlockSize;
      std::memcpy(buf.data() + b, &block, sizeof block);
      std::memset(buf.data() + b + 8, int(block & 0xff), kBlockSize - 8);
    }
    size_t done = 0;
    while (done < len) {
      ssize_t n = ::pwrite(file->buffered_fd(), buf.data() + done, len - done, off_t(off + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw Error("device probe: could not write \"" + path +
                    "\": " + std::strerror(n < 0 ? errno : ENOSPC))
            .with_sqlstate(sqlstate::for_errno(n < 0 ? errno : ENOSPC));
      done += size_t(n);
    }
  }
  // The stamp goes last: a file cut short by an interrupted run is rebuilt next time.
  uint64_t stamp = kStamp;
  if (::pwrite(file->buffered_fd(), &stamp, sizeof stamp, 8) != ssize_t(sizeof stamp))
    throw Error("device probe: could not write \"" + path + "\": " + std::strerror(errno))
        .with_sqlstate(sqlstate::for_errno(errno));
  file->fsync();
  return path;
}

std::vector<DeviceProbeRow> run_device_probe(
    const DeviceProbeConfig& config, const std::function<void(const DeviceProbeRow&)>& on_row,
    const std::function<void(const std::string&)>& on_note) {
  const std::string path = prepare_device_probe_file(config);
  auto file = IoFile::open(path, "device_probe");
  const std::string kernel = kernel_release();
  std::vector<DeviceProbeRow> rows;
  uint64_t seed = 1;
  for (IoMethodKind method : config.methods) {
    for (bool direct : config.direct_modes) {
      std::unique_ptr<IoSystem> io;
      try {
        // Enough handles for the deepest measurement (64 at least, the default).
        int handles = std::max(kHandlesPerThread, config.sequential_depth);
        for (int d : config.random_depths) handles = std::max(handles, d);
        io = std::make_unique<IoSystem>(IoConfig{.method = method,
                                                 .io_workers = config.io_workers,
                                                 .io_direct = direct,
                                                 .handles_per_thread = handles});
      } catch (const Error& e) {
        if (on_note) on_note(std::string(io_method_name(method)) + " skipped: " + e.what());
        break;
      }
      std::vector<Measure> plan;
      plan.push_back({method, direct, true, config.sequential_depth, config.sequential_blocks});
      for (int depth : config.random_depths) plan.push_back({method, direct, false, depth, 1});
      for (const Measure& m : plan) {
        for (int rep = 0; rep < config.repeats; ++rep) {
          DeviceProbeRow row = measure(*io, *file, m, config.seconds_per_run, seed++);
          row.repeat = rep;
          row.kernel = kernel;
          if (on_row) on_row(row);
          rows.push_back(row);
        }
      }
    }
  }
  return rows;
}

}  // namespace tp::aio
