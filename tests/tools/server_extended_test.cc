// Issue 33: the extended query protocol (tools/server/extended.h) spoken byte by byte:
// Parse with inferred parameter types, Bind in text and binary, Describe, Execute with
// a row limit, Close, Sync; errors skip to Sync; named statements outlive it.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "tests/support/pg_wire_client.h"
#include "tests/support/test_server.h"

namespace tp {
namespace {

using testing::PgMessage;
using testing::PgWireClient;

class ExtendedProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = std::make_unique<PgWireClient>(server_.port());
    ASSERT_TRUE(c_->start()) << c_->error().message;
    ASSERT_FALSE(
        c_->query("CREATE TABLE t (a int, b text, n numeric(8,2));"
                  "INSERT INTO t SELECT i, 'x' || i, i * 1.5 FROM generate_series(1, 100) i;"
                  "CREATE INDEX t_a ON t (a); ANALYZE t")
            .error);
  }

  // The types of the messages up to ReadyForQuery, as one string ("12TDCZ").
  std::string types(const std::vector<PgMessage>& ms) {
    std::string s;
    for (const PgMessage& m : ms) s += m.type;
    return s;
  }
  std::vector<PgMessage> sync() {
    c_->sync();
    return c_->read_until_ready();
  }
  static testing::PgError error_in(const std::vector<PgMessage>& ms) {
    for (const PgMessage& m : ms)
      if (m.type == 'E') return testing::parse_error_fields(m.body);
    return {};
  }
  // A DataRow's cells.
  static std::vector<std::string> cells(const PgMessage& m) {
    std::vector<std::string> out;
    size_t at = 2;
    for (int i = 0; i < testing::get_int16(m.body, 0); ++i) {
      const int32_t len = testing::get_int32(m.body, at);
      at += 4;
      out.push_back(len < 0 ? "NULL" : m.body.substr(at, size_t(len)));
      at += len < 0 ? 0 : size_t(len);
    }
    return out;
  }

  testing::TestServer server_;
  std::unique_ptr<PgWireClient> c_;
};

TEST_F(ExtendedProtocolTest, ParseInfersParameterTypesAndExecuteUsesTheValues) {
  c_->parse("", "SELECT a, b FROM t WHERE a < $1 AND b <> $2 ORDER BY a");
  c_->describe('S', "");
  c_->bind("", "", {"4", "x2"});
  c_->describe('P', "");
  c_->execute("");
  const std::vector<PgMessage> ms = sync();
  ASSERT_EQ(types(ms), "1tT2TDDCZ");
  // ParameterDescription: int4 then text, as PostgreSQL infers them from the columns.
  EXPECT_EQ(testing::get_int16(ms[1].body, 0), 2);
  EXPECT_EQ(testing::get_int32(ms[1].body, 2), 23);
  EXPECT_EQ(testing::get_int32(ms[1].body, 6), 25);
  EXPECT_EQ(cells(ms[5]), (std::vector<std::string>{"1", "x1"}));
  EXPECT_EQ(cells(ms[6]), (std::vector<std::string>{"3", "x3"}));
  EXPECT_EQ(ms[7].body, std::string("SELECT 2\0", 9));
}

TEST_F(ExtendedProtocolTest, AParameterPlansAsItsValueWould) {
  c_->parse("", "EXPLAIN SELECT * FROM t WHERE a = $1");
  c_->bind("", "", {"7"});
  c_->execute("");
  const std::vector<PgMessage> with_param = sync();
  testing::PgReply literal = c_->query("EXPLAIN SELECT * FROM t WHERE a = 7");
  ASSERT_EQ(types(with_param), "12DDCZ");
  ASSERT_EQ(literal.results.at(0).rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(cells(with_param[2 + i]).at(0), literal.results[0].rows[i].at(0).value());
  EXPECT_EQ(cells(with_param[3]).at(0), "  Filter: (a = 7)");
}

TEST_F(ExtendedProtocolTest, ExecuteWithARowLimitSuspendsThePortal) {
  c_->parse("", "SELECT a FROM t WHERE a <= $1 ORDER BY a", {23});
  c_->bind("", "", {"5"});
  c_->execute("", 2);
  c_->execute("", 2);
  c_->execute("", 2);
  const std::vector<PgMessage> ms = sync();
  ASSERT_EQ(types(ms), "12DDsDDsDCZ") << error_in(ms).message;
  EXPECT_EQ(cells(ms[6]).at(0), "4");
  EXPECT_EQ(cells(ms[8]).at(0), "5");
  EXPECT_EQ(ms[9].body, std::string("SELECT 1\0", 9));
  // The portal ended with Sync: executing it again is 34000.
  c_->execute("", 2);
  EXPECT_EQ(error_in(sync()).code, "34000");
}

TEST_F(ExtendedProtocolTest, BinaryParametersAndResults) {
  c_->parse("s", "SELECT a, b, n, a > 2 FROM t WHERE a = $1");
  c_->bind("", "s", {std::string("\0\0\0\3", 4)}, {1}, {1});
  c_->execute("");
  std::vector<PgMessage> ms = sync();
  ASSERT_EQ(types(ms), "12DCZ");
  const std::vector<std::string> row = cells(ms[2]);
  EXPECT_EQ(row[0], std::string("\0\0\0\3", 4));
  EXPECT_EQ(row[1], "x3");
  // numeric 4.50: one base-10000 digit (4) of weight 0, then 5000 after the point, scale 2.
  EXPECT_EQ(row[2], std::string("\0\2\0\0\0\0\0\2\0\4\x13\x88", 12));
  EXPECT_EQ(row[3], std::string("\1", 1));
  // A binary int4 of the wrong length is PostgreSQL's 22P03, at Bind.
  c_->bind("", "s", {std::string("\0\3", 2)}, {1});
  ms = sync();
  EXPECT_EQ(error_in(ms).code, "22P03");
  EXPECT_EQ(error_in(ms).message, "incorrect binary data format in bind parameter 1");
}

TEST_F(ExtendedProtocolTest, ErrorsSkipToSyncAndTheSessionGoesOn) {
  c_->parse("", "SELECT a FROM t WHERE a = $1");
  c_->bind("", "", {"abc"});  // not an integer: 22P02 at Bind
  c_->execute("");            // skipped
  std::vector<PgMessage> ms = sync();
  EXPECT_EQ(types(ms), "1EZ");
  EXPECT_EQ(error_in(ms).code, "22P02");
  EXPECT_EQ(error_in(ms).message, "invalid input syntax for type integer: \"abc\"");

  const std::vector<std::pair<std::function<void()>, std::string>> cases = {
      {[&] { c_->bind("", "nope", {}); }, "26000"},
      {[&] {
         c_->bind("", "", {"1", "2"});
       },
       "08P01"},
      {[&] { c_->execute("nope"); }, "34000"},
      {[&] { c_->parse("", "SELECT 1; SELECT 2"); }, "42601"},
      {[&] { c_->parse("", "SELECT $1"); }, ""},  // text, as PostgreSQL resolves it
      {[&] { c_->parse("", "SELECT 1 WHERE $1 IS NULL"); }, "42P18"},
      {[&] { c_->parse("", "SELECT * FROM missing WHERE a = $1"); }, "42P01"},
      {[&] { c_->parse("", "SELECT 1", {17}); }, "0A000"},  // bytea: tidepool has none
  };
  for (const auto& [send, code] : cases) {
    send();
    ms = sync();
    EXPECT_EQ(error_in(ms).code, code) << types(ms);
    EXPECT_EQ(ms.back().type, 'Z');
  }
  EXPECT_EQ(c_->query("SELECT count(*) FROM t").results.at(0).rows.at(0).at(0), "100");
}

TEST_F(ExtendedProtocolTest, NamedStatementsOutliveSyncAndClose) {
  c_->parse("q", "SELECT b FROM t WHERE a = $1");
  EXPECT_EQ(types(sync()), "1Z");
  for (const char* v : {"10", "20"}) {
    c_->bind("", "q", {v});
    c_->execute("");
    const std::vector<PgMessage> ms = sync();
    ASSERT_EQ(types(ms), "2DCZ");
    EXPECT_EQ(cells(ms[1]).at(0), std::string("x") + v);
  }
  c_->parse("q", "SELECT 1");  // the name is taken
  EXPECT_EQ(error_in(sync()).code, "42P05");
  c_->close('S', "q");
  c_->close('S', "q");  // closing what is not there is no error
  c_->bind("", "q", {"1"});
  const std::vector<PgMessage> ms = sync();
  EXPECT_EQ(types(ms), "33EZ");
  EXPECT_EQ(error_in(ms).code, "26000");
}

TEST_F(ExtendedProtocolTest, StatementsWithoutRowsAndEmptyQueries) {
  c_->parse("", "INSERT INTO t VALUES ($1, $2, $3)");
  c_->describe('S', "");
  c_->bind("", "", {"101", std::nullopt, "2.5"});
  c_->describe('P', "");
  c_->execute("");
  std::vector<PgMessage> ms = sync();
  ASSERT_EQ(types(ms), "1tn2nCZ");
  EXPECT_EQ(testing::get_int32(ms[1].body, 2), 23);
  EXPECT_EQ(testing::get_int32(ms[1].body, 10), 1700);
  EXPECT_EQ(ms[5].body, std::string("INSERT 0 1\0", 11));
  EXPECT_EQ(c_->query("SELECT b IS NULL, n FROM t WHERE a = 101").results.at(0).rows.at(0).at(1),
            "2.50");
  c_->parse("", "");
  c_->bind("", "", {});
  c_->execute("");
  EXPECT_EQ(types(sync()), "12IZ");
}

// COPY over the protocol: CopyInResponse, CopyData split anywhere, CopyDone; CopyFail
// ends the statement with 57014 and loads nothing; COPY TO sends CopyOutResponse,
// a CopyData per row and CopyDone.
TEST_F(ExtendedProtocolTest, CopyInAndOutOverTheProtocol) {
  c_->send_message('Q', std::string("COPY t (a, b) FROM STDIN") + '\0');
  PgMessage g = c_->read_message();
  ASSERT_EQ(g.type, 'G');
  EXPECT_EQ(g.body, std::string("\0\0\2\0\0\0\0", 7));  // text, two text columns
  c_->send_message('d', "500\tfi");
  c_->send_message('d', "ve hundred\n501\t\\N\n");
  c_->send_message('c', "");
  testing::PgReply r = c_->read_reply();
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.results.at(0).tag, "COPY 2");
  EXPECT_EQ(c_->query("SELECT b FROM t WHERE a = 500").results.at(0).rows.at(0).at(0),
            "five hundred");

  c_->send_message('Q', std::string("COPY t (a) FROM STDIN") + '\0');
  ASSERT_EQ(c_->read_message().type, 'G');
  c_->send_message('d', "600\n");
  c_->send_message('f', std::string("client gave up\0", 15));
  r = c_->read_reply();
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "57014");
  EXPECT_EQ(r.error->message, "COPY from stdin failed: client gave up");
  c_->send_message('d', "late data is dropped\n");
  EXPECT_EQ(c_->query("SELECT count(*) FROM t WHERE a >= 500").results.at(0).rows.at(0).at(0), "2");

  c_->send_message(
      'Q',
      std::string("COPY (SELECT a, b FROM t WHERE a IN (1, 501) ORDER BY a) TO STDOUT") + '\0');
  std::vector<PgMessage> ms = c_->read_until_ready();
  ASSERT_EQ(types(ms), "HddcCZ");
  EXPECT_EQ(ms[1].body, "1\tx1\n");
  EXPECT_EQ(ms[2].body, "501\t\\N\n");
}

// The Executes up to a Sync are one implicit transaction, as in PostgreSQL: an error
// in the third undoes the first two inserts; without an error the Sync commits them.
// The simple protocol's Query of several statements is one too.
TEST_F(ExtendedProtocolTest, ExecutesUpToASyncAreOneTransaction) {
  ASSERT_FALSE(c_->query("CREATE TABLE k (a int PRIMARY KEY)").error);
  c_->parse("ins", "INSERT INTO k VALUES ($1)", {23});
  for (const char* v : {"1", "2", "1"}) {
    c_->bind("", "ins", {v});
    c_->execute("");
  }
  std::vector<PgMessage> ms = sync();
  EXPECT_EQ(error_in(ms).code, "23505");
  EXPECT_EQ(ms.back().body, "I");
  EXPECT_EQ(c_->query("SELECT count(*) FROM k").results.at(0).rows.at(0).at(0), "0");
  for (const char* v : {"1", "2"}) {
    c_->bind("", "ins", {v});
    c_->execute("");
  }
  ms = sync();
  EXPECT_EQ(error_in(ms).code, "");
  EXPECT_EQ(c_->query("SELECT count(*) FROM k").results.at(0).rows.at(0).at(0), "2");
  testing::PgReply r = c_->query("INSERT INTO k VALUES (3); INSERT INTO k VALUES (1)");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, "23505");
  EXPECT_EQ(r.status, 'I');
  EXPECT_EQ(c_->query("SELECT count(*) FROM k").results.at(0).rows.at(0).at(0), "2");
}

}  // namespace
}  // namespace tp
