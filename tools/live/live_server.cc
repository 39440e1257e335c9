#include "tools/live/live_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/core/error.h"
#include "tools/live/http.h"
#include "tools/server/listen.h"

namespace tp::live {

namespace {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // gone, or stopped reading for send_timeout_ms
    data.remove_prefix(size_t(n));
  }
  return true;
}

// A number in [lo, hi], or `fallback` when `text` is not one.
int bounded_int(const std::string& text, int lo, int hi, int fallback) {
  if (text.empty() || text.size() > 9) return fallback;
  for (char c : text)
    if (c < '0' || c > '9') return fallback;
  return std::clamp(std::stoi(text), lo, hi);
}

}  // namespace

LiveServer::LiveServer(std::shared_ptr<Database> db, LiveServerOptions options)
    : db_(std::move(db)), options_(std::move(options)) {
  server::Listeners l =
      server::open_listeners(options_.listen, options_.port, [](const sockaddr*) {});
  listen_fds_ = std::move(l.fds);
  addresses_ = std::move(l.addresses);
  port_ = l.port;
  loopback_only_ = l.loopback_only;
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    for (int fd : listen_fds_) ::close(fd);
    throw Error(std::string("could not create the stop pipe: ") + std::strerror(errno));
  }
}

LiveServer::~LiveServer() {
  stop();
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::unique_lock lock(mutex_);
    clients_done_.wait(lock, [&] { return clients_ == 0; });
  }
  for (int fd : listen_fds_) ::close(fd);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

std::vector<std::string> LiveServer::urls() const {
  std::vector<std::string> out;
  for (const std::string& a : addresses_)
    out.push_back("http://" + a + ":" + std::to_string(port_) + "/");
  return out;
}

void LiveServer::start() {
  acceptor_ = std::thread([this] { accept_loop(); });
}

void LiveServer::stop() {
  stopping_.store(true, std::memory_order_release);
  char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(stop_pipe_[1], &byte, 1);  // never drained
}

bool LiveServer::wait_for_stop(int ms) {
  pollfd p{stop_pipe_[0], POLLIN, 0};
  ::poll(&p, 1, ms);
  return stopping_.load(std::memory_order_acquire);
}

void LiveServer::accept_loop() {
  std::vector<pollfd> fds;
  fds.push_back({stop_pipe_[0], POLLIN, 0});
  for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
  while (!stopping_.load(std::memory_order_acquire)) {
    for (pollfd& p : fds) p.revents = 0;
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const int fd = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      timeval tv{options_.send_timeout_ms / 1000, (options_.send_timeout_ms % 1000) * 1000};
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      {
        std::lock_guard lock(mutex_);
        if (clients_ >= options_.max_clients) {
          send_all(fd, http_response(503, "text/plain", "too many live views open\n"));
          ::close(fd);
          continue;
        }
        ++clients_;
      }
      std::thread([this, fd] {
        serve_client(fd);
        ::close(fd);
        std::lock_guard lock(mutex_);
        --clients_;
        clients_done_.notify_all();
      }).detach();
    }
  }
}

void LiveServer::serve_client(int fd) {
  std::string head;
  HttpRequest req;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.request_timeout_ms);
  ParseStatus status = ParseStatus::kIncomplete;
  while (status == ParseStatus::kIncomplete) {
    const int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now())
                             .count());
    if (left <= 0) return;
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(p, 2, left) <= 0 || stopping_.load(std::memory_order_acquire)) return;
    char buf[2048];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    head.append(buf, size_t(n));
    status = parse_request(head, req);
  }
  if (status == ParseStatus::kBad) {
    send_all(fd, http_response(400, "text/plain", "bad request\n"));
    return;
  }
  if (status == ParseStatus::kTooLarge) {
    send_all(fd, http_response(431, "text/plain", "request head too large\n"));
    return;
  }
  const bool head_only = req.method == "HEAD";
  if (req.method != "GET" && !head_only) {
    send_all(fd, http_response(405, "text/plain", "only GET\n"));
    return;
  }
  if (req.path == "/" || req.path == "/index.html") {
    send_all(fd, http_response(200, "text/html; charset=utf-8", kLivePage, head_only));
  } else if (req.path == "/snapshot.json") {
    LiveView view(*db_, options_.limits);
    std::string json = view.next_json();
    send_all(fd, json.empty() ? http_response(503, "text/plain", "database busy\n")
                              : http_response(200, "application/json", json, head_only));
  } else if (req.path == "/cell") {
    LiveView view(*db_, options_.limits);
    const int cell = bounded_int(query_param(req.query, "i"), 0, 1 << 30, -1);
    send_all(fd, http_response(200, "application/json", view.cell_json(cell), head_only));
  } else if (req.path == "/events" && !head_only) {
    stream_events(fd, bounded_int(query_param(req.query, "hz"), 1, 20, options_.hz));
  } else {
    send_all(fd, http_response(404, "text/plain", "not found\n", head_only));
  }
}

void LiveServer::stream_events(int fd, int hz) {
  if (!send_all(fd, event_stream_head())) return;
  LiveView view(*db_, options_.limits);
  const int period_ms = 1000 / hz;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    const std::string json = view.next_json();
    // A busy database (a SET rebuilding the pool): a comment keeps the stream open.
    if (!send_all(fd, json.empty() ? std::string(": busy\n\n") : event(json))) return;
    // A client that closed its side: poll says readable with nothing to read.
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) {
      char buf[256];
      if (::recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0) return;
    }
    const int spent = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count());
    if (wait_for_stop(std::max(1, period_ms - spent))) return;
  }
}

}  // namespace tp::live
