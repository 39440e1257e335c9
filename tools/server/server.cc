#include "tools/server/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <system_error>

#include "engine/core/error.h"
#include "tools/server/connection.h"
#include "tools/server/listen.h"

namespace tp::server {
namespace {

// Connection threads beyond max_connections that may be reading a startup
// packet (to answer "too many clients" or a CancelRequest): at least 64, so a
// burst of twice max_connections clients all hear why they are refused; more
// are closed at once.
size_t extra_threads(int max_connections) {
  return std::max<size_t>(64, size_t(max_connections));
}

// How often the accept loop looks at the sockets of running statements for a
// client that hung up.
constexpr int kWatchIntervalMs = 200;

}  // namespace

Server::Server(std::shared_ptr<Database> db, ServerOptions options)
    : db_(std::move(db)), options_(std::move(options)) {
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw Error(std::string("could not create the stop pipe: ") + std::strerror(errno));
  port_ = options_.port;
  std::random_device random;
  for (int i = 0; i < 8; ++i) mock_secret_ += std::to_string(random());
  Listeners l;
  try {
    // Checked before a socket exists: not one connection may reach a server without
    // passwords from beyond this machine.
    l = open_listeners(options_.listen, options_.port, [&](const sockaddr* sa) {
      if (!is_loopback(sa) && !options_.passwords)
        throw Error("refusing to listen beyond loopback without passwords", "",
                    "Give --password-file FILE (write it with tidepool passwd FILE USER), or "
                    "listen on 127.0.0.1 / ::1 only.");
    });
  } catch (...) {
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    throw;
  }
  listen_fds_ = std::move(l.fds);
  addresses_ = std::move(l.addresses);
  port_ = l.port;
  loopback_only_ = l.loopback_only;
  warnings_ = std::move(l.warnings);
}

Server::~Server() {
  stop();
  shut_down_connections();
  for (int fd : listen_fds_) ::close(fd);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

std::vector<std::string> Server::addresses() const {
  std::vector<std::string> out;
  for (const std::string& a : addresses_) out.push_back(a + ":" + std::to_string(port_));
  return out;
}

void Server::stop() {
  stopping_.store(true, std::memory_order_release);
  char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(stop_pipe_[1], &byte, 1);  // never drained
}

size_t Server::connection_count() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& c : connections_) n += c->done ? 0 : 1;
  return n;
}

bool Server::claim_backend(ConnectionSlot& slot) {
  std::lock_guard lock(mutex_);
  if (backends_ >= options_.max_connections) return false;
  ++backends_;
  slot.holds_backend = true;
  return true;
}

void Server::release_backend(ConnectionSlot& slot) {
  std::lock_guard lock(mutex_);
  if (slot.holds_backend) --backends_;
  slot.holds_backend = false;
}

void Server::publish_backend_key(ConnectionSlot& slot, int pid, int32_t secret) {
  std::lock_guard lock(mutex_);
  slot.secret = secret;
  slot.pid = pid;
}

void Server::cancel_request(int pid, int32_t secret) {
  std::lock_guard lock(mutex_);
  for (const auto& c : connections_)
    if (!c->done && c->pid == pid && c->secret == secret) db_->sessions().cancel(pid);
}

void Server::run() {
  std::vector<pollfd> fds;
  std::vector<ConnectionSlot*> busy;
  for (;;) {
    fds.clear();
    busy.clear();
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
    {
      std::lock_guard lock(mutex_);
      for (const auto& c : connections_)
        if (c->busy && !c->done) {
          busy.push_back(c.get());
          fds.push_back({c->fd, POLLRDHUP, 0});
        }
    }
    int r = ::poll(fds.data(), fds.size(), kWatchIntervalMs);
    if (r < 0 && errno != EINTR) throw Error(std::string("poll failed: ") + strerror(errno));
    if (stopping()) break;
    for (size_t i = 0; r > 0 && i < listen_fds_.size(); ++i)
      if (fds[1 + i].revents & POLLIN) accept_one(listen_fds_[i]);
    std::vector<short> revents;
    for (size_t i = 1 + listen_fds_.size(); i < fds.size(); ++i) revents.push_back(fds[i].revents);
    cancel_hung_up(busy, revents);
    reap_finished();
  }
  shut_down_connections();
}

void Server::accept_one(int listen_fd) {
  sockaddr_storage peer = {};
  socklen_t len = sizeof peer;
  int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
  if (fd < 0) return;  // the client went away already, or out of descriptors: try later
  std::lock_guard lock(mutex_);
  if (connections_.size() >=
      size_t(options_.max_connections) + extra_threads(options_.max_connections)) {
    ::close(fd);
    return;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  auto slot = std::make_unique<ConnectionSlot>();
  slot->fd = fd;
  slot->client_addr = address_text(reinterpret_cast<sockaddr*>(&peer));
  ConnectionSlot* s = slot.get();
  try {
    s->thread = std::thread([this, s] { run_connection(*this, *s); });
  } catch (const std::system_error&) {
    ::close(fd);  // no thread to be had: this client is refused, the server goes on
    return;
  }
  connections_.push_back(std::move(slot));
}

// A client that hangs up while its statement runs would otherwise keep the
// statement (and its locks) going to the end: cancel it, as PostgreSQL's
// client_connection_check_interval does.
void Server::cancel_hung_up(const std::vector<ConnectionSlot*>& busy,
                            const std::vector<short>& revents) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < busy.size(); ++i)
    if ((revents[i] & (POLLRDHUP | POLLHUP | POLLERR)) && busy[i]->busy && busy[i]->pid != 0)
      db_->sessions().cancel(busy[i]->pid);
}

void Server::reap_finished() {
  std::list<std::unique_ptr<ConnectionSlot>> finished;
  {
    std::lock_guard lock(mutex_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      auto next = std::next(it);
      if ((*it)->done) finished.splice(finished.end(), connections_, it);
      it = next;
    }
  }
  for (auto& c : finished) {
    c->thread.join();
    ::close(c->fd);
  }
}

void Server::shut_down_connections() {
  for (int fd : listen_fds_) ::close(fd);
  listen_fds_.clear();
  // A statement that starts just after a cancel would not see it: cancel
  // again until every connection thread has ended.
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      bool all_done = true;
      for (const auto& c : connections_) {
        if (c->done) continue;
        all_done = false;
        if (c->pid != 0) db_->sessions().cancel(c->pid);
      }
      if (all_done) break;
    }
    ::poll(nullptr, 0, 20);
  }
  reap_finished();
}

}  // namespace tp::server
