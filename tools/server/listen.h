// The listening sockets of `tidepool serve`'s ports: the protocol's (server.h) and the
// live view's (tools/live/live_server.h), bound the same way.
#pragma once

#include <sys/socket.h>

#include <functional>
#include <string>
#include <vector>

namespace tp::server {

struct Listeners {
  std::vector<int> fds;
  std::vector<std::string> addresses;  // "127.0.0.1", "[::1]"
  int port = 0;
  bool loopback_only = true;
  // Addresses asked for by default that could not be used (::1 taken).
  std::vector<std::string> warnings;

  void close_all();
};

// Listens on each of `addresses` at `port` (0: a free port, the first socket's for the
// rest); empty: loopback, 127.0.0.1 and ::1 when the machine has it ("*" is every IPv4
// address). `check` sees each resolved address before its socket exists and throws
// tp::Error to refuse it. Throws tp::Error, with every socket closed, when an address
// cannot be used.
Listeners open_listeners(const std::vector<std::string>& addresses, int port,
                         const std::function<void(const sockaddr*)>& check);

bool is_loopback(const sockaddr* sa);
// The address's numeric text ("127.0.0.1", "::1").
std::string address_text(const sockaddr* sa);

}  // namespace tp::server
