// The CPU step. The figures come from the engine itself, so they hold what a scan really
// does per page and per tuple: cached queries over two scratch tables of the same shape
// at two densities are two equations in the per-page and per-tuple costs; quals and a
// full index scan add the per-operator and per-index-entry costs on top. The checksum
// and the page cache's pread are timed directly.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/page.h"
#include "engine/session/session.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSparse = "calibrate_sparse";
constexpr const char* kDense = "calibrate_dense";
constexpr const char* kSparseIndex = "calibrate_sparse_a_idx";
constexpr const char* kDenseIndex = "calibrate_dense_a_idx";
// An index scan's heap fetches over the scattered table are the random page visits
// random_page_hit_us prices.
constexpr const char* kScattered = kScatteredTable;
constexpr const char* kScatteredIndex = kScatteredIndexName;
// Below this a figure is noise around zero; the model wants a positive cost.
constexpr double kFloorUs = 0.0005;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double elapsed_ms(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A figure below the floor is clamped, and the note says what was measured.
double clamped(const char* name, double us, CpuFigures* f) {
  if (us >= kFloorUs) return us;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s measured %.4g us, clamped to %.4g", name, us, kFloorUs);
  f->notes.emplace_back(buf);
  return kFloorUs;
}

}  // namespace

std::shared_ptr<Database> open_scratch(const std::string& dir) {
  DatabaseOptions options;
  options.data_dir = dir;
  // The tables must sit in the pool whole, and a seq scan of a table over a quarter of
  // the pool would read through a ring instead; one process, no parallel workers.
  options.settings = {"shared_buffers=768MB", "max_parallel_workers_per_gather=0",
                      "io_method=sync"};
  auto db = Database::open(options);
  const std::set<std::string> ours = {kSparse,      kDense,      kScattered,
                                      kSparseIndex, kDenseIndex, kScatteredIndex};
  for (const RelationEntry& r : db->data_dir().catalog().relations)
    if (!ours.count(r.name))
      throw Error("\"" + dir + "\" holds relation \"" + r.name +
                      "\", which tidepool calibrate did not create",
                  "", "Move that directory out of the way; calibrate uses it as scratch space.");
  return db;
}

uint64_t explain_field(const std::string& line, const char* key) {
  size_t at = line.find(key);
  return at == std::string::npos ? 0
                                 : std::strtoull(line.c_str() + at + std::strlen(key), nullptr, 10);
}

namespace {

void load_tables(Session& s, const Options& o) {
  for (const char* t : {kSparse, kDense, kScattered})
    s.execute(std::string("DROP TABLE IF EXISTS ") + t);
  s.execute(std::string("CREATE TABLE ") + kSparse + " (a int, b int) WITH (fillfactor=10)");
  s.execute(std::string("INSERT INTO ") + kSparse + " SELECT g, g FROM generate_series(1, " +
            std::to_string(o.sparse_rows) + ") g");
  s.execute(std::string("CREATE TABLE ") + kDense + " (a int, b int)");
  // Shuffled, as the experiments' rpc table: the index scan's heap fetches land on
  // pages in no order, each one a page visit (the sparse table is in index order).
  s.execute(std::string("INSERT INTO ") + kDense + " SELECT g, g FROM generate_series(1, " +
            std::to_string(o.dense_rows) + ") g ORDER BY random()");
  s.execute(std::string("CREATE INDEX ") + kSparseIndex + " ON " + kSparse + " (a)");
  s.execute(std::string("CREATE INDEX ") + kDenseIndex + " ON " + kDense + " (a)");
  s.execute(std::string("CREATE TABLE ") + kScattered + " (a int, b int) WITH (fillfactor=10)");
  s.execute(std::string("INSERT INTO ") + kScattered + " SELECT g, g FROM generate_series(1, " +
            std::to_string(o.scattered_rows) + ") g ORDER BY random()");
  s.execute(std::string("CREATE INDEX ") + kScatteredIndex + " ON " + kScattered + " (a)");
  for (const char* t : {kSparse, kDense, kScattered})
    s.execute(std::string("VACUUM (ANALYZE) ") + t);
}

const RelationEntry& relation(Session& s, const char* name) {
  for (const RelationEntry& r : s.catalog().relations)
    if (r.name == name) return r;
  throw Error(std::string("calibrate: scratch relation ") + name + " is missing");
}

class QueryTimer {
 public:
  QueryTimer(Session& s, int repeats, CpuFigures* f) : s_(s), repeats_(repeats), f_(f) {}
  // Each query's median ms once warm, less a trivial statement's (parse, plan, result).
  // The queries take turns, round after round, so that a neighbour's burst of CPU (other
  // processes on these cores) falls on all of them alike rather than on one, and the
  // differences the figures are solved from keep their sign.
  std::vector<double> ms(std::vector<std::string> sqls) {
    sqls.insert(sqls.begin(), "SELECT 1");
    for (const std::string& sql : sqls) s_.execute(sql);  // warm: pages in the pool
    std::vector<std::vector<double>> t(sqls.size());
    for (int k = 0; k < repeats_; ++k)
      for (size_t q = 0; q < sqls.size(); ++q) {
        Clock::time_point t0 = Clock::now();
        s_.execute(sqls[q]);
        t[q].push_back(elapsed_ms(t0));
      }
    std::vector<double> out;
    auto fastest = [](const std::vector<double>& v) {
      return *std::min_element(v.begin(), v.end());
    };
    const double baseline = fastest(t[0]);
    for (size_t q = 1; q < sqls.size(); ++q) out.push_back(std::max(0.0, fastest(t[q]) - baseline));
    return out;
  }
  // A Bitmap Heap Scan's "Heap Blocks: exact=N" (0 when it prints none).
  uint64_t heap_blocks(const std::string& sql) {
    for (const auto& row : s_.execute("EXPLAIN (ANALYZE) " + sql).rows)
      if (!row.empty() && row[0].find("Heap Blocks:") != std::string::npos)
        return explain_field(row[0], "exact=");
    return 0;
  }
  // Pages the plan visits in the pool; a page read from storage makes a note (the
  // figures would hold I/O).
  uint64_t hits(const std::string& sql) {
    ResultSet r = s_.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql);
    for (const auto& row : r.rows) {
      if (row.empty() || row[0].find("Buffers: shared") == std::string::npos) continue;
      if (uint64_t read = explain_field(row[0], "read=")) {
        f_->notes.push_back(std::to_string(read) + " pages not cached during: " + sql);
      }
      return explain_field(row[0], "hit=");
    }
    return 0;
  }

 private:
  Session& s_;
  int repeats_;
  CpuFigures* f_;
};

// The scans count a column, so that each row is read from its page as a real query's
// is (count(*) alone needs no column and skips that); count's own work is per batch.
void solve_seq(Session& s, QueryTimer& timer, CpuFigures* f) {
  for (const char* off : {"enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"})
    s.execute(std::string("SET ") + off + " = off");
  const std::string count = "SELECT count(b) FROM ";
  std::vector<double> t =
      timer.ms({count + kSparse, count + kDense, count + kDense + " WHERE a > 0",
                count + kDense + " WHERE a > 0 AND b > 0"});
  f->sparse_ms = t[0], f->dense_ms = t[1], f->qual1_ms = t[2], f->qual2_ms = t[3];
  timer.hits(count + kSparse);
  timer.hits(count + kDense);
  const RelationEntry& sparse = relation(s, kSparse);
  const RelationEntry& dense = relation(s, kDense);
  f->sparse_pages = sparse.pages, f->sparse_rows = sparse.rows;
  f->dense_pages = dense.pages, f->dense_rows = dense.rows;
  // The second qual's operator: both columns are read already for the first and count.
  const double op = (f->qual2_ms - f->qual1_ms) * 1000 / double(dense.rows);
  // t = pages * page_hit + rows * tuple, at the two densities.
  const double p1 = double(sparse.pages), r1 = double(sparse.rows);
  const double p2 = double(dense.pages), r2 = double(dense.rows);
  const double t1 = f->sparse_ms * 1000, t2 = f->dense_ms * 1000;
  const double det = p1 * r2 - p2 * r1;
  f->cpu_operator_us = op;
  f->page_hit_us = (t1 * r2 - t2 * r1) / det;
  f->cpu_tuple_us = (p1 * t2 - p2 * t1) / det;
}

// Full index scans. The sparse table is in index order, so its scan visits each heap
// page once for 22 entries, and is mostly per-entry work: t = hits * page_hit + entries
// * (index tuple + heap tuple + the index cond's operator). The scattered one, shuffled
// and beyond the CPU caches, visits a page per entry; what it takes beyond the per-entry
// work is an index scan's random page visit (CPU caches missed): random_page_hit_us.
void solve_index(Session& s, QueryTimer& timer, QueryTimer& slow_timer, CpuFigures* f) {
  s.execute("SET enable_seqscan = off");
  s.execute("SET enable_indexscan = on");
  const std::string count = "SELECT count(b) FROM ";
  const std::string sparse_sql = count + kSparse + " WHERE a > 0";
  // A tenth of the scattered table: each heap page visited about twice, as the
  // selectivity sweep's index scans do (a full scan revisits each page 22 times and finds
  // more of it in the CPU caches).
  f->scattered_rows = relation(s, kScattered).rows;
  const uint64_t tenth = std::max<uint64_t>(1, f->scattered_rows / 10);
  const std::string scattered_sql = count + kScattered + " WHERE a <= " + std::to_string(tenth);
  f->index_sparse_ms = timer.ms({sparse_sql})[0];
  f->index_ms = slow_timer.ms({scattered_sql})[0];
  f->index_sparse_hits = timer.hits(sparse_sql);
  f->index_hits = timer.hits(scattered_sql);
  const double others = f->cpu_tuple_us + f->cpu_operator_us;
  const double per_entry =
      (f->index_sparse_ms * 1000 - double(f->index_sparse_hits) * f->page_hit_us) /
      double(f->sparse_rows);
  f->cpu_index_tuple_us = per_entry - others;
  const double entries_us = double(tenth) * (std::max(0.0, f->cpu_index_tuple_us) + others);
  f->index_fetch_us =
      (f->index_ms * 1000 - entries_us) / double(std::max<uint64_t>(1, f->index_hits));
  // The same scan through a read stream from its first TID: what prefetching costs per
  // heap visit when every page is cached.
  s.execute("SET index_prefetch = immediate");
  f->prefetch_index_ms = slow_timer.ms({scattered_sql})[0];
  s.execute("RESET index_prefetch");
  f->stream_block_us =
      (f->prefetch_index_ms - f->index_ms) * 1000 / double(std::max<uint64_t>(1, f->index_hits));
  // And as a bitmap heap scan: per heap page, the TID bitmap's iteration, the stream and
  // the page's visit, beyond the entries' work.
  s.execute("SET enable_indexscan = off");
  s.execute("SET enable_bitmapscan = on");
  f->bitmap_ms = slow_timer.ms({scattered_sql})[0];
  f->bitmap_pages = timer.heap_blocks(scattered_sql);
  f->bitmap_page_us =
      (f->bitmap_ms * 1000 - entries_us) / double(std::max<uint64_t>(1, f->bitmap_pages));
  s.execute("SET enable_bitmapscan = off");
}

// µs to verify one page read from storage (checksum and header, as the pool does), over
// pages beyond the CPU caches as freshly read pages are.
double checksum_us(int repeats) {
  constexpr size_t kPages = 2048;  // 16 MB
  std::vector<char> pages(kPages * kBlockSize);
  std::mt19937 rng(7);
  for (size_t i = 0; i < kPages; ++i) {
    char* p = pages.data() + i * kBlockSize;
    page_init(p, 0);
    char item[32];
    for (;;) {
      for (char& c : item) c = char(rng());
      if (page_add_item(p, item, sizeof item) == 0) break;
    }
    page_set_checksum(p, BlockNumber(i));
  }
  std::vector<double> t;
  size_t ok = 0;
  for (int k = 0; k < repeats; ++k) {
    Clock::time_point t0 = Clock::now();
    for (size_t i = 0; i < kPages; ++i)
      ok += page_verify(pages.data() + i * kBlockSize, BlockNumber(i)) ? 1 : 0;
    t.push_back(elapsed_ms(t0) * 1000 / double(kPages));
  }
  if (ok != kPages * size_t(repeats)) throw Error("calibrate: a checksummed page failed to verify");
  return median(t);
}

// µs per 8 kB pread served from the kernel's page cache: a region of the probe file is
// read once to bring it in, then read at random places.
double os_cache_us(const std::string& file, int repeats) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("calibrate: could not open \"" + file + "\": " + std::strerror(errno));
  constexpr size_t kRegionPages = 8192;  // 64 MB
  std::vector<char> buf(1 << 20);
  size_t region = 0;
  for (; region < kRegionPages * kBlockSize; region += buf.size())
    if (::pread(fd, buf.data(), buf.size(), off_t(region)) != ssize_t(buf.size())) break;
  const size_t pages = region / kBlockSize;
  std::mt19937_64 rng(11);
  std::vector<double> t;
  for (int k = 0; k < repeats && pages > 0; ++k) {
    constexpr int kReads = 10000;
    Clock::time_point t0 = Clock::now();
    for (int i = 0; i < kReads; ++i)
      if (::pread(fd, buf.data(), kBlockSize, off_t(rng() % pages) * kBlockSize) != kBlockSize)
        break;
    t.push_back(elapsed_ms(t0) * 1000 / kReads);
  }
  ::close(fd);
  if (t.empty()) throw Error("calibrate: \"" + file + "\" is too short to time cached reads");
  return median(t);
}

// Every timing and figure of `f`: the median over the trials (the counts are the same
// in each).
void keep_medians(const std::vector<CpuFigures>& trials, CpuFigures* f) {
  static constexpr double CpuFigures::*kFields[] = {
      &CpuFigures::cpu_tuple_us,    &CpuFigures::cpu_index_tuple_us, &CpuFigures::cpu_operator_us,
      &CpuFigures::page_hit_us,     &CpuFigures::sparse_ms,          &CpuFigures::dense_ms,
      &CpuFigures::qual1_ms,        &CpuFigures::qual2_ms,           &CpuFigures::index_sparse_ms,
      &CpuFigures::index_ms,        &CpuFigures::index_fetch_us,     &CpuFigures::prefetch_index_ms,
      &CpuFigures::stream_block_us, &CpuFigures::bitmap_ms,          &CpuFigures::bitmap_page_us};
  const CpuFigures& first = trials.front();
  f->sparse_pages = first.sparse_pages, f->sparse_rows = first.sparse_rows;
  f->dense_pages = first.dense_pages, f->dense_rows = first.dense_rows;
  f->index_sparse_hits = first.index_sparse_hits, f->index_hits = first.index_hits;
  f->bitmap_pages = first.bitmap_pages, f->scattered_rows = first.scattered_rows;
  for (auto field : kFields) {
    std::vector<double> v;
    for (const CpuFigures& t : trials) v.push_back(t.*field);
    f->*field = median(v);
  }
  f->trials = int(trials.size());
}

}  // namespace

CpuFigures measure_cpu(const std::string& scratch_dir, const std::string& probe_file,
                       const Options& options, const std::function<void(const std::string&)>& say,
                       bool* claimed) {
  CpuFigures f;
  {
    say("cpu: loading scratch tables in " + scratch_dir);
    auto db = open_scratch(scratch_dir);
    *claimed = true;
    Session s(db);
    load_tables(s, options);
    say("cpu: timing cached scans");
    QueryTimer timer(s, options.cpu_repeats, &f);
    // The scattered table's index scan takes a tenth of a second: fewer rounds of it.
    QueryTimer slow_timer(s, std::max(2, options.cpu_repeats / 5), &f);
    std::vector<CpuFigures> trials(size_t(std::max(1, options.cpu_trials)));
    for (CpuFigures& t : trials) {
      check_for_interrupts();
      solve_seq(s, timer, &t);
      solve_index(s, timer, slow_timer, &t);
    }
    keep_medians(trials, &f);
  }
  f.cpu_operator_us = clamped("cpu_operator_us", f.cpu_operator_us, &f);
  f.page_hit_us = clamped("page_hit_us", f.page_hit_us, &f);
  f.cpu_tuple_us = clamped("cpu_tuple_us", f.cpu_tuple_us, &f);
  f.cpu_index_tuple_us = clamped("cpu_index_tuple_us", f.cpu_index_tuple_us, &f);
  f.index_fetch_us = clamped("random_page_hit_us", f.index_fetch_us, &f);
  f.stream_block_us = clamped("stream_block_us", f.stream_block_us, &f);
  f.bitmap_page_us = clamped("bitmap_page_us", f.bitmap_page_us, &f);
  say("cpu: timing page checksums and cached preads");
  f.page_read_cpu_us = clamped("page_read_cpu_us", checksum_us(options.cpu_repeats), &f);
  f.os_cache_page_us =
      clamped("os_cache_page_us", os_cache_us(probe_file, options.cpu_repeats), &f);
  return f;
}

bool remove_scratch_dir(const std::string& dir) {
  const std::set<std::string> top = {kDataDirMarker, "TIDEPOOL_DATADIR.new", "catalog",
                                     "catalog.new",  "tidepool.pid",         "statement.undo"};
  auto ours_in_base = [](const std::string& n) {
    std::string stem = n;
    for (const char* suffix : {"_vm.new", "_vm"})
      if (stem.ends_with(suffix)) {
        stem.resize(stem.size() - std::strlen(suffix));
        break;
      }
    return !stem.empty() && stem.find_first_not_of("0123456789") == std::string::npos;
  };
  auto remove_from = [](const std::string& path, const auto& ours) {
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) return;
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
    for (const std::string& n : names)
      if (ours(n)) ::unlink((path + "/" + n).c_str());
  };
  remove_from(dir + "/base", ours_in_base);
  ::rmdir((dir + "/base").c_str());
  remove_from(dir, [&](const std::string& n) { return top.count(n) > 0; });
  return ::rmdir(dir.c_str()) == 0 || errno == ENOENT;
}

}  // namespace tp::calibrate
