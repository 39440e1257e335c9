// Every lab of `tidepool lab` end to end at a small scale (10,000 rows, into a temporary
// directory): the output has the steps, the questions and the code references, and the
// figures each lab tells the student to look at say what the lab says they say.
#include <arpa/inet.h>
#include <errno.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <iostream>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/paths.h"
#include "tests/support/test_util.h"
#include "tools/labs/labs.h"

namespace tp::labs {
namespace {

using testing::TempDir;

constexpr uint64_t kRows = 10000;

struct Output {
  std::string text;
  std::string out_dir;
};

Output run_named(const std::string& name, const TempDir& dir, uint64_t rows = kRows) {
  LabArgs args;
  args.rows = rows;
  args.out_dir = dir.path() + "/out";
  args.data_dir = dir.path() + "/data";
  std::ostringstream out;
  for (const LabDef& d : lab_defs())
    if (d.name == name) run_lab(d, args, out);
  EXPECT_FALSE(out.str().empty()) << "no lab " << name;
  return {out.str(), args.out_dir};
}

// Every number captured by the regex's first group, in order.
std::vector<double> all_numbers(const std::string& text, const std::string& pattern) {
  std::vector<double> out;
  std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back(std::stod((*it)[1].str()));
  return out;
}

// The text of step `n` ("== Step n: ..." up to the next step or the questions).
std::string step_text(const std::string& text, int n) {
  const std::string start = "== Step " + std::to_string(n) + ":";
  size_t from = text.find(start);
  if (from == std::string::npos) return "";
  size_t to = text.find("== Step " + std::to_string(n + 1) + ":", from);
  if (to == std::string::npos) to = text.find("\nQuestions\n", from);
  return text.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

void expect_frame(const Output& o, const std::string& name) {
  EXPECT_NE(o.text.find("# Lab " + name + ":"), std::string::npos);
  EXPECT_NE(o.text.find("\nQuestions\n  1. "), std::string::npos);
  EXPECT_NE(o.text.find("\nWhere the code explains it\n"), std::string::npos);
  size_t look_at = 0;
  for (size_t at = o.text.find("\nLook at: "); at != std::string::npos;
       at = o.text.find("\nLook at: ", at + 1))
    ++look_at;
  EXPECT_GE(look_at, 3u) << o.text;
  EXPECT_NE(o.text.find("tidepool=> EXPLAIN (ANALYZE, BUFFERS)"), std::string::npos);
}

TEST(Labs, EveryLabHasQuestionsAndCodeThatExists) {
  ASSERT_GE(lab_defs().size(), 6u);
  for (const LabDef& d : lab_defs()) {
    EXPECT_GE(d.questions.size(), 2u) << d.name;
    EXPECT_LE(d.questions.size(), 4u) << d.name;
    EXPECT_GE(d.code.size(), 2u) << d.name;
    for (const CodeRef& c : d.code)
      EXPECT_TRUE(std::filesystem::exists(tp::testing::source_dir() + "/" + c.path))
          << d.name << ": " << c.path;
  }
}

TEST(Labs, UnknownNameIsAClearErrorListingTheLabs) {
  std::ostringstream out, err;
  EXPECT_EQ(run_lab_command({"no-such-lab"}, out, err), 2);
  EXPECT_NE(err.str().find("unknown lab \"no-such-lab\""), std::string::npos) << err.str();
  for (const LabDef& d : lab_defs()) EXPECT_NE(err.str().find(d.name), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

TEST(Labs, ListHelpAndBadOptions) {
  std::ostringstream out, err;
  EXPECT_EQ(run_lab_command({"list"}, out, err), 0);
  for (const LabDef& d : lab_defs()) EXPECT_NE(out.str().find(d.name), std::string::npos);
  std::ostringstream help, err2;
  EXPECT_EQ(run_lab_command({"--help"}, help, err2), 0);
  EXPECT_NE(help.str().find("Usage: tidepool lab NAME"), std::string::npos);
  std::ostringstream out3, err3;
  EXPECT_EQ(run_lab_command({"page-life", "--rows", "10"}, out3, err3), 2);
  EXPECT_NE(err3.str().find("--rows"), std::string::npos) << err3.str();
  std::ostringstream out4, err4;
  EXPECT_EQ(run_lab_command({"page-life", "--bogus"}, out4, err4), 2);
  EXPECT_NE(err4.str().find("unknown option \"--bogus\""), std::string::npos);
}

// One GET of `path` on 127.0.0.1:port, the whole response; "" when nothing answers.
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string got;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size())) {
      char buf[65536];
      for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, size_t(n));
    }
  }
  ::close(fd);
  return got;
}

// A port nobody listens on now (the kernel's pick, let go).
int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(Labs, HttpServesTheLivePageOfTheLabWhileItRuns) {
  std::ostringstream out1, err1;
  EXPECT_EQ(run_lab_command({"page-life", "--pause", "2"}, out1, err1), 2);
  EXPECT_NE(err1.str().find("--pause needs --http"), std::string::npos) << err1.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(run_lab_command({"page-life", "--http", "70000"}, out2, err2), 2);
  EXPECT_NE(err2.str().find("invalid value for --http"), std::string::npos) << err2.str();

  TempDir dir;
  LabArgs args;
  args.rows = kRows;
  args.out_dir = dir.path() + "/out";
  args.data_dir = dir.path() + "/data";
  args.http_port = unused_port();
  args.pause_ms = 300;  // each step waits: the page is up meanwhile
  std::ostringstream out;
  std::thread lab([&] { run_lab(lab_defs()[0], args, out); });
  std::string snapshot;
  for (int i = 0; i < 300 && snapshot.find("\"pool\"") == std::string::npos; ++i) {
    snapshot = http_get(args.http_port, "/snapshot.json");
    if (snapshot.find("\"pool\"") == std::string::npos)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  lab.join();
  EXPECT_NE(snapshot.find("HTTP/1.1 200"), std::string::npos) << snapshot.substr(0, 200);
  EXPECT_NE(snapshot.find("\"pool\""), std::string::npos);
  EXPECT_NE(out.str().find(
                "Watch it live: open http://127.0.0.1:" + std::to_string(args.http_port) + "/"),
            std::string::npos)
      << out.str().substr(0, 400);
  expect_frame({out.str(), args.out_dir}, "page-life");
  EXPECT_EQ(http_get(args.http_port, "/"), "");  // stopped with the lab
}

TEST(Labs, PageLifeShowsMissesHitsUsageCountsEvictionAndTheRing) {
  TempDir dir;
  Output o = run_named("page-life", dir);
  expect_frame(o, "page-life");
  const std::vector<double> pages = all_numbers(o.text, "pl_t has (\\d+) pages");
  ASSERT_EQ(pages.size(), 1u) << o.text;
  const int p = int(pages[0]);
  EXPECT_EQ(p, 45);  // 10,000 rows at 226 a page
  const std::string n = std::to_string(p);
  EXPECT_NE(step_text(o.text, 3).find("shared read=" + n + "\n"), std::string::npos) << o.text;
  EXPECT_NE(step_text(o.text, 3).find("buffers of pl_t: " + n + "; by usagecount: 1: " + n),
            std::string::npos);
  EXPECT_NE(step_text(o.text, 4).find("shared hit=" + n + "\n"), std::string::npos);
  EXPECT_NE(step_text(o.text, 4).find("by usagecount: 2: " + n), std::string::npos);
  EXPECT_NE(step_text(o.text, 5).find("by usagecount: 5: " + n), std::string::npos);
  // The clock sweep: a 16-buffer pool, the index scan rereads evicted pages.
  const std::string sweep = step_text(o.text, 6);
  std::vector<double> reads = all_numbers(sweep, "shared hit=\\d+ read=(\\d+)");
  ASSERT_FALSE(reads.empty()) << sweep;
  EXPECT_GT(reads[0], 3 * p) << sweep;
  std::vector<double> held = all_numbers(sweep, "buffers of pl_t: (\\d+)");
  ASSERT_EQ(held.size(), 1u);
  EXPECT_LE(held[0], 16);
  // The ring: pl_t's scan holds at most an eighth of the 90-buffer pool, pl_hot stays.
  const std::string ring = step_text(o.text, 7);
  held = all_numbers(ring, "buffers of pl_t: (\\d+)");
  ASSERT_EQ(held.size(), 1u) << ring;
  EXPECT_LE(held[0], 2 * p / 8);
  std::vector<double> hot = all_numbers(ring, "buffers of pl_hot: (\\d+)");
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0], hot[1]);
  EXPECT_NE(ring.rfind("shared hit=" + std::to_string(int(hot[0])) + "\n"), std::string::npos)
      << ring;
}

TEST(Labs, FillfactorTenReadsAboutAPagePerRow) {
  TempDir dir;
  Output o = run_named("fillfactor", dir);
  expect_frame(o, "fillfactor");
  std::vector<double> sizes = all_numbers(o.text, "\n\\s+(\\d+)\n\\(1 row\\)");
  ASSERT_GE(sizes.size(), 2u) << o.text;
  EXPECT_EQ(sizes[0], 45 * 8192.0);   // 226 rows a page
  EXPECT_EQ(sizes[1], 455 * 8192.0);  // 22 rows a page
  std::vector<double> reads = all_numbers(o.text, "shared read=(\\d+) for 5000 rows");
  ASSERT_EQ(reads.size(), 2u) << o.text;
  EXPECT_LE(reads[0], 45 + 30);  // each ff_100 page about once, plus the index's pages
  EXPECT_GE(reads[1], kRows / 22);
  EXPECT_GE(reads[1], 0.5 * 5000) << "fillfactor 10 should read most rows' pages";
}

TEST(Labs, ReadStreamsCombineReadsAndWriteATrace) {
  TempDir dir;
  Output o = run_named("read-streams", dir);
  expect_frame(o, "read-streams");
  const std::string one = step_text(o.text, 2), sixteen = step_text(o.text, 3);
  EXPECT_NE(one.find("avg size=8.0 kB"), std::string::npos) << one;
  std::vector<double> ios = all_numbers(one, "I/Os=(\\d+)");
  ASSERT_FALSE(ios.empty());
  EXPECT_GE(ios[0], 455);
  std::vector<double> avg = all_numbers(one, "\\|\\s+(\\d+\\.\\d)\\s*\n");
  ASSERT_FALSE(avg.empty()) << one;
  for (double a : avg) EXPECT_EQ(a, 8.0) << one;
  std::vector<double> big = all_numbers(sixteen, "avg size=(\\d+\\.\\d) kB");
  ASSERT_FALSE(big.empty()) << sixteen;
  EXPECT_GT(big[0], 64.0) << sixteen;
  const std::string trace = o.out_dir + "/read-streams.json";
  ASSERT_TRUE(std::filesystem::exists(trace));
  std::ifstream in(trace);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GT(j.at("otherData").at("ios").get<int>(), 0);
  EXPECT_NE(o.text.find("tidepool trace summary " + trace), std::string::npos);
  // The summary, inline: the combined reads and the seq scan stream's distance.
  const std::string traced = step_text(o.text, 4);
  EXPECT_NE(traced.find("I/Os by size and method"), std::string::npos) << traced;
  EXPECT_NE(traced.find("128 kB"), std::string::npos) << traced;
  EXPECT_NE(traced.find("look-ahead distance, seq scan"), std::string::npos) << traced;
  EXPECT_NE(traced.find("Picture: " + o.out_dir + "/read-streams.png"), std::string::npos)
      << traced;
  EXPECT_TRUE(std::filesystem::exists(o.out_dir + "/read-streams.png"));
}

TEST(Labs, EicRaisesTheReadsInFlight) {
  TempDir dir;
  Output o = run_named("eic", dir);
  expect_frame(o, "eic");
  std::vector<double> in_flight = all_numbers(o.text, "Look at: .*in flight max=(\\d+) of");
  ASSERT_EQ(in_flight.size(), 3u) << o.text;
  EXPECT_LE(in_flight[0], 1);
  EXPECT_GE(in_flight[2], 2);
  EXPECT_GE(in_flight[2], in_flight[1]);
  EXPECT_NE(o.text.find("   eic | Execution Time ms"), std::string::npos);
}

TEST(Labs, IoMethodsTraceWhichThreadRanTheSystemCalls) {
  TempDir dir;
  Output o = run_named("io-methods", dir);
  expect_frame(o, "io-methods");
  for (const char* m : {"sync", "worker"})
    EXPECT_TRUE(std::filesystem::exists(o.out_dir + "/io-methods-" + m + ".json")) << m;
  std::vector<std::pair<std::string, int>> sync =
      trace_syscalls_by_thread(o.out_dir + "/io-methods-sync.json");
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0].first, "query");
  for (const auto& [thread, n] : trace_syscalls_by_thread(o.out_dir + "/io-methods-worker.json"))
    EXPECT_NE(thread, "query") << n;
  const bool uring = std::filesystem::exists(o.out_dir + "/io-methods-io_uring.json");
  EXPECT_EQ(uring, o.text.find("io_method = io_uring is not available") == std::string::npos);
  if (uring) {
    EXPECT_NE(o.text.find("none (the kernel ran them)"), std::string::npos) << o.text;
  }
  EXPECT_TRUE(std::filesystem::exists(o.out_dir + "/io-methods.png")) << o.text;
}

TEST(Labs, PrefetchLimitShowsStreamsAndWastedReads) {
  TempDir dir;
  Output o = run_named("prefetch-limit", dir);
  expect_frame(o, "prefetch-limit");
  EXPECT_EQ(step_text(o.text, 2).find("Prefetch:"), std::string::npos);  // off: no stream
  EXPECT_NE(step_text(o.text, 3).find("Prefetch:"), std::string::npos);  // on
  // The summary's rows: query, setting, ms, shared read, I/Os, wasted ("-" without a stream).
  std::regex row(
      "  (whole index|LIMIT 10|LIMIT 100)\\s+(off|on|immediate)\\s+[0-9.]+\\s+(\\d+)\\s+(\\d+|-)"
      "\\s+(\\d+|-)\n");
  struct Cells {
    double read = 0, ios = -1, wasted = -1;
  };
  std::map<std::string, Cells> got;
  const std::string text = o.text;
  auto cell = [](const std::string& s) { return s == "-" ? -1.0 : std::stod(s); };
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator();
       ++it)
    got[(*it)[1].str() + "/" + (*it)[2].str()] = {std::stod((*it)[3]), cell((*it)[4]),
                                                  cell((*it)[5])};
  ASSERT_EQ(got.size(), 8u) << o.text;
  EXPECT_GE(got["whole index/off"].read, kRows / 22);
  EXPECT_EQ(got["whole index/off"].ios, -1);  // no stream, no Prefetch line
  EXPECT_GE(got["whole index/on"].ios, kRows / 22 * 0.9);
  EXPECT_LE(got["LIMIT 10/off"].read, 20);
  EXPECT_GT(got["LIMIT 10/immediate"].ios, got["LIMIT 10/off"].read);
  EXPECT_GT(got["LIMIT 10/immediate"].wasted, 0);
}

// Makes io_uring_setup fail with ENOSYS in this process, as on a kernel without io_uring.
void forbid_io_uring() {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
    _exit(3);
}

// Without io_uring both labs that use it say so and finish (in a child process: the
// filter cannot be lifted).
TEST(Labs, WithoutIoUringTheLabsSaySoAndGoOn) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  auto run_without_uring = [&](const std::string& name) {
    forbid_io_uring();
    LabArgs args;
    args.rows = 2000;
    args.out_dir = dir.path() + "/out-" + name;
    args.data_dir = dir.path() + "/data-" + name;
    std::ostringstream out;
    for (const LabDef& d : lab_defs())
      if (d.name == name) run_lab(d, args, out);
    std::cerr << out.str();
    _exit(out.str().find("\nQuestions\n") != std::string::npos ? 0 : 1);
  };
  EXPECT_EXIT(run_without_uring("io-methods"), ::testing::ExitedWithCode(0),
              "io_method = io_uring is not available on this machine: .*could not set up "
              "io_uring");
  EXPECT_EXIT(run_without_uring("eic"), ::testing::ExitedWithCode(0),
              "io_uring is not available here .*the lab goes on with io_method = worker");
}

}  // namespace
}  // namespace tp::labs
