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

std::string address_text(const sockaddr* sa) {
  char host[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, host, sizeof host);
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, host, sizeof host);
  return host;
}

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family == AF_INET6)
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  return false;
}

// An address that cannot be listened on, with the errno that said why.
class ListenError : public Error {
 public:
  ListenError(std::string message, int err, std::string hint = {})
      : Error(std::move(message), "", std::move(hint)), err_(err) {}
  int err() const { return err_; }

 private:
  int err_;
};

// ::1 cannot even be named or bound on a machine without IPv6: nothing to warn about.
bool machine_lacks_ipv6(const Error& e) {
  const auto* l = dynamic_cast<const ListenError*>(&e);
  return l != nullptr && (l->err() == EAFNOSUPPORT || l->err() == EADDRNOTAVAIL);
}

}  // namespace

Server::Server(std::shared_ptr<Database> db, ServerOptions options)
    : db_(std::move(db)), options_(std::move(options)) {
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw Error(std::string("could not create the stop pipe: ") + std::strerror(errno));
  port_ = options_.port;
  std::random_device random;
  for (int i = 0; i < 8; ++i) mock_secret_ += std::to_string(random());
  try {
    if (options_.listen.empty()) {
      listen_on("127.0.0.1");
      try {
        listen_on("::1");
      } catch (const Error& e) {
        // IPv4 alone: said, unless the machine has no IPv6 at all
        if (!machine_lacks_ipv6(e))
          warnings_.push_back(std::string(e.what()) + "; serving IPv4 only");
      }
    } else {
      for (const std::string& a : options_.listen) listen_on(a);
    }

  } catch (...) {
    for (int fd : listen_fds_) ::close(fd);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    throw;
  }
}

Server::~Server() {
  stop();
  shut_down_connections();
  for (int fd : listen_fds_) ::close(fd);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

void Server::listen_on(const std::string& address) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  std::string host = address == "*" ? "0.0.0.0" : address;
  std::string port = std::to_string(port_);
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw ListenError("could not resolve listen address \"" + address + "\": " + gai_strerror(rc),
                      EADDRNOTAVAIL);
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, &freeaddrinfo);
  const addrinfo* ai = found;
  // Checked before the socket exists: not one connection may reach a server without
  // passwords from beyond this machine.
  if (!is_loopback(ai->ai_addr) && !options_.passwords)
    throw Error("refusing to listen beyond loopback without passwords", "",
                "Give --password-file FILE (write it with tidepool passwd FILE USER), or "
                "listen on 127.0.0.1 / ::1 only.");
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0)
    throw ListenError("could not create socket for \"" + address + "\": " + strerror(errno), errno);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ai->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    int err = errno;
    ::close(fd);
    throw ListenError(
        "could not listen on " + address + " port " + port + ": " + std::strerror(err), err,
        err == EADDRINUSE ? "Is another server running on that port? Use --port." : "");
  }
  sockaddr_storage bound = {};
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const auto* sa = reinterpret_cast<const sockaddr*>(&bound);
  port_ = ntohs(sa->sa_family == AF_INET ? reinterpret_cast<const sockaddr_in*>(sa)->sin_port
                                         : reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
  loopback_only_ = loopback_only_ && is_loopback(sa);
  std::string text = address_text(sa);
  addresses_.push_back(sa->sa_family == AF_INET6 ? "[" + text + "]" : text);
  listen_fds_.push_back(fd);
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
