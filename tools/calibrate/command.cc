// `tidepool calibrate`: the command's steps in order.
//   1. claim DIR as any tidepool command does (DataDir: a data directory is opened, a
//      new or empty one initialised, anything else refused untouched) and hold its lock
//      to the end, so no server or shell reads and writes it while the device is timed;
//   2. read DIR's tidepool.conf for io_method, io_direct and io_workers;
//   3. the device probe on DIR's probe file (device.cc);
//   4. the CPU step in DIR/calibrate_scratch, removed afterwards (cpu.cc);
//   5. the block (conf_block.cc), checked to parse, printed (--dry-run) or spliced into
//      DIR/tidepool.conf and written atomically; the report.
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "engine/core/error.h"
#include "engine/session/settings.h"
#include "engine/storage/datadir.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {

namespace {

const char* kUsage =
    "Usage: tidepool calibrate [-D DIR] [--seconds S] [--file-mb N]\n"
    "                          [--methods sync,worker,io_uring] [--depths 1,2,4,8,16,32,64]\n"
    "                          [--cpu-trials 5] [--scratch-rows 300000] [--dry-run] [--quiet]\n"
    "Measures this machine's device through the aio layer (sequential 128 kB reads, random\n"
    "8 kB reads by queue depth, per I/O method, direct and buffered) and the engine's CPU\n"
    "costs (per tuple, index entry, operator, page hit, page checksum, cached pread), and\n"
    "writes the prefetch-aware cost model's settings into DIR/tidepool.conf between\n"
    "\"# BEGIN tidepool calibrate\" and \"# END tidepool calibrate\" (the user's lines are\n"
    "kept). DIR (default $TIDEPOOL_DATA, else ./tidepool-data) is a data directory, or\n"
    "new or empty (then initialised); it must not be in use. About 30 s at the defaults.\n"
    "  --seconds S    each device measurement (default 0.3)\n"
    "  --file-mb N    the probe file's size (default: the existing one's, else 1024)\n"
    "  --methods L    I/O methods to measure (default sync,worker,io_uring)\n"
    "  --depths L     random-read queue depths, 1 first (default 1,2,4,8,16,32,64)\n"
    "  --cpu-trials K trials of the cached scans, medians kept (default 5)\n"
    "  --scratch-rows N  rows of the fillfactor-10 scratch tables (default 300000, beyond\n"
    "                 the CPU caches as real tables are)\n"
    "  --dry-run      print the block instead of writing tidepool.conf\n"
    "  --quiet        no progress lines on stderr, and only the last line of the report\n";

const char* kProbeFile = "tidepool_device_probe.dat";

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// Fills `o` from `args`; returns "" or what is wrong with them.
std::string parse_args(const std::vector<std::string>& args, Options* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--dry-run") {
      o->dry_run = true;
      continue;
    }
    if (a == "--quiet" || a == "-q") {
      o->quiet = true;
      continue;
    }
    if (i + 1 >= args.size()) return "unknown option or missing value: \"" + a + "\"";
    const std::string& v = args[++i];
    try {
      if (a == "-D" || a == "--data") {
        o->data_dir = v;
      } else if (a == "--seconds") {
        o->seconds_per_run = std::stod(v);
        if (!(o->seconds_per_run > 0 && o->seconds_per_run <= 60)) return "--seconds: 0 < S <= 60";
      } else if (a == "--file-mb") {
        o->file_size_mb = std::stoull(v);
        if (o->file_size_mb < 1) return "--file-mb: at least 1";
      } else if (a == "--methods") {
        o->methods.clear();
        for (const std::string& m : split_list(v)) o->methods.push_back(aio::parse_io_method(m));
        if (o->methods.empty()) return "--methods: name at least one method";
      } else if (a == "--scratch-rows") {
        o->sparse_rows = o->scattered_rows = std::stoull(v);
        if (o->sparse_rows < 1000 || o->sparse_rows > 10000000)
          return "--scratch-rows: 1000..10000000";
      } else if (a == "--cpu-trials") {
        o->cpu_trials = std::stoi(v);
        if (o->cpu_trials < 1 || o->cpu_trials > 100) return "--cpu-trials: 1..100";
      } else if (a == "--depths") {
        o->depths.clear();
        for (const std::string& d : split_list(v)) o->depths.push_back(std::stoi(d));
        if (o->depths.empty() || o->depths.front() != 1) return "--depths: the list starts at 1";
        for (int d : o->depths)
          if (d < 1 || d > aio::kMaxHandlesPerThread) return "--depths: each 1..1024";
      } else {
        return "unknown option \"" + a + "\"";
      }
    } catch (const std::exception& e) {
      return "bad value \"" + v + "\" for " + a + ": " + e.what();
    }
  }
  return "";
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? u.release : "unknown";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The probe file's size in MB if one is there (a whole number of MB), else 0.
uint64_t existing_probe_mb(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  uint64_t size = uint64_t(st.st_size);
  return size % (1 << 20) == 0 ? size >> 20 : 0;
}

// Every setting line of the block set into a fresh Settings, as load_conf_file would:
// what goes into the conf file must be what the engine reads back.
std::vector<std::string> check_block(const std::string& block) {
  Settings settings;
  std::vector<std::string> names;
  std::istringstream in(block);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find(" = ");
    std::string name = line.substr(0, eq), value = line.substr(eq + 3);
    if (value.size() >= 2 && value.front() == '\'') value = value.substr(1, value.size() - 2);
    settings.set(name, value, false);
    names.push_back(name);
  }
  return names;
}

// DIR's own settings: the I/O method and mode the PostgreSQL comparison uses, and the
// worker count the probe runs the worker method with.
void read_dir_settings(const DataDir& dir, Options* o, Calibration* c) {
  Settings s;
  try {
    s.load_conf_file(dir.conf_path());
  } catch (const Error& e) {
    c->notes.push_back(std::string("tidepool.conf: ") + e.what() + "; its defaults used");
  }
  c->io_method = s.show("io_method");
  c->io_direct = s.get_bool("io_direct");
  o->io_workers = int(s.get_int("io_workers"));
}

void print_report(const Calibration& c, const Options& o, std::ostream& out) {
  out << "tidepool calibrate: " << o.data_dir << " (kernel " << c.kernel << ", " << c.file_size_mb
      << " MB probe file, " << std::fixed << std::setprecision(2) << c.seconds_per_run
      << " s per measurement)\n\n";
  out << std::left << std::setw(18) << "device" << std::right << std::setw(9) << "MB/s"
      << std::setw(8) << "seq us";
  for (int d : o.depths) out << std::setw(9) << ("d" + std::to_string(d) + " us");
  out << "\n";
  for (const DeviceResult& d : c.devices) {
    out << std::left << std::setw(18) << (d.method + (d.direct ? " direct" : " buffered"))
        << std::right << std::setprecision(0) << std::setw(9) << d.seq_mb_per_s
        << std::setprecision(2) << std::setw(8) << d.curve.seq_us << std::setprecision(1);
    for (int depth : o.depths) {
      double us = 0;
      for (const auto& [dd, u] : d.curve.random_us)
        if (dd == depth) us = u;
      out << std::setw(9) << us;
    }
    out << "\n";
  }
  out << "\none read at a time through the engine (cold scans at effective_io_concurrency 0;\n"
         "they replace the probe's figures in the curves)\n"
      << std::left << std::setw(18) << "" << std::right << std::setw(10) << "s1 probe"
      << std::setw(10) << "s1 scan" << std::setw(10) << "d1 probe" << std::setw(10) << "d1 scan"
      << "\n";
  for (const DeviceResult& d : c.devices) {
    const EngineReads& e = d.engine;
    if (e.s1_us <= 0 && e.d1_us <= 0) continue;
    out << std::left << std::setw(18) << (d.method + (d.direct ? " direct" : " buffered"))
        << std::right << std::setprecision(2) << std::setw(10) << e.probe_s1_us << std::setw(10)
        << e.s1_us << std::setprecision(1) << std::setw(10) << e.probe_d1_us << std::setw(10)
        << e.d1_us << "\n";
  }
  const CpuFigures& f = c.cpu;
  out << "\n" << std::setprecision(4) << std::defaultfloat;
  out << "cpu_tuple_us        " << f.cpu_tuple_us << "\n";
  out << "cpu_index_tuple_us  " << f.cpu_index_tuple_us << "\n";
  out << "cpu_operator_us     " << f.cpu_operator_us << "\n";
  out << "page_hit_us         " << f.page_hit_us << "\n";
  out << "random_page_hit_us  " << f.index_fetch_us << "\n";
  out << "stream_block_us     " << f.stream_block_us << "\n";
  out << "bitmap_page_us      " << f.bitmap_page_us << "\n";
  out << "page_read_cpu_us    " << f.page_read_cpu_us << "\n";
  out << "os_cache_page_us    " << f.os_cache_page_us << "\n";
  for (const std::string& n : c.notes) out << "note: " << n << "\n";
  for (const std::string& n : f.notes) out << "note: " << n << "\n";
}

// Atomically, keeping the permissions of the file it replaces (write_file_atomically
// creates 0600).
void write_conf(const std::string& path, const std::string& text) {
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  write_file_atomically(path, text);
  if (existed) ::chmod(path.c_str(), st.st_mode & 07777);
}

struct ProbeFileGuard {
  std::string path;
  bool remove;
  ~ProbeFileGuard() {
    if (remove) ::unlink(path.c_str());
  }
};

// DIR claimed as every command claims a data directory; one another process holds gets
// calibrate's reason on top of DataDir's message.
std::unique_ptr<DataDir> claim(const std::string& path) {
  try {
    return std::make_unique<DataDir>(path);
  } catch (const Error& e) {
    if (std::string(e.what()).find("in use by another tidepool process") == std::string::npos)
      throw;
    throw Error(e.what(), e.detail(),
                "Stop it first: calibrate's reads would compete with its I/O, and it reads "
                "tidepool.conf only when it starts.")
        .with_sqlstate(e.sqlstate());
  }
}

// Steps 3-5 with DIR claimed. Returns the last line of the report.
std::string calibrate(const DataDir& dir, Options& o, std::ostream& out, std::ostream& err) {
  auto say = [&](const std::string& line) {
    if (!o.quiet) err << "[calibrate] " << line << std::endl;
  };
  Calibration c;
  c.when_utc = utc_now();
  c.kernel = kernel_release();
  read_dir_settings(dir, &o, &c);
  const std::string probe = dir.path() + "/" + kProbeFile;
  const uint64_t had_probe_mb = existing_probe_mb(probe);
  if (o.file_size_mb == 0) o.file_size_mb = had_probe_mb >= 64 ? had_probe_mb : 1024;
  c.file_size_mb = o.file_size_mb;
  c.seconds_per_run = o.seconds_per_run;
  // A dry run leaves no probe file it made (even when it stops early); one that was there
  // stays for the next run.
  ProbeFileGuard guard{probe, o.dry_run && had_probe_mb == 0};
  say("device: " + std::to_string(o.file_size_mb) + " MB probe file " + probe);
  c.devices = measure_device(o, &c.notes, say);
  const std::string scratch = dir.path() + "/" + kScratchName;
  bool claimed = false;  // a scratch directory that is not calibrate's is never removed
  try {
    c.cpu = measure_cpu(scratch, probe, o, say, &claimed);
    measure_engine_reads(scratch, c.cpu, &c.devices, &c.notes, say);
  } catch (...) {
    if (claimed) remove_scratch_dir(scratch);
    throw;
  }
  if (!remove_scratch_dir(scratch))
    c.notes.push_back(scratch + " kept: it holds files tidepool did not create");
  // A dry run leaves no probe file it made; one that was there stays for the next run.
  const std::string block = calibrate_block(c);
  const std::vector<std::string> names = check_block(block);
  if (!o.quiet) print_report(c, o, out);
  if (o.dry_run) {
    out << "\n" << block;
    return "dry run: " + std::to_string(names.size()) + " settings printed, nothing written";
  }
  const std::string conf = read_text(dir.conf_path());
  const std::string next = splice_calibrate_block(conf, block);
  write_conf(dir.conf_path(), next);
  for (const std::string& n : settings_overridden_after_block(next, names))
    out << "note: a later line of tidepool.conf overrides " << n << "\n";
  return "wrote " + std::to_string(names.size()) + " settings to " + dir.conf_path() +
         " (between its calibrate marker lines; other lines kept)";
}

}  // namespace

int run_calibrate_command(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err) {
  Options o;
  const char* env = std::getenv("TIDEPOOL_DATA");
  o.data_dir = env && *env ? env : "./tidepool-data";
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    }
  if (std::string why = parse_args(args, &o); !why.empty()) {
    err << "tidepool calibrate: " << why << "\n" << kUsage;
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    // Held to the end: a server or shell on DIR would compete with the probe's reads,
    // and would not see the new settings before its next start anyway.
    std::unique_ptr<DataDir> dir = claim(o.data_dir);
    std::string last = calibrate(*dir, o, out, err);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << last << "; took " << std::fixed << std::setprecision(1) << s << " s\n";
  } catch (const Error& e) {
    err << "tidepool calibrate: ERROR:  " << e.what() << "\n";
    if (!e.hint().empty()) err << "HINT:  " << e.hint() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tp::calibrate
