#include "tools/server/listen.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "engine/core/error.h"

namespace tp::server {
namespace {

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

void listen_on(Listeners& l, const std::string& address,
               const std::function<void(const sockaddr*)>& check) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  std::string host = address == "*" ? "0.0.0.0" : address;
  std::string port = std::to_string(l.port);
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw ListenError("could not resolve listen address \"" + address + "\": " + gai_strerror(rc),
                      EADDRNOTAVAIL);
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, &freeaddrinfo);
  const addrinfo* ai = found;
  check(ai->ai_addr);  // before the socket exists
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
  l.port = ntohs(sa->sa_family == AF_INET ? reinterpret_cast<const sockaddr_in*>(sa)->sin_port
                                          : reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
  l.loopback_only = l.loopback_only && is_loopback(sa);
  std::string text = address_text(sa);
  l.addresses.push_back(sa->sa_family == AF_INET6 ? "[" + text + "]" : text);
  l.fds.push_back(fd);
}

}  // namespace

void Listeners::close_all() {
  for (int fd : fds) ::close(fd);
  fds.clear();
}

Listeners open_listeners(const std::vector<std::string>& addresses, int port,
                         const std::function<void(const sockaddr*)>& check) {
  Listeners l;
  l.port = port;
  try {
    if (addresses.empty()) {
      listen_on(l, "127.0.0.1", check);
      try {
        listen_on(l, "::1", check);
      } catch (const Error& e) {
        // IPv4 alone: said, unless the machine has no IPv6 at all
        if (!machine_lacks_ipv6(e))
          l.warnings.push_back(std::string(e.what()) + "; serving IPv4 only");
      }
    } else {
      for (const std::string& a : addresses) listen_on(l, a, check);
    }
  } catch (...) {
    l.close_all();
    throw;
  }
  return l;
}

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

}  // namespace tp::server
