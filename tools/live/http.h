// The little HTTP/1.1 the live view speaks: one GET (or HEAD) per connection, answered
// and closed, or answered with an endless text/event-stream. Only what a browser sends
// is accepted; everything is bounded (the head's size, its time to arrive).
#pragma once

#include <string>
#include <string_view>

namespace tp::live {

inline constexpr size_t kMaxRequestHead = 8192;

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // "/events", percent-escapes left as they are
  std::string query;   // after '?', without it
};

enum class ParseStatus {
  kIncomplete,  // no blank line yet: read more
  kComplete,
  kBad,       // not a request line this server understands: 400
  kTooLarge,  // no end of the head within kMaxRequestHead bytes: 431
};

// Parses the request head in `bytes` (everything read so far).
ParseStatus parse_request(std::string_view bytes, HttpRequest& out);

// The value of `name` in a query string ("hz=2&cell=7"), or "" when absent.
std::string query_param(std::string_view query, std::string_view name);

// A whole response: status line, Content-Type, Content-Length, no caching, the
// connection closed after it; the body left out for HEAD.
std::string http_response(int status, std::string_view content_type, std::string_view body,
                          bool head_only = false);

// The head of an event stream (the events follow, one `data:` line each).
std::string event_stream_head();
// One server-sent event carrying `json` (which holds no newline).
std::string event(std::string_view json);

}  // namespace tp::live
