// libFuzzer target `protocol`: `tidepool serve`'s side of the wire protocol. One
// server (a Database in a temporary directory, a Server on 127.0.0.1) lives for the
// whole run; each input is one connection. The first byte chooses the phase: even,
// a valid startup is done first and the rest of the input is sent as the client's
// messages (Query, Parse, Sync, Terminate, lengths, garbage); odd, the rest is the
// startup itself (SSLRequest, CancelRequest, startup packets). Then the client closes
// its side and reads until the server closes, and waits until the connection's thread
// has been joined. A statement still running after 3 s is
// cancelled (CancelRequest with the session's key); a connection the server has not
// ended 5 s later is a hang and aborts the run, as does a server that no longer
// answers `SELECT 1` on a fresh connection (checked every 64 inputs), or a crash.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "engine/session/database.h"
#include "tools/server/server.h"

namespace {

struct FuzzServer {
  std::string root;
  std::shared_ptr<tp::Database> db;
  std::unique_ptr<tp::server::Server> server;
  std::thread thread;
};

FuzzServer& fuzz_server() {
  static FuzzServer* s = [] {
    auto* f = new FuzzServer;
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "tidepool-fuzz-protocol-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    f->root = tmpl;
    tp::DatabaseOptions o;
    o.data_dir = f->root + "/data";
    o.trace_dir = f->root + "/traces";
    std::filesystem::create_directory(o.trace_dir);
    o.settings = {"shared_buffers=1MB", "io_method=sync"};
    f->db = tp::Database::open(o);
    tp::server::ServerOptions so;
    so.listen = {"127.0.0.1"};
    so.port = 0;
    so.startup_timeout_ms = 2000;
    f->server = std::make_unique<tp::server::Server>(f->db, so);
    f->thread = std::thread([f] { f->server->run(); });
    std::atexit([] {
      FuzzServer& s = fuzz_server();
      s.server->stop();
      s.thread.join();
      s.server.reset();
      s.db.reset();
      std::error_code ec;
      std::filesystem::remove_all(s.root, ec);
    });
    return f;
  }();
  return *s;
}

// libFuzzer's -timeout arms a SIGALRM without SA_RESTART, and it may land on this
// thread: every blocking call here retries on EINTR (a connect so interrupted goes on
// in the background, so the socket is dropped and a fresh one tried).
int connect_to(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int attempt = 0;; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (err != EINTR || attempt == 100) {
      std::fprintf(stderr, "fuzz_protocol: cannot connect to the server: %s\n", std::strerror(err));
      std::abort();
    }
  }
}

void put_int32(std::string& s, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(char((uint32_t(v) >> shift) & 0xff));
}

int32_t get_int32(const std::string& s, size_t at) {
  auto b = [&](size_t i) { return uint32_t(uint8_t(s[at + i])); };
  return int32_t(b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3));
}

void send_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;  // the server closed already: fine
    data += k;
    n -= size_t(k);
  }
}

// Reads what the server sends until it closes or `ms` pass; false on timeout.
bool drain(int fd, int ms, std::string* got = nullptr) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0) continue;
    ssize_t k = ::recv(fd, buf, sizeof buf, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return true;
    if (got) got->append(buf, size_t(k));
  }
}

std::string startup_packet() {
  std::string body;
  put_int32(body, 196608);
  for (const char* kv : {"user", "fuzz", "application_name", "fuzz_protocol"}) {
    body += kv;
    body.push_back('\0');
  }
  body.push_back('\0');
  std::string packet;
  put_int32(packet, int32_t(body.size() + 4));
  return packet + body;
}

// Reads the startup reply up to ReadyForQuery; the session's pid and key.
bool read_startup_reply(int fd, int32_t* pid, int32_t* key) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    for (size_t at = 0; at + 5 <= got.size();) {
      int32_t len = get_int32(got, at + 1);
      if (at + 1 + size_t(len) > got.size()) break;
      if (got[at] == 'K') {
        *pid = get_int32(got, at + 5);
        *key = get_int32(got, at + 9);
      }
      if (got[at] == 'Z') return true;
      at += 1 + size_t(len);
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t k = ::recv(fd, buf, sizeof buf, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    got.append(buf, size_t(k));
  }
  return false;
}

void cancel(int port, int32_t pid, int32_t key) {
  int fd = connect_to(port);
  std::string m;
  put_int32(m, 16);
  put_int32(m, 80877102);
  put_int32(m, pid);
  put_int32(m, key);
  send_all(fd, m.data(), m.size());
  drain(fd, 5000);
  ::close(fd);
}

void check_server_answers(int port) {
  int fd = connect_to(port);
  std::string s = startup_packet();
  send_all(fd, s.data(), s.size());
  int32_t pid = 0, key = 0;
  if (!read_startup_reply(fd, &pid, &key)) {
    std::fprintf(stderr, "fuzz_protocol: the server no longer completes a startup\n");
    std::abort();
  }
  std::string q = "Q";
  put_int32(q, 4 + 9);
  q += std::string("SELECT 1") + '\0';
  send_all(fd, q.data(), q.size());
  std::string got;
  ::shutdown(fd, SHUT_WR);
  if (!drain(fd, 10000, &got) || got.find("SELECT 1") == std::string::npos) {
    std::fprintf(stderr, "fuzz_protocol: the server no longer answers SELECT 1\n");
    std::abort();
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzServer& s = fuzz_server();
  const int port = s.server->port();
  static uint64_t inputs = 0;
  if (size == 0) return 0;
  const bool after_startup = (data[0] & 1) == 0;
  int fd = connect_to(port);
  int32_t pid = 0, key = 0;
  if (after_startup) {
    std::string st = startup_packet();
    send_all(fd, st.data(), st.size());
    if (!read_startup_reply(fd, &pid, &key)) {
      std::fprintf(stderr, "fuzz_protocol: a valid startup was not answered\n");
      std::abort();
    }
  }
  send_all(fd, reinterpret_cast<const char*>(data + 1), size - 1);
  ::shutdown(fd, SHUT_WR);
  if (!drain(fd, 3000)) {
    if (pid != 0) cancel(port, pid, key);  // a long statement the input asked for
    if (!drain(fd, 5000)) {
      std::fprintf(stderr, "fuzz_protocol: the server kept the connection 8 s after EOF\n");
      std::abort();
    }
  }
  ::close(fd);
  // The connection's thread has ended (and been joined, its thread-locals gone) before
  // the input counts as done: LeakSanitizer's check after an input would otherwise
  // find a thread's state that is still being torn down.
  for (int i = 0; i < 500 && s.server->connection_count() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (++inputs % 64 == 0) check_server_answers(port);
  return 0;
}
