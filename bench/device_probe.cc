// bench/device_probe: the raw device through tidepool's aio layer alone (no buffer pool).
//
//   device_probe --dir=/path/on/the/disk [--size-mb=2048] [--seconds=3] [--repeats=1]
//                [--methods=sync,worker,io_uring] [--direct=both|on|off]
//                [--depths=1,4,16,32,64] [--io-workers=3]
//
// Measures sequential 128 kB reads at depth 16 and random 8 kB reads at each depth, per
// method, with O_DIRECT and buffered (buffered runs drop the file from the page cache
// first). Prints one self-describing line per measurement; lines starting with '#' are
// notes. The probe file (tidepool_device_probe.dat) is kept for the next run.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "aio/device_probe.h"
#include "engine/core/error.h"

namespace {

bool take(const std::string& arg, const char* name, std::string* value) {
  std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "device_probe: %s\nusage: device_probe --dir=DIR [--size-mb=2048] [--seconds=3] "
               "[--repeats=1] [--methods=sync,worker,io_uring] [--direct=both|on|off] "
               "[--depths=1,4,16,32,64] [--io-workers=3]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  tp::aio::DeviceProbeConfig config;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i], v;
      if (take(arg, "dir", &v)) {
        config.directory = v;
      } else if (take(arg, "size-mb", &v)) {
        config.file_size_mb = std::stoull(v);
      } else if (take(arg, "seconds", &v)) {
        config.seconds_per_run = std::stod(v);
      } else if (take(arg, "repeats", &v)) {
        config.repeats = std::stoi(v);
      } else if (take(arg, "io-workers", &v)) {
        config.io_workers = std::stoi(v);
      } else if (take(arg, "methods", &v)) {
        config.methods.clear();
        for (const std::string& m : split(v)) config.methods.push_back(tp::aio::parse_io_method(m));
      } else if (take(arg, "direct", &v)) {
        if (v == "both")
          config.direct_modes = {true, false};
        else if (v == "on")
          config.direct_modes = {true};
        else if (v == "off")
          config.direct_modes = {false};
        else
          usage("--direct takes both, on or off");
      } else if (take(arg, "depths", &v)) {
        config.random_depths.clear();
        for (const std::string& d : split(v)) config.random_depths.push_back(std::stoi(d));
      } else {
        usage(("unknown argument " + arg).c_str());
      }
    }
    if (config.directory.empty()) usage("--dir is required");
    for (int d : config.random_depths)
      if (d < 1 || d > tp::aio::kMaxHandlesPerThread) usage("depths must be 1..1024");
    std::printf("# device_probe: file %llu MB in %s, %.1f s per measurement\n",
                static_cast<unsigned long long>(config.file_size_mb), config.directory.c_str(),
                config.seconds_per_run);
    std::fflush(stdout);
    tp::aio::run_device_probe(
        config,
        [](const tp::aio::DeviceProbeRow& row) {
          std::printf("%s\n", tp::aio::format_device_probe_row(row).c_str());
          std::fflush(stdout);
        },
        [](const std::string& note) { std::printf("# %s\n", note.c_str()); });
  } catch (const tp::Error& e) {
    std::fprintf(stderr, "ERROR:  %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "HINT:  %s\n", e.hint().c_str());
    return 1;
  } catch (const std::exception& e) {
    usage(e.what());
  }
  return 0;
}
