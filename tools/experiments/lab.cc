#include "tools/experiments/lab.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bufmgr/buffer_usage.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/storage/datadir.h"
#include "tools/experiments/explain.h"

namespace tp::experiments {

namespace {

using Clock = std::chrono::steady_clock;

void on_sigint(int) {
  Lab::stop_flag().store(true);
  cancel_requested().store(true);  // the running statement stops too
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The marker file: one line per table, "name<TAB>rows<TAB>statement<TAB>statement...",
// the statements that completed for it, in order.
std::vector<std::vector<std::string>> read_marker(const std::string& path) {
  std::vector<std::vector<std::string>> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) fields.push_back(f);
    if (fields.size() >= 2) lines.push_back(std::move(fields));
  }
  return lines;
}

void write_marker(const std::string& path, const std::vector<std::vector<std::string>>& lines) {
  const std::string tmp = path + ".new";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& fields : lines) {
      for (size_t i = 0; i < fields.size(); ++i) out << (i ? "\t" : "") << fields[i];
      out << "\n";
    }
    if (!out) throw Error("could not write \"" + tmp + "\"");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

// ---- Progress -------------------------------------------------------------

Progress::Progress(std::string experiment, int total_steps, const LabOptions& options)
    : experiment_(std::move(experiment)),
      total_(std::max(1, total_steps)),
      enabled_(options.progress),
      stop_at_(options.stop_at_step),
      start_(Clock::now()) {}

void Progress::step(const std::string& what) {
  ++done_;
  if (!stop_at_.empty() && what.find(stop_at_) != std::string::npos) Lab::stop_flag().store(true);
  if (!enabled_) return;
  double elapsed_s = ms_since(start_) / 1000;
  std::string left = "estimate after the first step";
  if (done_ > 1) {
    double per_step = elapsed_s / (done_ - 1);
    char buf[64];
    std::snprintf(buf, sizeof buf, "about %.0f s left", per_step * (total_ - done_ + 1));
    left = buf;
  }
  std::fprintf(stderr, "[%s] step %d/%d %s (elapsed %.0f s, %s)\n", experiment_.c_str(), done_,
               total_, what.c_str(), elapsed_s, left.c_str());
}

// ---- Lab ------------------------------------------------------------------

std::atomic<bool>& Lab::stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

Lab::Lab(LabOptions options) : options_(std::move(options)) {
  if (options_.data_dir.empty()) options_.data_dir = options_.out_dir + "/data";
  std::error_code ec;
  std::filesystem::create_directories(options_.data_dir, ec);
  if (ec)
    throw Error("could not create data directory \"" + options_.data_dir + "\": " + ec.message());
  std::filesystem::create_directories(options_.out_dir, ec);
  if (ec)
    throw Error("could not create output directory \"" + options_.out_dir + "\": " + ec.message());
  // Claim the data directory (its marker file) before any experiment writes
  // into it: the device probe leaves its file there, and a directory holding
  // files but no marker is one tidepool refuses to open.
  try {
    DataDir claim(options_.data_dir);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) +
                    " (experiment data directory; give --data a new or "
                    "empty directory, or one an earlier experiment run made)",
                e.detail(), e.hint());
  }
  marker_path_ = options_.data_dir + "/experiment_tables.tsv";
  stop_flag().store(false);
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  struct sigaction* old = new struct sigaction;
  ::sigaction(SIGINT, &sa, old);
  previous_handler_ = old;
}

Lab::~Lab() {
  auto* old = static_cast<struct sigaction*>(previous_handler_);
  ::sigaction(SIGINT, old, nullptr);
  delete old;
}

Session& Lab::session() {
  if (!session_) {
    SessionOptions so;
    so.data_dir = options_.data_dir;
    so.settings = options_.settings;
    so.progress = options_.progress;
    // A failed open is not retried: DataDir keeps its lock when its constructor
    // throws, so a second attempt would blame "another process" (this one).
    if (!session_error_.empty()) throw Error(session_error_);
    try {
      session_ = std::make_unique<Session>(so);
    } catch (const Error& e) {
      session_error_ = std::string(e.what()) + " (if the experiment data directory \"" +
                       options_.data_dir +
                       "\" was written by another tidepool build, remove it: the experiments "
                       "rebuild their tables)";
      throw Error(session_error_, e.detail(), e.hint());
    }
  }
  return *session_;
}

void Lab::check_stop() const {
  if (stop_flag().load()) throw Stopped{};
}

ResultSet Lab::sql(const std::string& statement) {
  check_stop();
  try {
    return session().execute(statement);
  } catch (const Error& e) {
    check_stop();  // a statement canceled by Ctrl-C is a stop, not a failure
    throw Error("SQL step \"" + statement + "\" failed: " + e.what(), e.detail(), e.hint());
  }
}

Timed Lab::timed(const std::string& statement) {
  Timed t;
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  auto t0 = Clock::now();
  t.result = sql(statement);
  t.wall_ms = ms_since(t0);
  bufmgr::BufferUsage used = bufmgr::thread_buffer_usage() - before;
  t.shared_hit = used.shared_hit;
  t.shared_read = used.shared_read;
  t.execution_ms = t.wall_ms;
  double ms = 0;
  if (parse_execution_time_ms(t.result, &ms)) t.execution_ms = ms;
  uint64_t hit = 0, read = 0;
  if (parse_top_buffers(t.result, &hit, &read)) {
    t.shared_hit = hit;
    t.shared_read = read;
  }
  return t;
}

void Lab::ensure_table(const TableSpec& spec) {
  auto lines = read_marker(marker_path_);
  const std::string rows = std::to_string(spec.rows);
  std::vector<std::string> done;
  auto mine =
      std::find_if(lines.begin(), lines.end(), [&](const auto& f) { return f[0] == spec.name; });
  const RelationEntry* rel = session().catalog().find(spec.name);
  bool reusable =
      !options_.fresh && mine != lines.end() && (*mine)[1] == rows && rel && rel->is_table();
  if (reusable) {
    done.assign(mine->begin() + 2, mine->end());
    // Reuse only a prefix of the wanted statements, and only if the table holds the
    // rows the load statements put there.
    bool prefix = done.size() <= spec.setup.size() &&
                  std::equal(done.begin(), done.end(), spec.setup.begin());
    bool loaded = done.size() < 2 || rel->rows == spec.rows;
    for (const std::string& idx : spec.indexes)
      if (done.size() == spec.setup.size() && !session().catalog().find(idx)) prefix = false;
    if (!prefix || !loaded) done.clear();
  }
  if (done.empty()) sql("DROP TABLE IF EXISTS " + spec.name);
  auto save = [&] {
    lines.erase(std::remove_if(lines.begin(), lines.end(),
                               [&](const auto& f) { return f[0] == spec.name; }),
                lines.end());
    std::vector<std::string> fields = {spec.name, rows};
    fields.insert(fields.end(), done.begin(), done.end());
    lines.push_back(std::move(fields));
    write_marker(marker_path_, lines);
  };
  if (!done.empty() && options_.progress)
    std::fprintf(stderr, "  reusing table %s (%s rows, %zu of %zu setup statements done)\n",
                 spec.name.c_str(), rows.c_str(), done.size(), spec.setup.size());
  for (size_t i = done.size(); i < spec.setup.size(); ++i) {
    if (options_.progress) std::fprintf(stderr, "  %s\n", spec.setup[i].c_str());
    auto t0 = Clock::now();
    sql(spec.setup[i]);
    if (options_.progress) std::fprintf(stderr, "    done in %.1f s\n", ms_since(t0) / 1000);
    done.push_back(spec.setup[i]);
    save();
  }
  if (done.size() == spec.setup.size()) save();
}

void Lab::make_cold(const std::vector<std::string>& relations) {
  check_stop();
  Storage& storage = session().storage();
  storage.evict_all();
  if (!session().settings().get_bool("io_direct")) {
    for (const std::string& name : relations) {
      const RelationEntry* rel = session().catalog().find(name);
      if (!rel) throw Error("cold run: relation \"" + name + "\" does not exist");
      int fd = storage.file(*rel).buffered_fd();
      if (::fdatasync(fd) != 0)
        throw Error("cold run: fdatasync of relation \"" + name +
                    "\" failed: " + std::strerror(errno));
      if (int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); rc != 0)
        throw Error("cold run: could not drop relation \"" + name +
                    "\" from the page cache: " + std::strerror(rc));
    }
    if (options_.drop_caches) {
      ::sync();
      int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY);
      if (fd < 0 || ::write(fd, "1", 1) != 1) {
        int err = errno;
        if (fd >= 0) ::close(fd);
        throw Error(std::string("--drop-caches: could not write /proc/sys/vm/drop_caches: ") +
                        std::strerror(err),
                    "", "run as root, or leave out --drop-caches (posix_fadvise is still used)");
      }
      ::close(fd);
    }
  }
}

void Lab::make_relation_cold(const std::string& name) {
  check_stop();
  const RelationEntry* rel = session().catalog().find(name);
  if (!rel) throw Error("cold run: relation \"" + name + "\" does not exist");
  Storage& storage = session().storage();
  storage.flush(*rel);
  storage.forget(rel->relnumber);
  if (!session().settings().get_bool("io_direct")) {
    int fd = storage.file(*rel).buffered_fd();
    if (int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); rc != 0)
      throw Error("cold run: could not drop relation \"" + name +
                  "\" from the page cache: " + std::strerror(rc));
  }
}

void Lab::reset_settings() {
  session().execute("RESET ALL");
  // The rpc, selectivity, eic and index-prefetch articles measure what one process's
  // scan costs, with PostgreSQL's parallel query off; without this a seq scan of
  // their tables would run as a Gather (iomethod sets its workers per run).
  default_setting("max_parallel_workers_per_gather", "0");
}

bool Lab::user_set(const std::string& name) const {
  for (const std::string& s : options_.settings)
    if (s.rfind(name + "=", 0) == 0) return true;
  return false;
}

void Lab::default_setting(const std::string& name, const std::string& value) {
  if (!user_set(name)) session().execute("SET " + name + " = " + value);
}

std::vector<std::pair<std::string, std::string>> Lab::all_settings() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SettingDef& d : Settings::definitions())
    out.emplace_back(d.name, session().settings().show(d.name));
  return out;
}

int Lab::repeats_after(double first_ms) const {
  if (options_.max_repeat_seconds > 0 && first_ms > options_.max_repeat_seconds * 1000) return 1;
  return std::max(1, options_.repeat);
}

// ---- helpers --------------------------------------------------------------

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

}  // namespace tp::experiments
