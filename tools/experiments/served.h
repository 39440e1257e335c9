// A data directory served by `tidepool serve` in a child process, and pgbench run
// against it: how an experiment measures what a client sees through the wire protocol
// (the `limit` experiment's pgbench part). The server listens on 127.0.0.1 only, on a
// port the kernel picked, and is stopped (SIGTERM, then waited for) when the object goes.
//
//   ServedDataDir server("", data_dir, {"index_prefetch=on", "io_direct=on"}, log);
//   double tps = pgbench_tps(server.port(), script, 200);  // -M prepared, one client
#pragma once

#include <string>
#include <vector>

namespace tp::experiments {

class ServedDataDir {
 public:
  // Starts `binary serve` (tidepool_executable's answer) with `--set` for each
  // setting; throws tp::Error naming the log when it does not accept connections
  // within 30 s.
  ServedDataDir(const std::string& binary, const std::string& data_dir,
                const std::vector<std::string>& settings, const std::string& log_path);
  ~ServedDataDir();
  ServedDataDir(const ServedDataDir&) = delete;
  ServedDataDir& operator=(const ServedDataDir&) = delete;
  int port() const { return port_; }

 private:
  int pid_ = -1;
  int port_ = 0;
};

// Whether a pgbench is on the PATH.
bool pgbench_available();
// The tidepool executable to serve with: `configured` if given, else this process's own
// when it is a `tidepool` (a test binary is not); empty when there is none.
std::string tidepool_executable(const std::string& configured);
// `pgbench -n -M prepared -c 1 -t transactions -f script` against the server: its tps
// (without the initial connection time). Throws tp::Error with pgbench's output when it
// fails or prints no tps.
double pgbench_tps(int port, const std::string& script_path, int transactions);

}  // namespace tp::experiments
