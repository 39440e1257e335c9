// `tidepool serve --http`'s server (tools/live/live_server.h) over real loopback
// sockets: the page, one snapshot, an event stream at the rate asked for, and every
// other request refused: unknown paths (`..` ones too) 404, other methods 405, a
// request line it cannot read 400, a client that sends nothing dropped, more clients
// than allowed 503, and stop() ending open streams.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <chrono>
#include <nlohmann/json.hpp>

#include "tests/support/test_util.h"
#include "tools/live/live_server.h"

namespace tp::live {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

// Reads until the server closes, `until` appears `times` times, or 5 s pass.
std::string read_from(int fd, const std::string& until = "", int times = 1) {
  std::string got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < end) {
    if (!until.empty()) {
      int n = 0;
      for (size_t at = got.find(until); at != std::string::npos; at = got.find(until, at + 1)) ++n;
      if (n >= times) break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, size_t(n));
  }
  return got;
}

class LiveServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseOptions o;
    o.data_dir = dir_.data();
    o.settings = {"shared_buffers=2MB"};
    db_ = Database::open(o);
    Session s(db_);
    s.execute("CREATE TABLE t (a int)");
    s.execute("INSERT INTO t SELECT i FROM generate_series(1, 3000) s(i)");
    LiveServerOptions lo;
    lo.listen = {"127.0.0.1"};
    lo.max_clients = 2;
    lo.request_timeout_ms = 300;
    server_ = std::make_unique<LiveServer>(db_, lo);
    server_->start();
  }
  // One request's whole response.
  std::string request(const std::string& text) {
    const int fd = connect_to(server_->port());
    EXPECT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), ssize_t(text.size()));
    std::string r = read_from(fd);
    ::close(fd);
    return r;
  }
  static std::string body(const std::string& response) {
    const size_t at = response.find("\r\n\r\n");
    return at == std::string::npos ? "" : response.substr(at + 4);
  }

  testing::TempDir dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<LiveServer> server_;
};

TEST_F(LiveServerTest, ServesThePageASnapshotAndAClickedCell) {
  EXPECT_THAT(server_->urls().at(0), StartsWith("http://127.0.0.1:"));
  EXPECT_TRUE(server_->loopback_only());
  const std::string page = request("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_THAT(page, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(page, HasSubstr("Content-Type: text/html"));
  EXPECT_THAT(body(page), HasSubstr("<canvas id=\"grid\""));
  EXPECT_THAT(body(page), HasSubstr("new EventSource(\"/events\""));
  const std::string head = request("HEAD / HTTP/1.1\r\n\r\n");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(body(head), "");

  const std::string snap = request("GET /snapshot.json HTTP/1.1\r\n\r\n");
  EXPECT_THAT(snap, HasSubstr("Content-Type: application/json"));
  const Json j = Json::parse(body(snap));
  EXPECT_EQ(j["pool"]["buffers"], 256);
  EXPECT_EQ(j["pool"]["state"].size(), 256u);
  const Json cell = Json::parse(body(request("GET /cell?i=3 HTTP/1.1\r\n\r\n")));
  EXPECT_EQ(cell["cell"], 3);
  EXPECT_EQ(cell["buffers"][0]["bufferid"], 4);
  EXPECT_EQ(body(request("GET /cell?i=999999 HTTP/1.1\r\n\r\n")), "null");
}

TEST_F(LiveServerTest, StreamsSnapshotsAtTheRateAsked) {
  const int fd = connect_to(server_->port());
  const std::string req = "GET /events?hz=20 HTTP/1.1\r\n\r\n";
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  const auto start = std::chrono::steady_clock::now();
  const std::string got = read_from(fd, "\n\n", 4);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  EXPECT_THAT(got, StartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"));
  std::vector<int> seqs;
  for (size_t at = got.find("data: "); at != std::string::npos; at = got.find("data: ", at + 1))
    seqs.push_back(Json::parse(got.substr(at + 6, got.find('\n', at) - at - 6))["seq"]);
  ASSERT_GE(seqs.size(), 3u) << got.substr(0, 300);
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], int(i) + 1);
  EXPECT_LT(seconds, 2.0);  // 20 a second, not the default 4
}

TEST_F(LiveServerTest, RefusesEverythingElse) {
  for (const char* path : {"/../etc/passwd", "/page.html", "/%2e%2e/", "/events/x", "//"})
    EXPECT_THAT(request(std::string("GET ") + path + " HTTP/1.1\r\n\r\n"),
                StartsWith("HTTP/1.1 404 Not Found"))
        << path;
  EXPECT_THAT(request("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), StartsWith("HTTP/1.1 405 "));
  EXPECT_THAT(request("GARBAGE\r\n\r\n"), StartsWith("HTTP/1.1 400 Bad Request"));
  EXPECT_THAT(request(std::string(9000, 'x')), StartsWith("HTTP/1.1 431 "));
  // Nothing sent: closed after the request timeout, with no answer.
  const int idle = connect_to(server_->port());
  EXPECT_EQ(read_from(idle), "");
  ::close(idle);
}

TEST_F(LiveServerTest, RefusesClientsBeyondItsLimitAndStopEndsOpenStreams) {
  std::vector<int> streams;
  for (int i = 0; i < 2; ++i) {
    streams.push_back(connect_to(server_->port()));
    const std::string req = "GET /events HTTP/1.1\r\n\r\n";
    ::send(streams.back(), req.data(), req.size(), MSG_NOSIGNAL);
    EXPECT_THAT(read_from(streams.back(), "data: "), HasSubstr("data: {"));
  }
  EXPECT_THAT(request("GET / HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 503 "));
  const auto start = std::chrono::steady_clock::now();
  server_.reset();  // stop, wait for both streams' threads
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  for (int fd : streams) {
    read_from(fd);  // drains, then sees the close
    char c;
    EXPECT_EQ(::recv(fd, &c, 1, MSG_DONTWAIT), 0);
    ::close(fd);
  }
}

}  // namespace
}  // namespace tp::live
