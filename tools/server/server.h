// `tidepool serve`: one Database, many clients speaking PostgreSQL's protocol.
// The Server owns the listening sockets and one thread per connection (each
// with its own Session); see README.md for the connection state machine.
//
// Threads: run() is the accept loop (it also watches the sockets of the
// connections whose statement runs, to cancel it when the client hangs up);
// each connection runs on its own thread; stop() may be called from any thread
// or a signal handler. The connection list is guarded by a mutex that no
// statement holds.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/session/database.h"
#include "tools/server/password_file.h"

namespace tp::server {

struct ServerOptions {
  // Addresses to listen on; empty: loopback (127.0.0.1, and ::1 when the
  // machine has it). Anything else only with `passwords`.
  std::vector<std::string> listen;
  // Users and their SCRAM-SHA-256 verifiers: every client logs in with a password.
  // Null: trust (every client is the user it names), allowed on loopback only.
  std::shared_ptr<const PasswordFile> passwords;
  int port = 5433;  // 0: a free port (tests; port() tells which)
  int max_connections = 32;
  // Clients may SET database-wide settings (shared_buffers, io_method...), which
  // change them for every session; off: 55P02 "cannot be changed now".
  bool allow_global_set = false;
  int startup_timeout_ms = 60000;  // startup packet and password (authentication_timeout)
};

// One client connection, as the server and its thread share it.
struct ConnectionSlot {
  int fd = -1;  // closed by the server once the thread has ended
  std::string client_addr;
  std::thread thread;
  std::atomic<bool> done{false};
  std::atomic<bool> busy{false};  // a statement runs: hang-ups cancel it
  std::atomic<int> pid{0};        // the session's pid once it exists
  int32_t secret = 0;             // BackendKeyData's key (under the server mutex)
  bool holds_backend = false;     // counts against max_connections
};

class Server {
 public:
  // Binds and listens. Throws tp::Error when an address cannot be used.
  Server(std::shared_ptr<Database> db, ServerOptions options);
  // Stops (if running, run() must have returned) and closes the sockets.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  // "127.0.0.1:5433", "[::1]:5433"
  std::vector<std::string> addresses() const;
  bool loopback_only() const { return loopback_only_; }
  // Addresses asked for by default that could not be used (::1 taken): PostgreSQL's
  // "could not bind IPv6 address" warning, printed by serve.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Accepts connections until stop(); then stops accepting, cancels every
  // running statement, tells each client FATAL 57P01 and joins every thread.
  void run();
  // Async-signal-safe: a lock-free flag and one write() to the stop pipe.
  void stop();
  // Asked for every message a session reads: the flag, not a poll of the pipe.
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  // Connection threads alive (tests).
  size_t connection_count() const;

  // For connection.cc:
  Database& database() { return *db_; }
  const std::shared_ptr<Database>& database_ptr() const { return db_; }
  int stop_fd() const { return stop_pipe_[0]; }
  int startup_timeout_ms() const { return options_.startup_timeout_ms; }
  const PasswordFile* passwords() const { return options_.passwords.get(); }
  bool allow_global_set() const { return options_.allow_global_set; }
  // Random per server: the made-up salt of an unknown user's exchange.
  const std::string& mock_secret() const { return mock_secret_; }
  // Takes one of max_connections for `slot`; false when all are taken.
  bool claim_backend(ConnectionSlot& slot);
  void release_backend(ConnectionSlot& slot);
  // Records the pid and key the client was told (BackendKeyData).
  void publish_backend_key(ConnectionSlot& slot, int pid, int32_t secret);
  // CancelRequest: cancels pid's statement if `secret` is its key.
  void cancel_request(int pid, int32_t secret);

 private:
  void accept_one(int listen_fd);
  void cancel_hung_up(const std::vector<ConnectionSlot*>& busy, const std::vector<short>& revents);
  void reap_finished();
  void shut_down_connections();

  std::shared_ptr<Database> db_;
  ServerOptions options_;
  int port_ = 0;
  bool loopback_only_ = true;
  std::vector<int> listen_fds_;
  std::vector<std::string> addresses_;
  std::vector<std::string> warnings_;
  std::string mock_secret_;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "stop() runs in a signal handler");

  mutable std::mutex mutex_;
  std::list<std::unique_ptr<ConnectionSlot>> connections_;
  int backends_ = 0;
};

}  // namespace tp::server
