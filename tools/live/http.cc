#include "tools/live/http.h"

namespace tp::live {

namespace {

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

bool is_token_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

}  // namespace

ParseStatus parse_request(std::string_view bytes, HttpRequest& out) {
  const size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos)
    return bytes.size() >= kMaxRequestHead ? ParseStatus::kTooLarge : ParseStatus::kIncomplete;
  if (end + 4 > kMaxRequestHead) return ParseStatus::kTooLarge;
  const std::string_view line = bytes.substr(0, bytes.find("\r\n"));
  // METHOD SP request-target SP HTTP/1.x
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return ParseStatus::kBad;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return ParseStatus::kBad;
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  for (char c : method)
    if (!is_token_char(c)) return ParseStatus::kBad;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return ParseStatus::kBad;
  if (target.empty() || target[0] != '/') return ParseStatus::kBad;
  for (char c : target)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return ParseStatus::kBad;
  const size_t q = target.find('?');
  out.method = std::string(method);
  out.path = std::string(target.substr(0, q));
  out.query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
  return ParseStatus::kComplete;
}

std::string query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name)
      return eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

std::string http_response(int status, std::string_view content_type, std::string_view body,
                          bool head_only) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  r += "Content-Type: " + std::string(content_type) + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  r += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  if (!head_only) r += body;
  return r;
}

std::string event_stream_head() {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
         "Connection: close\r\n\r\n";
}

std::string event(std::string_view json) {
  return "data: " + std::string(json) + "\n\n";
}

}  // namespace tp::live
