#include "tools/experiments/served.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/core/error.h"
#include "tools/experiments/output.h"

namespace tp::experiments {

namespace {

// A loopback port nobody listens on now (the kernel's pick; a race with another
// process is possible but harmless: the server then fails and says so).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error("limit: no socket for a free port");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  if (port == 0) throw Error("limit: could not find a free loopback port");
  return port;
}

bool accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

ServedDataDir::ServedDataDir(const std::string& binary, const std::string& data_dir,
                             const std::vector<std::string>& settings, const std::string& log_path)
    : port_(free_port()) {
  const std::string& exe = binary;
  std::vector<std::string> args = {"tidepool", "serve",    "-D",
                                   data_dir,   "--port",   std::to_string(port_),
                                   "--listen", "127.0.0.1"};
  for (const std::string& s : settings) {
    args.push_back("--set");
    args.push_back(s);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw Error("limit: could not start tidepool serve");
  if (pid_ == 0) {
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      ::dup2(log, 1);
      ::dup2(log, 2);
    }
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!accepts(port_)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw Error("limit: tidepool serve exited; see " + log_path);
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw Error("limit: tidepool serve did not accept connections within 30 s; see " + log_path);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServedDataDir::~ServedDataDir() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

std::string tidepool_executable(const std::string& configured) {
  if (!configured.empty()) return configured;
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string self(buf, size_t(n));
  const size_t slash = self.rfind('/');
  return self.substr(slash == std::string::npos ? 0 : slash + 1) == "tidepool" ? self : "";
}

bool pgbench_available() {
  return command_output("command -v pgbench 2>/dev/null").find("pgbench") != std::string::npos;
}

double pgbench_tps(int port, const std::string& script_path, int transactions) {
  const std::string out = command_output(
      "pgbench -n -M prepared -c 1 -h 127.0.0.1 -p " + std::to_string(port) + " -t " +
      std::to_string(transactions) + " -f '" + script_path + "' tidepool 2>&1");
  const size_t at = out.find("tps = ");
  if (at == std::string::npos) throw Error("limit: pgbench printed no tps:\n" + out);
  return std::strtod(out.c_str() + at + 6, nullptr);
}

}  // namespace tp::experiments
