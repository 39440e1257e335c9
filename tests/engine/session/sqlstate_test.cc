// Issue 13: every error a client can cause carries PostgreSQL's SQLSTATE, which
// the server sends in ErrorResponse (psycopg2 maps it to an exception class,
// psql shows it with \set VERBOSITY verbose). One statement per family of throw
// sites: the lexer, the parser, the evaluator, the planner, DDL, INSERT,
// settings, the buffer pool.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/core/interrupts.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

struct Failing {
  std::string sql;
  std::string code;
};

// The SQLSTATE and message of the tp::Error the statement throws.
std::pair<std::string, std::string> failure_of(Session& s, const std::string& sql) {
  try {
    s.execute(sql);
  } catch (const Error& e) {
    return {e.sqlstate(), e.what()};
  }
  return {"(no error)", ""};
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string columns(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? ", c" : "c") + std::to_string(i) + " int";
  return out;
}

TEST(Sqlstate, EachFamilyOfErrorsCarriesPostgresCode) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (id int PRIMARY KEY, v int)");
  s.execute("INSERT INTO t VALUES (1, 10), (2, 10)");
  s.execute("CREATE TABLE vc (a varchar(2))");
  const std::vector<Failing> cases = {
      // Lexer and parser.
      {"SELEC 1", "42601"},
      {"SELECT 'abc", "42601"},
      {"SELECT 1 FROM t LIMIT -1", "2201W"},
      {"CREATE TABLE p (a int PRIMARY KEY, b int PRIMARY KEY)", "42P16"},
      {"SELECT * FROM t WHERE v = 1 OR v IN (SELECT u.v FROM t u WHERE u.v = t.v)", "0A000"},
      {"SELECT * FROM t, t", "42712"},
      {"SELECT v FROM t, t u", "42702"},
      {"EXPLAIN (COSTS maybe) SELECT * FROM t", "42601"},
      {"INSERT INTO vc VALUES ('abc')", "22001"},
      {"INSERT INTO vc VALUES (1.5::numeric(2,1))", "22001"},
      {"INSERT INTO vc VALUES (true)", "22001"},
      {"INSERT INTO t VALUES ('abc')", "22P02"},
      {"INSERT INTO t VALUES (now())", "42804"},
      {"SELECT '2020-01-01 10:00 Europe/Paris'::timestamptz", "0A000"},
      {"SET TimeZone = 'Europe/Paris'", "22023"},
      {"INSERT INTO t VALUES (date '2020-01-01')", "42804"},
      {"SELECT 1::nosuchtype", "42704"},
      // Evaluator.
      {"SELECT 1 / 0", "22012"},
      {"SELECT 2147483647 + 1", "22003"},
      {"SELECT 'abc'::int", "22P02"},
      {"SELECT true::bigint", "42846"},
      {"SELECT nosuchfunction(1)", "42883"},
      {"SELECT 1 + true", "42883"},
      {"SELECT 1 AND 2", "42804"},
      {"SELECT 1 WHERE 1", "42804"},
      {"SELECT setseed(2)", "22003"},
      // Names: relations, columns, indexes.
      {"SELECT * FROM nosuch", "42P01"},
      {"INSERT INTO nosuch VALUES (1)", "42P01"},
      {"SELECT nosuch FROM t", "42703"},
      {"SELECT count(*) FROM t WHERE nosuch = 1", "42703"},
      {"CREATE TABLE t (a int)", "42P07"},
      {"CREATE INDEX t_pkey ON t (v)", "42P07"},
      {"CREATE TABLE d (a int, a int)", "42701"},
      {"DROP INDEX nosuch", "42704"},
      {"DROP TABLE t_pkey", "42809"},
      {"SELECT * FROM t_pkey", "42809"},
      {"DROP INDEX t_pkey", "2BP01"},
      {"CREATE TABLE w (" + columns(1601) + ")", "54011"},
      // Queries the planner refuses.
      {"SELECT id, count(*) FROM t", "42803"},
      {"SELECT id FROM t ORDER BY 5", "42P10"},
      {"SELECT count(*) FROM t WHERE id = ANY (SELECT 1)", "0A000"},
      {"SELECT " + repeat("(", 10000) + "1" + repeat(")", 10000), "54001"},
      // Writes.
      {"INSERT INTO t VALUES (1, 11)", "23505"},
      {"CREATE UNIQUE INDEX t_v ON t (v)", "23505"},
      {"INSERT INTO t (v) VALUES (3)", "23502"},
      {"INSERT INTO t VALUES (3, 'x')", "22P02"},
      {"INSERT INTO t VALUES (3, true)", "42804"},
      {"INSERT INTO t VALUES (1, 2, 3)", "42601"},
      {"INSERT INTO t SELECT i, i FROM generate_series(1, 10, 0) s(i)", "22023"},
      // Settings and storage options.
      {"SET nosuch_parameter = 1", "42704"},
      {"SET enable_seqscan = maybe", "22023"},
      {"SET random_page_cost = -1", "22023"},
      {"ALTER TABLE t SET (fillfactor = 5)", "22023"},
      {"ALTER TABLE t SET (nosuch = 5)", "22023"},
      {"VACUUM (VERBOSE) t", "0A000"},
      {"SELECT tp_verify('t')", "42809"},
      // The system views.
      {"SELECT nosuch FROM pg_stat_activity", "42703"},
      {"SELECT pg_backend_pid(1)", "42883"},
  };
  for (const Failing& c : cases) {
    auto [code, message] = failure_of(s, c.sql);
    EXPECT_EQ(code, c.code) << c.sql.substr(0, 80) << " -> " << message;
  }
  // None of them changed the table.
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "2");
}

// VACUUM inside BEGIN is refused (25001), and the block is then aborted (25P02)
// until ROLLBACK, which undoes its INSERT, as PostgreSQL's.
TEST(Sqlstate, TransactionBlockStates) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int)");
  s.execute("BEGIN");
  s.execute("INSERT INTO t VALUES (1)");
  EXPECT_EQ(failure_of(s, "VACUUM t").first, "25001");
  EXPECT_EQ(failure_of(s, "SELECT count(*) FROM t").first, "25P02");
  s.execute("ROLLBACK");
  EXPECT_EQ(testing::scalar(s, "SELECT count(*) FROM t"), "0");
}

TEST(Sqlstate, QueryCanceledIs57014) {
  EXPECT_EQ(QueryCanceled().sqlstate(), "57014");
}

// A page whose checksum does not match is PostgreSQL's data_corrupted (XX001).
TEST(Sqlstate, CorruptPageIsDataCorrupted) {
  TempDir tmp;
  std::string file;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    file = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
  }
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4000);
    const std::string junk(64, '\x5a');
    f.write(junk.data(), std::streamsize(junk.size()));
  }
  Session s(testing::options_for(tmp.data()));
  auto [code, message] = failure_of(s, "SELECT count(*) FROM t");
  EXPECT_EQ(code, "XX001") << message;
  EXPECT_NE(message.find("invalid page in block 0"), std::string::npos) << message;
}

}  // namespace
}  // namespace tp
