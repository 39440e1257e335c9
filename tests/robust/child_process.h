// Starting the built `tidepool` binary (tests/support/paths.h) from a
// test, signalling it and collecting how it ended.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/paths.h"

extern char** environ;

namespace tp::testing {

class ChildProcess {
 public:
  // Starts `tidepool ARGS...` with stdout and stderr going to files under `dir`.
  ChildProcess(const std::vector<std::string>& args, const std::string& dir)
      : out_path_(dir + "/child.out"), err_path_(dir + "/child.err") {
    std::vector<std::string> argv_strings{tidepool_binary()};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0) << "could not start " << argv_strings[0];
    if (rc != 0) pid_ = -1;
  }
  ~ChildProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }

  pid_t pid() const { return pid_; }
  void signal(int sig) {
    if (pid_ > 0 && !exited_) ::kill(pid_, sig);
  }
  // True once the process has ended (reaps it).
  bool poll_exit() {
    if (exited_ || pid_ <= 0) return true;
    if (waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
    return exited_;
  }
  // Waits until it ends, or `limit` passes (then returns false).
  bool wait_for(std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (!poll_exit()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }
  void wait() {
    if (pid_ > 0 && !exited_ && waitpid(pid_, &status_, 0) == pid_) exited_ = true;
  }
  int status() const { return status_; }
  std::string stderr_text() const { return slurp(err_path_); }
  std::string stdout_text() const { return slurp(out_path_); }
  // "exit 1", "killed by signal 2": for failure messages.
  std::string describe() const {
    if (WIFEXITED(status_)) return "exit " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_)) return "killed by signal " + std::to_string(WTERMSIG(status_));
    return "status " + std::to_string(status_);
  }

 private:
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string out_path_, err_path_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

// Polls `ready` every millisecond for up to `limit`. Returns whether it held.
inline bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return true;
}

}  // namespace tp::testing
