#include "tools/server/wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace tp::server {

Message::Message(char type) {
  buf_.push_back(type);
  buf_.append(4, '\0');  // the length, patched by finish()
}

Message& Message::int8(uint8_t v) {
  buf_.push_back(char(v));
  return *this;
}

Message& Message::int16(int16_t v) {
  auto u = uint16_t(v);
  buf_.push_back(char(u >> 8));
  buf_.push_back(char(u & 0xff));
  return *this;
}

Message& Message::int32(int32_t v) {
  auto u = uint32_t(v);
  for (int shift = 24; shift >= 0; shift -= 8) buf_.push_back(char((u >> shift) & 0xff));
  return *this;
}

Message& Message::str(std::string_view s) {
  buf_.append(s);
  buf_.push_back('\0');
  return *this;
}

Message& Message::bytes(std::string_view s) {
  buf_.append(s);
  return *this;
}

const std::string& Message::finish() {
  auto len = uint32_t(buf_.size() - 1);
  for (int i = 0; i < 4; ++i) buf_[1 + i] = char((len >> (24 - 8 * i)) & 0xff);
  return buf_;
}

std::string error_message(char type, const ErrorFields& f) {
  Message m(type);
  m.int8('S').str(f.severity);
  m.int8('V').str(f.severity);
  m.int8('C').str(f.code);
  m.int8('M').str(f.message);
  if (!f.detail.empty()) m.int8('D').str(f.detail);
  if (!f.hint.empty()) m.int8('H').str(f.hint);
  if (f.position > 0) m.int8('P').str(std::to_string(f.position));
  if (!f.context.empty()) m.int8('W').str(f.context);
  m.int8(0);
  return m.finish();
}

int32_t read_int32(const char* p) {
  auto b = [&](int i) { return uint32_t(uint8_t(p[i])); };
  return int32_t(b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3));
}

std::string BodyReader::cstring() {
  size_t end = body_.find('\0', pos_);
  if (end == std::string_view::npos) throw ProtocolViolation("invalid string in message");
  std::string s(body_.substr(pos_, end - pos_));
  pos_ = end + 1;
  return s;
}

void Socket::send(const std::string& bytes) {
  out_.append(bytes);
  if (out_.size() >= 64 * 1024) flush();
}

void Socket::flush() {
  using Clock = std::chrono::steady_clock;
  size_t done = 0;
  Clock::time_point progress = Clock::now();
  auto give_up = [&](const char* why) {
    out_.clear();
    throw ConnectionClosed(why);
  };
  while (done < out_.size()) {
    ssize_t n = ::send(fd_, out_.data() + done, out_.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += size_t(n);
      progress = Clock::now();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
      give_up("could not send data to client");
    // The client's receive window is full: wait for room, a second at a time.
    if (Clock::now() - progress > std::chrono::milliseconds(kSendStallMs))
      give_up("could not send data to client: it read nothing for 60 s");
    if (abandon_ && abandon_()) give_up("connection abandoned while sending");
    pollfd fds[2] = {{fd_, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
    int r = ::poll(fds, stop_fd_ >= 0 ? 2 : 1, 1000);
    if (r < 0 && errno != EINTR) give_up("poll failed");
    if (r > 0 && stop_fd_ >= 0 && (fds[1].revents & POLLIN)) give_up("server stopping");
    if (r > 0 && (fds[0].revents & (POLLERR | POLLHUP)) != 0)
      give_up("could not send data to client");
  }
  out_.clear();
}

void Socket::read_exact(char* out, size_t n, int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  size_t got = 0;
  while (got < n) {
    if (in_pos_ < in_end_) {
      const size_t k = std::min(n - got, in_end_ - in_pos_);
      std::memcpy(out + got, in_.data() + in_pos_, k);
      in_pos_ += k;
      got += k;
      continue;
    }
    // What the client has sent already is taken without waiting: a Bind, Execute and
    // Sync sent together cost one recv, and no poll. A large read goes straight to
    // `out`; a small one fills the buffer for the messages after it.
    const bool direct = n - got >= kInBufferBytes;
    if (!direct && in_.empty()) in_.resize(kInBufferBytes);
    char* into = direct ? out + got : in_.data();
    const size_t room = direct ? n - got : in_.size();
    // A client that never stops sending still sees the server stop.
    const bool check_stop = stop_fd_ >= 0 && ++reads_ % 256 == 0;
    if (check_stop) {
      pollfd stop = {stop_fd_, POLLIN, 0};
      if (::poll(&stop, 1, 0) > 0 && (stop.revents & POLLIN))
        throw ConnectionClosed("server stopping");
    }
    ssize_t k = ::recv(fd_, into, room, MSG_DONTWAIT);
    if (k > 0) {
      if (direct) {
        got += size_t(k);
      } else {
        in_pos_ = 0;
        in_end_ = size_t(k);
      }
      continue;
    }
    if (k == 0) throw ConnectionClosed("client closed the connection");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw ConnectionClosed("client closed the connection");
    // Nothing yet: wait for the client, the server's stop or the deadline.
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) throw ConnectionClosed("timeout waiting for the client");
      wait = int(left.count());
    }
    int r = ::poll(fds, stop_fd_ >= 0 ? 2 : 1, wait);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw ConnectionClosed("poll failed");
    if (stop_fd_ >= 0 && (fds[1].revents & POLLIN)) throw ConnectionClosed("server stopping");
  }
}

std::string Socket::read_startup_packet(int timeout_ms) {
  char len_bytes[4];
  read_exact(len_bytes, 4, timeout_ms);
  int32_t len = read_int32(len_bytes);
  // PostgreSQL's limits: at least the version code, at most 10000 bytes.
  if (len < 8 || len > 10000) throw ProtocolViolation("invalid length of startup packet");
  std::string body(size_t(len - 4), '\0');
  read_exact(body.data(), body.size(), timeout_ms);
  return body;
}

uint32_t max_message_bytes(char type) {
  switch (type) {
    case 'Q':  // Query
    case 'P':  // Parse
    case 'B':  // Bind
    case 'F':  // FunctionCall
    case 'd':  // CopyData
      return kMaxMessageBytes;
    default:
      return kMaxSmallMessageBytes;
  }
}

ClientMessage Socket::read_message(int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto left = [&] {
    if (timeout_ms < 0) return -1;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return int(std::max<int64_t>(ms.count(), 0));
  };
  if (memory_ != nullptr) memory_->set(out_.capacity());  // the last message is gone
  char head[5];
  read_exact(head, 5, timeout_ms);
  int32_t len = read_int32(head + 1);
  if (len < 4 || uint32_t(len) > max_message_bytes(head[0]))
    throw ProtocolViolation("invalid message length");
  ClientMessage m;
  m.type = head[0];
  // Grown as the bytes arrive: a length announced is not memory taken until the client
  // sends that much.
  const size_t want = size_t(len - 4);
  while (m.body.size() < want) {
    const size_t have = m.body.size();
    const size_t chunk = std::min(want - have, kReadChunkBytes);
    m.body.resize(have + chunk);
    if (memory_ != nullptr) memory_->set(m.body.capacity() + out_.capacity());
    read_exact(m.body.data() + have, chunk, left());
  }
  return m;
}

}  // namespace tp::server
