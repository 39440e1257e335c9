// `tidepool serve --http PORT`: the live view's HTTP server. It serves one page (the
// pool as a grid, the I/Os in flight, the sessions; page.html, built into the binary)
// and what the page reads:
//
//   GET /                 the page
//   GET /events?hz=N      server-sent events, one snapshot (LiveView) each, N a second
//                         (1..20, default --http-rate), until the client goes
//   GET /snapshot.json    one snapshot
//   GET /cell?i=N         pg_buffercache's rows of cell N's buffers (a click on a cell)
//
// Nothing else: no file is ever read for a request, so no path reaches one; anything
// else is 404, a method other than GET or HEAD 405, a request line it cannot read 400.
// It listens where the protocol port does (loopback unless --listen says more).
// Bounded: max_clients connections at once (beyond: 503), a request head of 8 kB
// arriving within request_timeout_ms, a client that stops reading dropped after
// send_timeout_ms. Each client has its own thread; none touches a session's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/session/database.h"
#include "tools/live/live_view.h"

namespace tp::live {

struct LiveServerOptions {
  std::vector<std::string> listen;  // empty: 127.0.0.1 and ::1
  int port = 0;                     // 0: a free port (tests)
  int hz = 4;                       // snapshots a second when the page does not say
  int max_clients = 8;
  int request_timeout_ms = 5000;
  int send_timeout_ms = 5000;
  LiveLimits limits;
};

class LiveServer {
 public:
  // Binds and listens (throws tp::Error when it cannot); serves once start()ed.
  LiveServer(std::shared_ptr<Database> db, LiveServerOptions options);
  ~LiveServer();  // stop(), then waits for every client thread
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  void start();
  void stop();

  int port() const { return port_; }
  // "http://127.0.0.1:8080/" for each address.
  std::vector<std::string> urls() const;
  bool loopback_only() const { return loopback_only_; }

 private:
  void accept_loop();
  void serve_client(int fd);
  void stream_events(int fd, int hz);
  // Waits up to `ms` for stop(); true when stopping.
  bool wait_for_stop(int ms);

  std::shared_ptr<Database> db_;
  LiveServerOptions options_;
  std::vector<int> listen_fds_;
  std::vector<std::string> addresses_;
  int port_ = 0;
  bool loopback_only_ = true;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::condition_variable clients_done_;
  int clients_ = 0;  // client threads running (detached; stop() waits for none left)
};

// The page (page.html), built in.
extern const char* const kLivePage;

}  // namespace tp::live
