// `tidepool calibrate`: the conf block keeps the user's lines and replaces itself on a
// second run; what it writes parses back through load_conf_file and parse_device_curve;
// --dry-run writes nothing; a directory that is not a data directory is refused
// untouched; and a tiny real run writes every setting with sane figures.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/session/settings.h"
#include "engine/storage/datadir.h"
#include "tests/support/test_util.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {
namespace {

namespace fs = std::filesystem;
using tp::testing::TempDir;

struct CommandRun {
  int code = -1;
  std::string out, err;
};

CommandRun run(std::vector<std::string> args) {
  std::ostringstream out, err;
  CommandRun r;
  r.code = run_calibrate_command(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The fast arguments: one method, two depths, 20 ms per measurement, a 64 MB file, one
// trial of the CPU step.
std::vector<std::string> tiny(const std::string& dir) {
  return {"-D",       dir,   "--seconds",    "0.02", "--file-mb",      "64",   "--methods", "sync",
          "--depths", "1,4", "--cpu-trials", "1",    "--scratch-rows", "20000"};
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Every name under `dir` (recursively), with each regular file's size.
std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    names.insert(e.path().string() +
                 (e.is_regular_file() ? " " + std::to_string(e.file_size()) : ""));
  return names;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Calibration fake(double tuple_us, double seq_us) {
  Calibration c;
  c.when_utc = "2026-12-02 02:00 UTC";
  c.kernel = "test";
  c.file_size_mb = 64;
  c.seconds_per_run = 0.3;
  for (bool direct : {true, false}) {
    DeviceResult d;
    d.method = "sync";
    d.direct = direct;
    d.curve.seq_us = seq_us;
    d.curve.random_us = {{1, 100}, {4, 40}};
    d.seq_mb_per_s = 8192 / seq_us;
    d.random = {{1, 10000, 100}, {4, 25000, 160}};
    c.devices.push_back(d);
  }
  c.cpu.cpu_tuple_us = tuple_us;
  c.cpu.cpu_index_tuple_us = 0.02;
  c.cpu.cpu_operator_us = 0.007;
  c.cpu.page_hit_us = 0.1;
  c.cpu.page_read_cpu_us = 0.6;
  c.cpu.os_cache_page_us = 1.5;
  c.io_method = "sync";
  return c;
}

TEST(CalibrateConf, BlockKeepsUserLinesAndReplacesItselfOnTheNextRun) {
  TempDir tmp;
  const std::string conf = tmp.path() + "/tidepool.conf";
  const std::string user = "# my settings\nshared_buffers = 64MB\ncpu_tuple_us = 9\n";
  std::string once = splice_calibrate_block(user, calibrate_block(fake(0.04, 5)));
  EXPECT_EQ(once.rfind(user, 0), 0u) << once;  // the user's lines first, as written
  std::string twice =
      splice_calibrate_block(once + "work_mem = 8MB\n", calibrate_block(fake(0.05, 6)));
  EXPECT_EQ(count(twice, kBlockBegin), 1u) << twice;
  EXPECT_EQ(count(twice, kBlockEnd), 1u);
  EXPECT_NE(twice.find(user), std::string::npos);
  EXPECT_NE(twice.find("work_mem = 8MB\n"), std::string::npos);  // after the block, kept
  EXPECT_EQ(count(twice, "cpu_tuple_us = '0.05'"), 1u);
  EXPECT_EQ(count(twice, "cpu_tuple_us = '0.04'"), 0u);
  // PostgreSQL's constants are comments only.
  EXPECT_EQ(twice.find("\nrandom_page_cost"), std::string::npos);
  EXPECT_NE(twice.find("#   random_page_cost = "), std::string::npos);
  EXPECT_EQ(twice.find("\ncost_model"), std::string::npos);

  write(conf, twice);
  Settings s;
  s.load_conf_file(conf);
  EXPECT_DOUBLE_EQ(s.get_real("cpu_tuple_us"), 0.05);  // the block's line comes later
  EXPECT_EQ(s.show("shared_buffers"), "64MB");
  EXPECT_EQ(s.show("work_mem"), "8MB");
  EXPECT_EQ(s.show("cost_model"), "pg15");
  DeviceCurve c = parse_device_curve(s.get_text("device_sync_direct"), "device_sync_direct");
  EXPECT_DOUBLE_EQ(c.seq_us, 6);
  ASSERT_EQ(c.random_us.size(), 2u);
  EXPECT_EQ(c.random_us[1].first, 4);
  EXPECT_DOUBLE_EQ(c.random_us[1].second, 40);
}

TEST(CalibrateConf, BeginWithoutEndIsRefusedAndLaterLinesAreNamed) {
  EXPECT_THROW(splice_calibrate_block(std::string(kBlockBegin) + " (x)\ncpu_tuple_us = 1\n", "b\n"),
               Error);
  std::string conf = splice_calibrate_block("", calibrate_block(fake(0.04, 5))) +
                     "page_hit_us = 3  # mine\nwork_mem = 8MB\n";
  std::vector<std::string> later = settings_overridden_after_block(conf, {"page_hit_us", "x"});
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].rfind("page_hit_us (line ", 0), 0u);
}

TEST(Calibrate, RefusesADirectoryThatIsNotADataDirectoryUntouched) {
  TempDir tmp;
  fs::create_directories(tmp.data());
  write(tmp.data() + "/notes.txt", "mine\n");
  std::set<std::string> before = listing(tmp.data());
  CommandRun r = run(tiny(tmp.data()));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is not a tidepool data directory"), std::string::npos) << r.err;
  EXPECT_EQ(listing(tmp.data()), before);
}

// A scratch directory someone else's data sits in is refused and kept as it was.
TEST(Calibrate, RefusesAndKeepsAScratchDirectoryHoldingOtherData) {
  TempDir tmp;
  const std::string scratch = tmp.data() + "/" + kScratchName;
  { DataDir init(tmp.data()); }
  {
    Session s(tp::testing::options_for(scratch));
    s.execute("CREATE TABLE mine (a int)");
    s.execute("INSERT INTO mine VALUES (1), (2)");
  }
  CommandRun r = run(tiny(tmp.data()));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("which tidepool calibrate did not create"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.data() + "/tidepool.conf"));
  Session s(tp::testing::options_for(scratch));
  EXPECT_EQ(tp::testing::scalar(s, "SELECT count(*) FROM mine"), "2");
}

TEST(Calibrate, DryRunPrintsTheBlockAndWritesNothing) {
  TempDir tmp;
  { DataDir init(tmp.data()); }
  write(tmp.data() + "/tidepool.conf", "work_mem = 8MB\n");
  std::set<std::string> before = listing(tmp.data());
  before.erase(tmp.data() + "/tidepool.pid " +
               std::to_string(fs::file_size(tmp.data() + "/tidepool.pid")));
  std::vector<std::string> args = tiny(tmp.data());
  args.push_back("--dry-run");
  args.push_back("--quiet");
  CommandRun r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(kBlockBegin), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device_sync_direct = '"), std::string::npos);
  EXPECT_EQ(read(tmp.data() + "/tidepool.conf"), "work_mem = 8MB\n");
  std::set<std::string> after = listing(tmp.data());
  after.erase(tmp.data() + "/tidepool.pid " +
              std::to_string(fs::file_size(tmp.data() + "/tidepool.pid")));
  EXPECT_EQ(after, before);  // no probe file, no scratch directory, no conf.new
}

TEST(Calibrate, TinyRealRunWritesEverySettingWithSaneFigures) {
  TempDir tmp;
  fs::create_directories(tmp.data());  // empty: initialised as a data directory
  CommandRun first = run(tiny(tmp.data()));
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_TRUE(fs::exists(tmp.data() + "/" + kDataDirMarker));
  EXPECT_FALSE(fs::exists(tmp.data() + "/" + kScratchName));
  EXPECT_TRUE(fs::exists(tmp.data() + "/tidepool_device_probe.dat"));  // kept for the next run
  EXPECT_NE(first.out.find("wrote 11 settings"), std::string::npos) << first.out;

  write(tmp.data() + "/tidepool.conf",
        "# mine\nwork_mem = 8MB\n" + read(tmp.data() + "/tidepool.conf"));
  CommandRun second = run(tiny(tmp.data()));
  ASSERT_EQ(second.code, 0) << second.err;
  const std::string conf = read(tmp.data() + "/tidepool.conf");
  EXPECT_EQ(conf.rfind("# mine\nwork_mem = 8MB\n", 0), 0u) << conf;
  EXPECT_EQ(count(conf, kBlockBegin), 1u) << conf;
  EXPECT_EQ(count(conf, "\ndevice_worker") + count(conf, "\ndevice_io_uring"), 0u);  // not measured

  Settings s;
  s.load_conf_file(tmp.data() + "/tidepool.conf");
  for (bool direct : {true, false}) {
    const std::string name = device_curve_setting("sync", direct);
    EXPECT_NE(conf.find("\n" + name + " = '"), std::string::npos) << name;
    DeviceCurve c = parse_device_curve(s.get_text(name), name);
    EXPECT_GT(c.seq_us, 0) << name;
    ASSERT_EQ(c.random_us.size(), 2u) << name;
    EXPECT_EQ(c.random_us[0].first, 1);
    // One random read costs at least one page's transfer time.
    EXPECT_GE(c.random_us[0].second, c.seq_us) << s.get_text(name);
    // s1 and d1 are the engine's cold scans, whose comment line comes just before.
    const size_t setting_at = conf.find("\n" + name + " = '");
    const size_t engine_at = conf.rfind("#   through the engine", setting_at);
    ASSERT_NE(engine_at, std::string::npos) << conf;
    const std::string engine = conf.substr(engine_at, setting_at - engine_at);
    EXPECT_NE(engine.find("index scan of 2000 rows"), std::string::npos) << engine;
    const size_t d1_at = engine.find(", d1 ");
    ASSERT_NE(d1_at, std::string::npos) << engine;
    const double d1 = std::strtod(engine.c_str() + d1_at + 5, nullptr);
    EXPECT_NEAR(c.random_us[0].second, d1, d1 * 0.01) << engine << s.get_text(name);
    EXPECT_GT(c.seq1_us, 0) << s.get_text(name);
  }
  EXPECT_NE(second.out.find("one read at a time through the engine"), std::string::npos)
      << second.out;
  for (const char* name : {"cpu_tuple_us", "cpu_index_tuple_us", "cpu_operator_us", "page_hit_us",
                           "random_page_hit_us", "stream_block_us", "bitmap_page_us",
                           "page_read_cpu_us", "os_cache_page_us"}) {
    EXPECT_NE(conf.find(std::string("\n") + name + " = '"), std::string::npos) << name;
    EXPECT_GT(s.get_real(name), 0) << name;
    EXPECT_LT(s.get_real(name), 100) << name;
  }
}

}  // namespace
}  // namespace tp::calibrate
