// PostgreSQL's frontend/backend protocol 3.0 at the byte level: building the
// server's messages and reading the client's from a socket. Nothing here knows
// about sessions or SQL; connection.cc decides what to send.
//
// Every message after the startup packet is: a type byte, an int32 length that
// counts itself and the body (not the type byte), the body. Integers are big
// endian; strings end with a zero byte.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/session_memory.h"

namespace tp::server {

// The startup packet's codes (in place of a protocol version).
constexpr int32_t kProtocol30 = 196608;  // 3 << 16
constexpr int32_t kCancelRequestCode = 80877102;
constexpr int32_t kSslRequestCode = 80877103;
constexpr int32_t kGssEncRequestCode = 80877104;

// Larger client messages end the connection (PostgreSQL's limit for a Query
// is 1 GB). tidepool holds a statement at 16 MB (its parse is bounded apart, by
// sql::kMaxParsedNodes). Messages that carry no statement or data (Sync, Execute,
// Terminate...) are held to PostgreSQL's 10,000 bytes.
constexpr uint32_t kMaxMessageBytes = 16u << 20;
constexpr uint32_t kMaxSmallMessageBytes = 10000;
// A message's body is read (and its buffer grown) this much at a time.
constexpr size_t kReadChunkBytes = 64u << 10;

// The largest message of `type` the server reads (PQ_LARGE_MESSAGE_LIMIT for Query,
// Parse, Bind, FunctionCall and CopyData; PQ_SMALL_MESSAGE_LIMIT for the rest).
uint32_t max_message_bytes(char type);

// The client closed the connection, a read or write failed, or the server
// stopped while waiting for the client: the connection ends without a reply.
class ConnectionClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The client broke the protocol (bad length, unknown startup code): answered
// with FATAL 08P01, then the connection ends.
class ProtocolViolation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One outgoing message, built in place.
class Message {
 public:
  explicit Message(char type);
  Message& int8(uint8_t v);
  Message& int16(int16_t v);
  Message& int32(int32_t v);
  Message& str(std::string_view s);    // with its terminating zero byte
  Message& bytes(std::string_view s);  // as is
  const std::string& finish();         // patches the length; call once
 private:
  std::string buf_;
};

// The fields of an ErrorResponse or NoticeResponse.
struct ErrorFields {
  std::string severity = "ERROR";  // ERROR, FATAL, NOTICE
  std::string code = "XX000";      // SQLSTATE
  std::string message;
  std::string detail;
  std::string hint;
  std::string context;  // 'W': where it happened (CONTEXT)
  int position = 0;     // 1-based character in the Query string; 0 = none
};

std::string error_message(char type, const ErrorFields& f);  // type 'E' or 'N'

// A client message after startup.
struct ClientMessage {
  char type = 0;
  std::string body;
};

// A connected socket: buffered writes, buffered reads that give up when `stop_fd`
// becomes readable (the server is stopping) or, for the startup packet, when
// the deadline passes. The socket's file descriptor is owned by the caller.
class Socket {
 public:
  Socket(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}

  // A client that reads nothing cannot hold its session for ever: a send that makes no
  // progress for this long ends the connection (PostgreSQL leaves it to TCP keepalives;
  // tidepool's sessions hold pins and locks while they send).
  static constexpr int kSendStallMs = 60000;
  // Asked about once a second while a send waits for the client: true ends the
  // connection (pg_terminate_backend of this session, the server stopping).
  void set_abandon_check(std::function<bool()> check) { abandon_ = std::move(check); }

  // Queues bytes; flush() sends them. Sends early when much is queued.
  void send(const std::string& bytes);
  void flush();
  // What the reply queue holds allocated (it keeps its capacity between flushes).
  size_t queued_capacity() const { return out_.capacity(); }
  // While set, read_message() publishes the message it is receiving and the reply
  // queue there as the body grows (a session's memory figure); null stops it.
  void track_memory(TrackedMemory* memory) { memory_ = memory; }

  // The startup packet's body (after its int32 length), within `timeout_ms`.
  std::string read_startup_packet(int timeout_ms);
  // The next message; throws ConnectionClosed on EOF, stop or when `timeout_ms`
  // (< 0: none) passes before all of it has arrived.
  ClientMessage read_message(int timeout_ms = -1);
  // Exactly n bytes; timeout_ms < 0 waits as long as it takes.
  void read_exact(char* out, size_t n, int timeout_ms);

 private:
  // Bytes received ahead of the message being read ([in_pos_, in_end_) of in_).
  static constexpr size_t kInBufferBytes = 16u << 10;
  int fd_;
  int stop_fd_;
  std::vector<char> in_;
  size_t in_pos_ = 0;
  size_t in_end_ = 0;
  uint64_t reads_ = 0;
  std::string out_;
  std::function<bool()> abandon_;
  TrackedMemory* memory_ = nullptr;
};

// Big-endian int32 at `p`.
int32_t read_int32(const char* p);

// Reads zero-terminated strings from a message body.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : body_(body) {}
  bool at_end() const { return pos_ >= body_.size(); }
  // Throws ProtocolViolation when no terminating zero byte is left.
  std::string cstring();

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

}  // namespace tp::server
