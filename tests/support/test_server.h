// A `tidepool serve` inside the test process: a Database on a temporary data
// directory and a Server on 127.0.0.1 (a free port), its accept loop on a thread;
// stopped and joined when the object goes.
#pragma once

#include <unistd.h>

#include <fstream>
#include <memory>
#include <thread>

#include "engine/session/database.h"
#include "tests/support/test_util.h"
#include "tools/server/server.h"

namespace tp::testing {

// The process's resident memory in bytes (/proc/self/statm): a TestServer shares
// the test's process, so this is the server's too.
inline size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * size_t(::sysconf(_SC_PAGESIZE));
}

class TestServer {
 public:
  // `settings`: the Database's --set values; `options`: listen and port are set here.
  explicit TestServer(server::ServerOptions options = {},
                      std::vector<std::string> settings = {"shared_buffers=2MB"}) {
    DatabaseOptions o;
    o.data_dir = dir_.data();
    o.settings = std::move(settings);
    db_ = Database::open(o);
    options.listen = {"127.0.0.1"};
    options.port = 0;
    server_ = std::make_unique<server::Server>(db_, std::move(options));
    thread_ = std::thread([this] { server_->run(); });
  }
  ~TestServer() {
    stop();
    server_.reset();
  }
  // Stops the server and waits for its accept loop (and every connection) to end.
  void stop() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  int port() const { return server_->port(); }
  server::Server& server() { return *server_; }
  Database& database() { return *db_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
};

}  // namespace tp::testing
