// A small PostgreSQL protocol 3.0 client over a loopback TCP socket, for
// tests of `tidepool serve` (tools/server/): it sends the raw messages a
// client would and decodes the replies, so a test can check every byte the
// server means to send. Every read gives up after 20 s, so a server that
// fails to answer fails the test instead of hanging it.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::testing {

struct PgMessage {
  char type = 0;  // 0: the server closed the connection
  std::string body;
};

struct PgError {
  std::string severity, code, message, detail, hint;
  int position = 0;
};

// One statement's reply.
struct PgResult {
  std::vector<std::string> columns;
  std::vector<int32_t> type_oids;
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::string tag;           // CommandComplete
  bool empty_query = false;  // EmptyQueryResponse
  bool suspended = false;    // PortalSuspended in place of CommandComplete
};

// Everything up to ReadyForQuery.
struct PgReply {
  std::vector<PgResult> results;
  std::optional<PgError> error;
  std::vector<PgError> notices;
  char status = 0;  // ReadyForQuery's 'I' / 'T'; 0 if the connection ended first
};

inline void put_int32(std::string& s, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(char((uint32_t(v) >> shift) & 0xff));
}

inline void put_int16(std::string& s, int16_t v) {
  s.push_back(char((uint16_t(v) >> 8) & 0xff));
  s.push_back(char(uint16_t(v) & 0xff));
}

inline int32_t get_int32(const std::string& s, size_t at) {
  auto b = [&](size_t i) { return uint32_t(uint8_t(s[at + i])); };
  return int32_t(b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3));
}

inline int16_t get_int16(const std::string& s, size_t at) {
  return int16_t(uint16_t(uint8_t(s[at])) << 8 | uint16_t(uint8_t(s[at + 1])));
}

// A startup-style packet: int32 length, int32 code, body.
inline std::string startup_packet(int32_t code, const std::string& body = {}) {
  std::string s;
  put_int32(s, int32_t(8 + body.size()));
  put_int32(s, code);
  return s + body;
}

inline std::string startup_params(const std::map<std::string, std::string>& params) {
  std::string body;
  for (const auto& [k, v] : params) body += k + '\0' + v + '\0';
  return body + '\0';
}

inline PgError parse_error_fields(const std::string& body) {
  PgError e;
  size_t i = 0;
  while (i < body.size() && body[i] != '\0') {
    char field = body[i++];
    size_t end = body.find('\0', i);
    std::string v = body.substr(i, end - i);
    i = end + 1;
    if (field == 'S') e.severity = v;
    if (field == 'C') e.code = v;
    if (field == 'M') e.message = v;
    if (field == 'D') e.detail = v;
    if (field == 'H') e.hint = v;
    if (field == 'P') e.position = std::stoi(v);
  }
  return e;
}

class PgWireClient {
 public:
  explicit PgWireClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{20, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("connect failed");
  }
  ~PgWireClient() { ::close(fd_); }
  PgWireClient(const PgWireClient&) = delete;
  PgWireClient& operator=(const PgWireClient&) = delete;

  void send_raw(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      done += size_t(n);
    }
  }
  void send_message(char type, const std::string& body) {
    std::string m(1, type);
    put_int32(m, int32_t(4 + body.size()));
    send_raw(m + body);
  }

  // Reads exactly n bytes; false on EOF or timeout.
  bool read_exact(std::string& out, size_t n) {
    out.assign(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t k = ::recv(fd_, out.data() + got, n - got, 0);
      if (k <= 0) return false;
      got += size_t(k);
    }
    return true;
  }
  PgMessage read_message() {
    std::string head, body;
    if (!read_exact(head, 5)) return {};
    if (!read_exact(body, size_t(get_int32(head, 1) - 4))) return {};
    return {head[0], body};
  }
  // True when the server has something to read within `ms`.
  bool readable(int ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) > 0;
  }

  // The startup handshake up to the first ReadyForQuery; false (with error())
  // when the server refuses.
  bool start(std::map<std::string, std::string> params = {}) {
    if (!params.count("user")) params["user"] = "tester";
    send_raw(startup_packet(196608, startup_params(params)));
    for (;;) {
      PgMessage m = read_message();
      if (m.type == 0) return false;
      if (m.type == 'E') {
        error_ = parse_error_fields(m.body);
        return false;
      }
      if (m.type == 'S') {
        size_t z = m.body.find('\0');
        parameters[m.body.substr(0, z)] = m.body.substr(z + 1, m.body.find('\0', z + 1) - z - 1);
      }
      if (m.type == 'K') {
        pid = get_int32(m.body, 0);
        key = get_int32(m.body, 4);
      }
      if (m.type == 'R') auth_code = get_int32(m.body, 0);
      if (m.type == 'Z') return true;
    }
  }
  const PgError& error() const { return error_; }

  // Everything the server sends up to ReadyForQuery (or the end).
  PgReply read_reply() {
    PgReply r;
    PgResult cur;
    for (;;) {
      PgMessage m = read_message();
      switch (m.type) {
        case 0:
          return r;
        case 'T': {
          int n = get_int16(m.body, 0);
          size_t at = 2;
          for (int i = 0; i < n; ++i) {
            size_t z = m.body.find('\0', at);
            cur.columns.push_back(m.body.substr(at, z - at));
            cur.type_oids.push_back(get_int32(m.body, z + 1 + 4 + 2));
            at = z + 1 + 18;
          }
          break;
        }
        case 'D': {
          int n = get_int16(m.body, 0);
          size_t at = 2;
          std::vector<std::optional<std::string>> row;
          for (int i = 0; i < n; ++i) {
            int32_t len = get_int32(m.body, at);
            at += 4;
            if (len < 0) {
              row.push_back(std::nullopt);
            } else {
              row.push_back(m.body.substr(at, size_t(len)));
              at += size_t(len);
            }
          }
          cur.rows.push_back(std::move(row));
          break;
        }
        case 'C':
          cur.tag = m.body.substr(0, m.body.find('\0'));
          r.results.push_back(std::move(cur));
          cur = {};
          break;
        case 'I':
          cur.empty_query = true;
          r.results.push_back(std::move(cur));
          cur = {};
          break;
        case 's':
          cur.suspended = true;
          r.results.push_back(std::move(cur));
          cur = {};
          break;
        case 'E':
          r.error = parse_error_fields(m.body);
          break;
        case 'N':
          r.notices.push_back(parse_error_fields(m.body));
          break;
        case 'Z':
          r.status = m.body[0];
          return r;
        default:
          break;
      }
    }
  }

  PgReply query(const std::string& sql) {
    send_message('Q', sql + '\0');
    return read_reply();
  }

  // The extended query protocol's messages (nothing is read).
  void parse(const std::string& name, const std::string& sql,
             const std::vector<int32_t>& oids = {}) {
    std::string b = name + '\0' + sql + '\0';
    put_int16(b, int16_t(oids.size()));
    for (int32_t o : oids) put_int32(b, o);
    send_message('P', b);
  }
  // `values`: each parameter's bytes (nullopt: NULL) in `formats` (none: all text).
  void bind(const std::string& portal, const std::string& statement,
            const std::vector<std::optional<std::string>>& values,
            const std::vector<int16_t>& formats = {},
            const std::vector<int16_t>& result_formats = {}) {
    std::string b = portal + '\0' + statement + '\0';
    put_int16(b, int16_t(formats.size()));
    for (int16_t f : formats) put_int16(b, f);
    put_int16(b, int16_t(values.size()));
    for (const auto& v : values) {
      put_int32(b, v ? int32_t(v->size()) : -1);
      if (v) b += *v;
    }
    put_int16(b, int16_t(result_formats.size()));
    for (int16_t f : result_formats) put_int16(b, f);
    send_message('B', b);
  }
  void describe(char kind, const std::string& name) {
    send_message('D', std::string(1, kind) + name + '\0');
  }
  void execute(const std::string& portal, int32_t max_rows = 0) {
    std::string b = portal + '\0';
    put_int32(b, max_rows);
    send_message('E', b);
  }
  void close(char kind, const std::string& name) {
    send_message('C', std::string(1, kind) + name + '\0');
  }
  void sync() { send_message('S', ""); }
  // Every message up to and including ReadyForQuery (or the end).
  std::vector<PgMessage> read_until_ready() {
    std::vector<PgMessage> out;
    for (;;) {
      PgMessage m = read_message();
      if (m.type == 0) return out;
      out.push_back(m);
      if (m.type == 'Z') return out;
    }
  }

  // True when the server closes the connection (after any messages) in time.
  bool closed_by_server() {
    for (;;) {
      PgMessage m = read_message();
      if (m.type == 0) return true;
      if (m.type == 'E') error_ = parse_error_fields(m.body);
    }
  }

  std::map<std::string, std::string> parameters;
  int32_t pid = 0;
  int32_t key = 0;
  int32_t auth_code = -1;

 private:
  int fd_ = -1;
  PgError error_;
};

// A CancelRequest on a new connection, as psql's Ctrl-C sends it.
inline void send_cancel_request(int port, int32_t pid, int32_t key) {
  PgWireClient c(port);
  std::string body;
  put_int32(body, pid);
  put_int32(body, key);
  c.send_raw(startup_packet(80877102, body));
  std::string ignored;
  c.read_exact(ignored, 1);  // the server closes it without a reply
}

}  // namespace tp::testing
