// `tidepool serve` (tools/server/) spoken to by a raw protocol client over a
// loopback socket: the startup handshake, the simple query flow, errors,
// cancels and the server's own stop.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/session/database.h"
#include "tests/support/pg_wire_client.h"
#include "tests/support/test_util.h"
#include "tools/server/serve_command.h"
#include "tools/server/server.h"

namespace tp {
namespace {

using testing::PgReply;
using testing::PgWireClient;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { start_server(32); }
  void TearDown() override { stop_server(); }

  void start_server(int max_connections) {
    DatabaseOptions o;
    o.data_dir = dir_.data();
    o.settings = {"shared_buffers=2MB"};
    db_ = Database::open(o);
    server::ServerOptions so;
    so.listen = {"127.0.0.1"};
    so.port = 0;
    so.max_connections = max_connections;
    so.startup_timeout_ms = startup_timeout_ms_;
    server_ = std::make_unique<server::Server>(db_, so);
    thread_ = std::thread([this] { server_->run(); });
  }
  void stop_server() {
    if (!server_) return;
    server_->stop();
    thread_.join();
    server_.reset();
    db_.reset();
  }
  int port() const { return server_->port(); }
  std::unique_ptr<PgWireClient> connect() {
    auto c = std::make_unique<PgWireClient>(port());
    EXPECT_TRUE(c->start({{"application_name", "server_test"}})) << c->error().message;
    return c;
  }

  int startup_timeout_ms_ = 60000;
  testing::TempDir dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
};

TEST_F(ServerTest, StartupReportsParametersAndKey) {
  PgWireClient c(port());
  ASSERT_TRUE(c.start({{"application_name", "psql"}, {"database", "anything"}}));
  EXPECT_EQ(c.auth_code, 0);  // AuthenticationOk
  EXPECT_EQ(c.parameters["server_version"], "15.0");
  EXPECT_EQ(c.parameters["server_encoding"], "UTF8");
  EXPECT_EQ(c.parameters["client_encoding"], "UTF8");
  EXPECT_EQ(c.parameters["DateStyle"], "ISO, MDY");
  EXPECT_EQ(c.parameters["integer_datetimes"], "on");
  EXPECT_EQ(c.parameters["standard_conforming_strings"], "on");
  EXPECT_EQ(c.parameters["session_authorization"], "tester");
  EXPECT_EQ(c.parameters["application_name"], "psql");
  EXPECT_GT(c.pid, 0);
  PgReply r = c.query("SHOW application_name");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].rows[0][0], "psql");
  EXPECT_EQ(r.status, 'I');
}

TEST_F(ServerTest, SslAndGssRequestsAreAnsweredNo) {
  PgWireClient c(port());
  c.send_raw(testing::startup_packet(80877103));
  std::string answer;
  ASSERT_TRUE(c.read_exact(answer, 1));
  EXPECT_EQ(answer, "N");
  c.send_raw(testing::startup_packet(80877104));
  ASSERT_TRUE(c.read_exact(answer, 1));
  EXPECT_EQ(answer, "N");
  ASSERT_TRUE(c.start());
  EXPECT_EQ(c.query("SELECT 1").results.at(0).rows.at(0).at(0), "1");
}

// Issue 29: PostgreSQL answers one SSLRequest and one GSSENCRequest; a repeat is an
// unknown protocol, so a client cannot restart the startup deadline for ever.
TEST_F(ServerTest, ASecondSslRequestIsAnUnknownProtocol) {
  PgWireClient c(port());
  c.send_raw(testing::startup_packet(80877103));
  std::string answer;
  ASSERT_TRUE(c.read_exact(answer, 1));
  EXPECT_EQ(answer, "N");
  c.send_raw(testing::startup_packet(80877103));
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_EQ(c.error().code, "08P01");
  EXPECT_EQ(c.error().message,
            "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0");
}

TEST_F(ServerTest, AStartupPacketMustNameAUserInUtf8) {
  PgWireClient no_user(port());
  no_user.send_raw(testing::startup_packet(196608, testing::startup_params({{"database", "x"}})));
  EXPECT_TRUE(no_user.closed_by_server());
  EXPECT_EQ(no_user.error().severity, "FATAL");
  EXPECT_EQ(no_user.error().code, "28000");
  EXPECT_EQ(no_user.error().message, "no PostgreSQL user name specified in startup packet");
  PgWireClient bad_name(port());
  EXPECT_FALSE(bad_name.start({{"application_name", "caf\xe9"}}));
  EXPECT_EQ(bad_name.error().code, "22021");
  EXPECT_EQ(bad_name.error().message, "invalid byte sequence for encoding \"UTF8\": 0xe9");
  auto good = connect();
  EXPECT_EQ(good->query("SELECT 1").results.at(0).rows.at(0).at(0), "1");
}

class ShortStartupServerTest : public ServerTest {
 protected:
  void SetUp() override {
    startup_timeout_ms_ = 1500;
    start_server(32);
  }
};

// One deadline for the whole startup exchange, however the client spreads it out.
TEST_F(ShortStartupServerTest, TheStartupDeadlineCoversEveryPacket) {
  PgWireClient c(port());
  const auto t0 = std::chrono::steady_clock::now();
  std::string answer;
  c.send_raw(testing::startup_packet(80877104));
  ASSERT_TRUE(c.read_exact(answer, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  c.send_raw(testing::startup_packet(80877103));
  ASSERT_TRUE(c.read_exact(answer, 1));
  EXPECT_TRUE(c.closed_by_server());  // no startup packet before the first deadline
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, std::chrono::milliseconds(2500));
}

// Issue 29: a Query is one string and its terminator, nothing more, nothing less.
TEST_F(ServerTest, AMessageWithoutItsTerminatorOrWithBytesAfterItIsRefused) {
  auto c = connect();
  c->send_message('Q', "SELECT 1");  // no terminator
  PgReply r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "08P01");
  EXPECT_EQ(r.error->message, "invalid string in message");
  EXPECT_TRUE(r.results.empty());
  c->send_message('Q', std::string("SELECT 1\0SELECT 2\0", 18));
  r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "invalid message format");
  EXPECT_TRUE(r.results.empty());
  EXPECT_EQ(r.status, 'I');
  EXPECT_EQ(c->query("SELECT 3").results.at(0).rows.at(0).at(0), "3");
  // Sync and Flush have no body (pq_getmsgend): bytes in them are 08P01 too.
  c->send_message('S', "x");
  r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "invalid message format");
  EXPECT_EQ(r.status, 'I');
  c->send_message('H', "x");
  c->send_message('S', "");
  r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "08P01");
  EXPECT_EQ(r.status, 'I');
}

TEST_F(ServerTest, UnknownProtocolVersionIsFatal) {
  PgWireClient c(port());
  c.send_raw(testing::startup_packet(2 << 16, testing::startup_params({{"user", "x"}})));
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_EQ(c.error().severity, "FATAL");
  EXPECT_EQ(c.error().code, "08P01");
}

TEST_F(ServerTest, SeveralStatementsInOneQuery) {
  auto c = connect();
  PgReply r = c->query(
      "CREATE TABLE t (a int, b bigint); INSERT INTO t SELECT g, g * 10 FROM "
      "generate_series(1, 5) g; SELECT a, b FROM t WHERE a <= 2 ORDER BY a; SET work_mem = '8MB'");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].tag, "CREATE TABLE");
  EXPECT_EQ(r.results[1].tag, "INSERT 0 5");
  EXPECT_EQ(r.results[2].tag, "SELECT 2");
  EXPECT_EQ(r.results[2].columns, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(r.results[2].rows.size(), 2u);
  EXPECT_EQ(r.results[2].rows[1][1], "20");
  EXPECT_EQ(r.results[3].tag, "SET");
  EXPECT_EQ(r.status, 'I');
}

TEST_F(ServerTest, RowDescriptionCarriesPostgresTypeOids) {
  auto c = connect();
  ASSERT_FALSE(
      c->query("CREATE TABLE t (a int, b bigint); INSERT INTO t VALUES (1, 2), (3, 4)").error);
  PgReply r = c->query("SELECT a, b FROM t");
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{23, 20}));
  r = c->query("SELECT count(*), sum(a), sum(b), avg(a), min(a) FROM t");
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{20, 20, 1700, 1700, 23}));
  EXPECT_EQ(r.results.at(0).rows.at(0).at(3), "2.0000000000000000");
  r = c->query("SELECT 'x', true, 1.5::float8, 7");
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{25, 16, 701, 23}));
  EXPECT_EQ(r.results.at(0).rows.at(0).at(1), "t");
  r = c->query("SHOW work_mem");
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{25}));
  r = c->query("EXPLAIN SELECT a FROM t");
  EXPECT_EQ(r.results.at(0).columns, (std::vector<std::string>{"QUERY PLAN"}));
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{25}));
}

TEST_F(ServerTest, NullIsSentAsNull) {
  auto c = connect();
  ASSERT_FALSE(c->query("CREATE TABLE t (a int)").error);
  PgReply r = c->query("SELECT sum(a), count(*) FROM t");
  ASSERT_EQ(r.results.at(0).rows.size(), 1u);
  EXPECT_FALSE(r.results[0].rows[0][0].has_value());
  EXPECT_EQ(r.results[0].rows[0][1], "0");
  r = c->query("SELECT ''");
  EXPECT_EQ(r.results.at(0).rows.at(0).at(0), "");  // an empty text, not NULL
  // A view's text column: NULL and '' apart (an unused buffer has no relation).
  r = c->query("SELECT relation FROM pg_buffercache ORDER BY bufferid DESC LIMIT 1");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.results.at(0).type_oids, (std::vector<int32_t>{25}));
  EXPECT_FALSE(r.results.at(0).rows.at(0).at(0).has_value());
}

TEST_F(ServerTest, EmptyQueryResponse) {
  auto c = connect();
  PgReply r = c->query("");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].empty_query);
  r = c->query("  -- nothing but a comment\n");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].empty_query);
  EXPECT_EQ(r.status, 'I');
}

TEST_F(ServerTest, ErrorHasSqlstateAndPositionAndSkipsTheRest) {
  auto c = connect();
  PgReply r = c->query("SELECT 1; SELECT * FROM missing; SELECT 2");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->severity, "ERROR");
  EXPECT_EQ(r.error->code, "42P01");
  EXPECT_EQ(r.error->message, "relation \"missing\" does not exist");
  EXPECT_EQ(r.error->position, 25);  // in the whole Query string, as PostgreSQL counts
  ASSERT_EQ(r.results.size(), 1u);   // SELECT 2 did not run
  EXPECT_EQ(r.status, 'I');
  r = c->query("SELECT 'é'; SELEC 1");  // positions count characters, as PostgreSQL's
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->position, 13);
  r = c->query("SELEC 1");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "42601");
  r = c->query("SET client_encoding = 'LATIN1'");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "22023");
  ASSERT_FALSE(c->query("CREATE TABLE u (a int PRIMARY KEY); INSERT INTO u VALUES (1)").error);
  const std::pair<const char*, const char*> coded[] = {{"INSERT INTO u VALUES (1)", "23505"},
                                                       {"SELECT b FROM u", "42703"},
                                                       {"SELECT 1 / 0", "22012"},
                                                       {"SELECT 2147483647 + 1", "22003"},
                                                       {"SET nonsense = 1", "42704"},
                                                       {"CREATE TABLE u (a int)", "42P07"}};
  for (const auto& [sql, code] : coded) {
    r = c->query(sql);
    ASSERT_TRUE(r.error) << sql;
    EXPECT_EQ(r.error->code, code) << sql << ": " << r.error->message;
  }
  // Still usable.
  EXPECT_EQ(c->query("SELECT 3").results.at(0).rows.at(0).at(0), "3");
}

TEST_F(ServerTest, ClientSettingsPsqlAndDriversSend) {
  auto c = connect();
  PgReply r = c->query(
      "SET application_name = 'mine'; SET client_encoding TO 'UTF8'; SET DateStyle TO ISO; "
      "SHOW application_name; SHOW client_encoding; SHOW datestyle");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.results.size(), 6u);
  EXPECT_EQ(r.results[3].rows.at(0).at(0), "mine");
  EXPECT_EQ(r.results[4].rows.at(0).at(0), "UTF8");
  EXPECT_EQ(r.results[5].rows.at(0).at(0), "ISO, MDY");
  bool found = false;
  for (const SessionActivity& a : db_->sessions().snapshot())
    if (a.pid == c->pid) {
      found = true;
      EXPECT_EQ(a.application_name, "mine");
      EXPECT_EQ(a.client_addr, "127.0.0.1");
    }
  EXPECT_TRUE(found);
}

// A query over pg_catalog that tidepool can run is answered; psql's \d query, which it
// cannot parse, gets the clear refusal with the parser's complaint as its DETAIL; a
// plain error in such a query stays itself.
TEST_F(ServerTest, PsqlCatalogQueriesAreRefusedClearly) {
  auto c = connect();
  ASSERT_FALSE(c->query("CREATE TABLE t (a int)").error);
  PgReply ok = c->query("SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = 't'::regclass");
  ASSERT_FALSE(ok.error) << ok.error->message;
  ASSERT_EQ(ok.results.size(), 1u);
  ASSERT_EQ(ok.results[0].rows.size(), 1u);
  EXPECT_EQ(ok.results[0].rows[0][0], "t");
  PgReply r = c->query(
      "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN "
      "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname "
      "OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default ORDER BY 2, 3");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "0A000");
  EXPECT_NE(r.error->message.find("catalog"), std::string::npos);
  EXPECT_EQ(r.error->detail, "syntax error at or near \"OPERATOR\"");
  EXPECT_NE(r.error->hint.find("tidepool sql"), std::string::npos);
  EXPECT_EQ(r.status, 'I');
  // psql 15's \\dt, whose joins of catalog views tidepool does not make.
  PgReply dt = c->query(
      "SELECT n.nspname as \"Schema\", c.relname as \"Name\", "
      "pg_catalog.pg_get_userbyid(c.relowner) as \"Owner\" FROM pg_catalog.pg_class c "
      "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
      "LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam "
      "WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' "
      "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2");
  ASSERT_TRUE(dt.error);
  EXPECT_EQ(dt.error->code, "0A000");
  EXPECT_NE(dt.error->message.find("psql's catalog queries"), std::string::npos);
  PgReply bad = c->query("SELECT relname FROM pg_catalog.pg_class WHERE oid = 'u'::regclass");
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->code, "42P01");
  EXPECT_EQ(bad.error->message, "relation \"u\" does not exist");
}

TEST_F(ServerTest, FunctionCallRefusedAndUnknownMessageIsFatal) {
  auto c = connect();
  c->send_message('F', std::string(10, '\0'));
  PgReply r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "0A000");
  EXPECT_EQ(r.status, 'I');
  c->send_message('d', "copy data outside COPY is ignored");
  EXPECT_EQ(c->query("SELECT 1").status, 'I');
  c->send_message('?', "");
  EXPECT_TRUE(c->closed_by_server());
  EXPECT_EQ(c->error().severity, "FATAL");
  EXPECT_EQ(c->error().code, "08P01");
  EXPECT_EQ(connect()->query("SELECT 1").status, 'I');  // the server goes on
}

TEST_F(ServerTest, TerminateClosesCleanly) {
  auto c = connect();
  c->send_message('X', "");
  EXPECT_TRUE(c->closed_by_server());
  auto d = connect();
  EXPECT_EQ(d->query("SELECT 1").status, 'I');
}

// A statement that runs until it is cancelled (2 billion series rows, none kept).
constexpr const char* kLongStatement = "SELECT g FROM generate_series(1, 2000000000) g WHERE g < 0";

TEST_F(ServerTest, CancelRequestCancelsTheRunningStatement) {
  auto c = connect();
  c->send_message('Q', std::string(kLongStatement) + '\0');
  // A cancel that arrives before the statement starts cancels nothing: send
  // them until the reply comes.
  for (int i = 0; i < 400 && !c->readable(50); ++i)  // at most 20 s
    testing::send_cancel_request(port(), c->pid, c->key);
  PgReply r = c->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "57014");
  EXPECT_EQ(r.error->message, "canceling statement due to user request");
  EXPECT_EQ(c->query("SELECT 9").results.at(0).rows.at(0).at(0), "9");
}

TEST_F(ServerTest, ReadyForQueryShowsTheTransactionBlock) {
  auto c = connect();
  EXPECT_EQ(c->query("BEGIN").status, 'T');
  PgReply r = c->query("SELECT 1");
  EXPECT_EQ(r.status, 'T');
  r = c->query("COMMIT");
  EXPECT_EQ(r.results.at(0).tag, "COMMIT");
  EXPECT_EQ(r.status, 'I');
  EXPECT_EQ(c->query("BEGIN; SELECT * FROM missing").status, 'E');  // a failed block
  r = c->query("ROLLBACK");
  EXPECT_EQ(r.results.at(0).tag, "ROLLBACK");
  EXPECT_EQ(r.status, 'I');
}

TEST_F(ServerTest, ASecondClientConnectsAndWatchesWhileAStatementRuns) {
  auto busy = connect();
  busy->send_message('Q', std::string(kLongStatement) + '\0');
  auto watcher = connect();  // a session starts while the other's statement runs
  PgReply r = watcher->query("SELECT * FROM pg_stat_io");
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.status, 'I');
  testing::send_cancel_request(port(), busy->pid, busy->key);
  for (int i = 0; i < 400 && !busy->readable(50); ++i)  // at most 20 s
    testing::send_cancel_request(port(), busy->pid, busy->key);
  r = busy->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "57014");
}

TEST_F(ServerTest, CancelRequestWithWrongKeyDoesNothing) {
  auto c = connect();
  testing::send_cancel_request(port(), c->pid, c->key + 1);
  EXPECT_EQ(c->query("SELECT 1").results.at(0).rows.at(0).at(0), "1");
}

TEST_F(ServerTest, TerminateBackendClosesWithFatal) {
  auto c = connect();
  auto other = connect();
  ASSERT_TRUE(db_->sessions().terminate(c->pid));
  c->send_message('Q', std::string("SELECT 1") + '\0');
  EXPECT_TRUE(c->closed_by_server());
  EXPECT_EQ(c->error().code, "57P01");
  EXPECT_EQ(other->query("SELECT 1").status, 'I');
}

TEST_F(ServerTest, PgTerminateBackendFromAnotherClientEndsARunningStatement) {
  auto victim = connect();
  auto admin = connect();
  victim->send_message('Q', std::string(kLongStatement) + '\0');
  // Until the statement runs a terminate only marks the session; either way it ends.
  PgReply r = admin->query("SELECT pg_terminate_backend(" + std::to_string(victim->pid) + ")");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.results.at(0).rows.at(0).at(0), "t");
  EXPECT_TRUE(victim->closed_by_server());
  EXPECT_EQ(victim->error().code, "57P01");
  EXPECT_EQ(admin->query("SELECT 1").status, 'I');
}

// The server checks the flag between statements, but a terminate that comes
// just as a statement starts must still stop it: its cancel found the session
// idle, so the statement starts cancelled.
// Issue 29: a client that never reads its result used to hold its session in send() for
// ever, deaf to pg_terminate_backend; now the wait for room checks about once a second.
TEST_F(ServerTest, AClientThatReadsNothingIsEndedByPgTerminateBackend) {
  auto victim = connect();
  auto admin = connect();
  victim->send_message('Q',
                       std::string("SELECT i, i, i, i FROM generate_series(1, 400000) i") + '\0');
  ASSERT_TRUE(victim->readable(60000));  // the result is on its way: the statement ran
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // socket buffers full
  ASSERT_EQ(db_->sessions().snapshot().size(), 2u);
  PgReply r = admin->query("SELECT pg_terminate_backend(" + std::to_string(victim->pid) + ")");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.results.at(0).rows.at(0).at(0), "t");
  const auto t0 = std::chrono::steady_clock::now();
  while (db_->sessions().snapshot().size() > 1 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(db_->sessions().snapshot().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  EXPECT_EQ(admin->query("SELECT 1").status, 'I');
}

TEST_F(ServerTest, ATerminatedSessionsNextStatementIsCancelled) {
  Session s(db_);
  ASSERT_TRUE(db_->sessions().terminate(s.activity().pid));
  EXPECT_THROW(s.execute("SELECT g FROM generate_series(1, 1000000) g WHERE g < 0"), QueryCanceled);
}

TEST_F(ServerTest, ClientVanishingMidQueryLeavesServerUp) {
  {
    auto c = connect();
    c->send_message('Q', std::string(kLongStatement) + '\0');
  }  // closed while the statement runs: the server cancels it
  for (int i = 0; i < 1000 && server_->connection_count() > 0; ++i)  // at most 20 s
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(server_->connection_count(), 0u);  // the statement was cancelled, the thread ended
  auto d = connect();
  EXPECT_EQ(d->query("SELECT 1").results.at(0).rows.at(0).at(0), "1");
}

TEST_F(ServerTest, StopTellsClientsAndReleasesTheDirectory) {
  auto idle = connect();
  auto busy = connect();
  busy->send_message('Q', std::string(kLongStatement) + '\0');
  server_->stop();
  thread_.join();
  EXPECT_TRUE(idle->closed_by_server());
  EXPECT_EQ(idle->error().code, "57P01");
  EXPECT_EQ(idle->error().message, "terminating connection due to administrator command");
  EXPECT_TRUE(busy->closed_by_server());
  EXPECT_EQ(busy->error().code, "57P01");
  server_.reset();
  db_.reset();
  DatabaseOptions o;
  o.data_dir = dir_.data();
  EXPECT_NO_THROW(Database::open(o));  // closed and unlocked
}

TEST(ServeCommand, ExitCodes) {
  EXPECT_EQ(server::run_serve_command({"--help"}), 0);
  EXPECT_EQ(server::run_serve_command({"--port", "http"}), 2);
  EXPECT_EQ(server::run_serve_command({"--max-connections"}), 2);
  EXPECT_EQ(server::run_serve_command({"--bogus"}), 2);
}

TEST_F(ServerTest, ServeRefusesADirectoryInUse) {
  // The fixture's Database holds the directory: a second open fails before any listening.
  EXPECT_EQ(server::run_serve_command({"-D", dir_.data(), "--port", "65000"}), 1);
}

class SmallServerTest : public ServerTest {
 protected:
  void SetUp() override { start_server(2); }
};

TEST_F(SmallServerTest, TooManyClientsAreRefusedAndTheServerGoesOn) {
  auto a = connect();
  auto b = connect();
  PgWireClient extra(port());
  EXPECT_FALSE(extra.start());
  EXPECT_EQ(extra.error().severity, "FATAL");
  EXPECT_EQ(extra.error().code, "53300");
  EXPECT_EQ(extra.error().message, "sorry, too many clients already");
  a.reset();
  // The slot frees once a's thread has seen the Terminate-less close.
  std::unique_ptr<PgWireClient> c;
  for (int i = 0; i < 500 && !c; ++i) {
    auto attempt = std::make_unique<PgWireClient>(port());
    if (attempt->start()) c = std::move(attempt);
  }
  ASSERT_TRUE(c);
  EXPECT_EQ(c->query("SELECT 1").status, 'I');
  EXPECT_EQ(b->query("SELECT 2").status, 'I');
}

TEST_F(SmallServerTest, ABurstOfClientsAllHearWhy) {
  std::vector<std::unique_ptr<PgWireClient>> clients;
  for (int i = 0; i < 12; ++i) {
    clients.push_back(std::make_unique<PgWireClient>(port()));
    clients.back()->send_raw(
        testing::startup_packet(196608, testing::startup_params({{"user", "u"}})));
  }
  int accepted = 0, refused = 0;
  for (auto& c : clients) {
    testing::PgMessage m = c->read_message();
    if (m.type == 'R') ++accepted;
    if (m.type == 'E' && testing::parse_error_fields(m.body).code == "53300") ++refused;
  }
  EXPECT_EQ(accepted, 2);
  EXPECT_EQ(refused, 10);
}

TEST_F(ServerTest, NoticesAndStartupOptions) {
  PgWireClient c(port());
  ASSERT_TRUE(c.start({{"options", "-c work_mem=8MB --enable-seqscan=off"}}));
  PgReply r = c.query("SHOW work_mem; SHOW enable_seqscan; RESET work_mem; SHOW work_mem");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.results.at(0).rows.at(0).at(0), "8MB");
  EXPECT_EQ(r.results.at(1).rows.at(0).at(0), "off");
  EXPECT_EQ(r.results.at(3).rows.at(0).at(0), "8MB");  // the startup value is RESET's
  r = c.query("CREATE TABLE t (a int); CREATE TABLE IF NOT EXISTS t (a int)");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].severity, "NOTICE");
  EXPECT_EQ(r.notices[0].code, "00000");
  EXPECT_EQ(r.notices[0].message, "relation \"t\" already exists, skipping");
  r = c.query("SELECT pg_cancel_backend(12345678)");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].severity, "WARNING");
  EXPECT_EQ(r.notices[0].message, "PID 12345678 is not a PostgreSQL backend process");
  PgWireClient refused(port());
  EXPECT_FALSE(refused.start({{"options", "-c shared_buffers=1GB"}}));
  EXPECT_EQ(refused.error().code, "55P02");
}

}  // namespace
}  // namespace tp
