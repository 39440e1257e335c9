// kill -9 of `tidepool serve` while several clients insert into their own
// tables through the wire protocol, then a restart: every INSERT the server
// acknowledged (CommandComplete) is there, the one in flight in each session
// is there whole or not at all, each index passes tp_verify, and the server
// starts again on the same directory. The seed is printed; TIDEPOOL_KILL_SEED
// replays a run's sizes and delays.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/session/session.h"
#include "tests/robust/child_process.h"
#include "tests/support/pg_wire_client.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using namespace std::chrono_literals;
using testing::ChildProcess;
using testing::options_for;
using testing::PgWireClient;
using testing::scalar;
using testing::TempDir;

constexpr int kClients = 3;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// The port a server started with --port 0 reports on stderr, or 0.
int listening_port(const ChildProcess& server) {
  const std::string marker = "listening on 127.0.0.1:";
  std::string err = server.stderr_text();
  size_t at = err.find(marker);
  return at == std::string::npos ? 0 : std::atoi(err.c_str() + at + marker.size());
}

// One client's life until the server dies: INSERT after INSERT into its own
// table, counting what was acknowledged and what was in flight.
struct ClientLog {
  uint64_t acked = 0;
  uint64_t in_flight = 0;
  std::string failure;
};

void insert_until_killed(int port, int id, uint64_t seed, ClientLog& log) {
  std::mt19937_64 rng(seed);
  try {
    PgWireClient c(port);
    if (!c.start()) return;  // killed before it was served
    for (;;) {
      const uint64_t n = 200 + rng() % 5000;
      log.in_flight = n;
      auto reply = c.query("INSERT INTO t" + std::to_string(id) +
                           " SELECT g, g FROM generate_series(1, " + std::to_string(n) + ") g");
      if (reply.status == 0) return;  // the connection ended: the server is gone
      if (reply.error) {
        log.failure = reply.error->message;
        return;
      }
      log.acked += n;
      log.in_flight = 0;
    }
  } catch (const std::exception&) {
    // connect or send failed once the server was killed
  }
}

TEST(ServerKill, AcknowledgedInsertsSurviveKill9) {
  const uint64_t seed = env_or("TIDEPOOL_KILL_SEED", std::random_device{}());
  std::printf("server kill loop: seed %llu (TIDEPOOL_KILL_SEED=%llu replays it)\n",
              (unsigned long long)seed, (unsigned long long)seed);
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir tmp;
  const std::string data = tmp.data();
  {
    Session s(options_for(data));
    for (int i = 0; i < kClients; ++i) {
      s.execute("CREATE TABLE t" + std::to_string(i) + " (a int, b bigint)");
      if (i != 1)
        s.execute("CREATE INDEX t" + std::to_string(i) + "_a ON t" + std::to_string(i) + " (a)");
    }
  }
  std::vector<uint64_t> rows(kClients, 0);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(env_or("TIDEPOOL_KILL_SECONDS", 15));
  int rounds = 0, mid_statement = 0;
  while (rounds < 8 && std::chrono::steady_clock::now() < deadline) {
    ++rounds;
    ChildProcess server({"serve", "-D", data, "--port", "0", "--set", "shared_buffers=4MB"},
                        tmp.path());
    int port = 0;
    ASSERT_TRUE(testing::wait_until(
        [&] { return (port = listening_port(server)) > 0 || server.poll_exit(); }, 20s))
        << "no listening line: " << server.stderr_text();
    ASSERT_GT(port, 0) << "the server ended: " << server.describe() << "\n" << server.stderr_text();
    std::vector<ClientLog> logs(kClients);
    std::vector<std::thread> clients;
    for (int i = 0; i < kClients; ++i)
      clients.emplace_back(insert_until_killed, port, i, rng(), std::ref(logs[size_t(i)]));
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 400));
    server.signal(SIGKILL);
    ASSERT_TRUE(server.wait_for(10s));
    for (auto& c : clients) c.join();

    Session s(options_for(data));  // recovery runs as it opens
    for (int i = 0; i < kClients; ++i) {
      const ClientLog& log = logs[size_t(i)];
      EXPECT_EQ(log.failure, "") << "client " << i;
      const std::string t = "t" + std::to_string(i);
      const uint64_t have = std::stoull(scalar(s, "SELECT count(*) FROM " + t));
      const uint64_t before = rows[size_t(i)] + log.acked;
      EXPECT_TRUE(have == before || (log.in_flight > 0 && have == before + log.in_flight))
          << t << " holds " << have << " rows; acknowledged " << before << ", in flight "
          << log.in_flight << " (seed " << seed << ", round " << rounds << ")";
      if (log.in_flight > 0) ++mid_statement;
      EXPECT_EQ(s.catalog().find(t)->rows, have)
          << "the catalog's row count differs from the heap's";
      if (i != 1) {
        std::string verdict = scalar(s, "SELECT tp_verify('" + t + "_a')");
        EXPECT_EQ(verdict.rfind("index \"" + t + "_a\" is valid", 0), 0u) << verdict;
      }
      rows[size_t(i)] = have;
    }
  }
  EXPECT_GT(mid_statement, 0) << "no kill landed during an INSERT";
}

}  // namespace
}  // namespace tp
