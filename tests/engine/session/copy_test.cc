// COPY FROM STDIN / TO STDOUT (engine/session/copy.cc, copy_format.cc) through a
// CopyIo that feeds the data in chunks of a given size (a row split anywhere) and
// keeps what is written; rows read back are compared with what went in. Also NOT
// NULL and ALTER TABLE ... ADD PRIMARY KEY, which pgbench -i needs beside COPY.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;

class FakeClient : public CopyIo {
 public:
  FakeClient(std::string data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  void begin_in(sql::CopyStmt::Format, size_t columns) override { in_columns = columns; }
  bool read(std::string& chunk) override {
    if (at_ >= data_.size()) return false;
    chunk = data_.substr(at_, chunk_);
    at_ += chunk.size();
    return true;
  }
  void begin_out(sql::CopyStmt::Format, size_t columns) override { out_columns = columns; }
  void write(std::string_view d) override { out += d; }
  void end_out() override { ended = true; }

  size_t in_columns = 0, out_columns = 0;
  std::string out;
  bool ended = false;

 private:
  std::string data_;
  size_t chunk_;
  size_t at_ = 0;
};

class Copy : public ::testing::Test {
 protected:
  void SetUp() override { s_.execute("CREATE TABLE t (a int, b text, n numeric(8,2), d date)"); }
  // Runs `sql` with `data` coming in chunks of `chunk` bytes; the client afterwards.
  FakeClient run(const std::string& sql, const std::string& data = {}, size_t chunk = 7) {
    FakeClient c(data, chunk);
    s_.set_copy_io(&c);
    try {
      last_tag_ = s_.execute(sql).tag;
    } catch (...) {
      s_.set_copy_io(nullptr);
      throw;
    }
    s_.set_copy_io(nullptr);
    return c;
  }
  Error error_in(const std::string& sql, const std::string& data) {
    try {
      run(sql, data);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << sql << " did not fail";
    return Error("");
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
  std::string last_tag_;
};

TEST_F(Copy, TextFormatRoundTripsEscapesAndNulls) {
  const std::string data =
      "1\thello\t1.5\t2020-01-02\n"
      "2\t\\N\t\\N\t\\N\n"
      "3\ttab\\there\\\\ \\101\\x42\t-2\t2021-03-04\r\n"
      "\\.\n"
      "ignored after the end marker\n";
  for (size_t chunk : {size_t(1), size_t(5), size_t(4096)}) {
    s_.execute("TRUNCATE t");
    run("COPY t FROM STDIN", data, chunk);
    EXPECT_EQ(last_tag_, "COPY 3") << chunk;
  }
  EXPECT_EQ(scalar(s_, "SELECT b FROM t WHERE a = 3"), "tab\there\\ AB");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE b IS NULL AND n IS NULL AND d IS NULL"), "1");
  FakeClient out = run("COPY t TO STDOUT");
  EXPECT_EQ(last_tag_, "COPY 3");
  EXPECT_TRUE(out.ended);
  EXPECT_EQ(out.out,
            "1\thello\t1.50\t2020-01-02\n"
            "2\t\\N\t\\N\t\\N\n"
            "3\ttab\\there\\\\ AB\t-2.00\t2021-03-04\n");
}

TEST_F(Copy, CsvQuotesHeadersAndColumnLists) {
  run("COPY t (b, a) FROM STDIN WITH (FORMAT csv, HEADER MATCH)",
      "b,a\n\"q\"\"uote\",7\n\"multi\nline\",8\n,9\n\"\",10\n");
  EXPECT_EQ(last_tag_, "COPY 4");
  EXPECT_EQ(scalar(s_, "SELECT b FROM t WHERE a = 8"), "multi\nline");
  EXPECT_EQ(scalar(s_, "SELECT b IS NULL FROM t WHERE a = 9"), "t");   // unquoted empty: NULL
  EXPECT_EQ(scalar(s_, "SELECT b IS NULL FROM t WHERE a = 10"), "f");  // quoted: ''
  FakeClient out = run("COPY (SELECT a, b FROM t ORDER BY a) TO STDOUT (FORMAT csv, HEADER)");
  EXPECT_EQ(out.out, "a,b\n7,\"q\"\"uote\"\n8,\"multi\nline\"\n9,\n10,\"\"\n");
  EXPECT_EQ(error_in("COPY t (a, b) FROM STDIN (FORMAT csv, HEADER MATCH)", "a,x\n1,2\n").what(),
            std::string("column name mismatch in header line field 2: got \"x\", expected \"b\""));
}

TEST_F(Copy, BinaryFormatRoundTrips) {
  run("COPY t FROM STDIN", "1\tone\t0.25\t2000-01-01\n2\t\\N\t-12345.67\t1999-12-31\n");
  FakeClient out = run("COPY t TO STDOUT (FORMAT binary)");
  s_.execute("CREATE TABLE u (a int, b text, n numeric(8,2), d date)");
  run("COPY u FROM STDIN (FORMAT binary)", out.out, 3);
  EXPECT_EQ(last_tag_, "COPY 2");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t JOIN u ON t.a = u.a AND t.n = u.n AND t.d = u.d"),
            "2");
  EXPECT_EQ(scalar(s_, "SELECT b IS NULL FROM u WHERE a = 2"), "t");
  EXPECT_EQ(error_in("COPY u FROM STDIN (FORMAT binary)", "PGCOPY\n").what(),
            std::string("unexpected EOF in COPY data"));
}

TEST_F(Copy, ABadLineNamesItselfAndLoadsNothing) {
  run("COPY t FROM STDIN", "1\ta\t1\t2020-01-01\n");
  const Error bad = error_in("COPY t FROM STDIN", "2\tb\t2\t2020-01-01\n3\tc\tabc\t2020-01-01\n");
  EXPECT_EQ(bad.sqlstate(), "22P02");
  EXPECT_EQ(bad.context(), "COPY t, line 2, column n: \"abc\"");
  EXPECT_EQ(error_in("COPY t FROM STDIN", "4\td\n").what(),
            std::string("missing data for column \"n\""));
  EXPECT_EQ(error_in("COPY t FROM STDIN", "4\td\t1\t2020-01-01\textra\n").what(),
            std::string("extra data after last expected column"));
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "1");  // all or nothing
  // Options PostgreSQL refuses, with its errors.
  for (const auto& [sql, message] : std::vector<std::pair<std::string, std::string>>{
           {"COPY t FROM STDIN (FORMAT xml)", "COPY format \"xml\" not recognized"},
           {"COPY t FROM STDIN (DELIMITER 'ab')",
            "COPY delimiter must be a single one-byte character"},
           {"COPY t FROM STDIN (QUOTE '\"')", "COPY quote available only in CSV mode"},
           {"COPY t FROM STDIN (FORMAT binary, NULL 'x')", "cannot specify NULL in BINARY mode"},
           {"COPY t FROM STDIN (FORMAT csv, FORMAT text)", "conflicting or redundant options"},
           {"COPY t TO STDOUT (HEADER match)", "cannot use \"match\" with HEADER in COPY TO"},
           {"COPY t FROM '/etc/passwd'",
            "COPY from a file or a program is not supported by tidepool"},
           {"COPY t (a, a) FROM STDIN", "column \"a\" specified more than once"}})
    EXPECT_EQ(error_of(s_, sql), message) << sql;
  // Without a client on the other end (tidepool sql), COPY is refused by name.
  EXPECT_EQ(error_of(s_, "COPY t TO STDOUT"),
            "COPY TO STDOUT needs a client on the other end of the protocol");
}

// Fields with and without escapes (the parser reads a field without a backslash in
// one piece): an escaped delimiter is data, an empty field is '' and not NULL, the
// NULL string is compared before escapes are undone; expected values from
// PostgreSQL 15.
TEST_F(Copy, EscapedDelimitersEmptyFieldsAndNullStrings) {
  s_.execute("CREATE TABLE ct (a int, b text, c text)");
  const std::string data =
      "1\ttab\\\tinside\t\\x\n"
      "2\t\t\\N\n"
      "3\ttrail\\\t\t\n";
  for (size_t chunk : {size_t(1), size_t(3), size_t(4096)}) {
    s_.execute("TRUNCATE ct");
    run("COPY ct FROM STDIN", data, chunk);
    EXPECT_EQ(last_tag_, "COPY 3") << chunk;
  }
  const std::string q =
      "SELECT b || '|' || coalesce(c, 'NULL') || '|' || length(b) FROM ct WHERE a = ";
  EXPECT_EQ(scalar(s_, q + "1"), "tab\tinside|x|10");
  EXPECT_EQ(scalar(s_, q + "2"), "|NULL|0");
  EXPECT_EQ(scalar(s_, q + "3"), "trail\t||6");
  run("COPY ct FROM STDIN (DELIMITER '|', NULL 'nil')", "4|pipe\\|in|nil\n5|nil\\n|x\\170\n");
  EXPECT_EQ(scalar(s_, "SELECT b || '/' || coalesce(c, 'NULL') FROM ct WHERE a = 4"),
            "pipe|in/NULL");
  EXPECT_EQ(scalar(s_, "SELECT b || '/' || c FROM ct WHERE a = 5"), "nil\n/xx");
  // An escaped trailing delimiter leaves the row a field short.
  EXPECT_EQ(error_in("COPY ct FROM STDIN", "3\ttrail\\\t\n").what(),
            std::string("missing data for column \"c\""));
  const Error bad_byte = error_in("COPY ct FROM STDIN", "6\t\\xff\tx\n");
  EXPECT_EQ(bad_byte.sqlstate(), "22021");
  EXPECT_EQ(bad_byte.what(), std::string("invalid byte sequence for encoding \"UTF8\": 0xff"));
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM ct"), "5");
}

// The text format's plain lines are split sixteen bytes at a time, the others (escapes,
// bytes beyond ASCII, a CR before the newline, a line longer than what has come) a
// byte at a time. Rows of every kind, fields ending on and around the 16-byte marks,
// fed in chunks of every small size: each load reads back (COPY TO, which writes
// PostgreSQL's canonical text) as the data was written, and CSV too.
TEST_F(Copy, EveryKindOfLineReadsBackAtEveryChunkSize) {
  s_.execute("CREATE TABLE r (a int, b text, c text)");
  const std::vector<std::string> values = {"",
                                           "x",
                                           std::string(14, 'p'),
                                           std::string(15, 'q'),
                                           std::string(16, 'r'),
                                           std::string(17, 's'),
                                           "caf\xc3\xa9 \xe2\x82\xac",
                                           "tab\\there",
                                           "new\\nline",
                                           "\\\\N",
                                           "back\\\\slash",
                                           std::string(3000, 'L')};
  std::string canonical, sent;  // what COPY TO writes; what is sent (some lines end CRLF)
  int id = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      const std::string b = (i + j) % 7 == 6 ? "\\N" : values[i];
      const std::string line = std::to_string(++id) + "\t" + b + "\t" + values[j];
      canonical += line + "\n";
      sent += line + (id % 3 == 0 ? "\r\n" : "\n");
    }
  }
  for (size_t chunk : {1, 2, 3, 5, 15, 16, 17, 31, 4096, 1 << 20}) {
    s_.execute("TRUNCATE r");
    run("COPY r FROM STDIN", sent, chunk);
    EXPECT_EQ(last_tag_, "COPY " + std::to_string(id)) << chunk;
    EXPECT_EQ(run("COPY r TO STDOUT").out, canonical) << "chunk " << chunk;
  }
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM r WHERE b IS NULL"), "20");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM r WHERE c = '\\N'"), "12");
  const std::string csv = run("COPY r TO STDOUT (FORMAT csv)").out;
  for (size_t chunk : {1, 7, 16, 4096}) {
    s_.execute("TRUNCATE r");
    run("COPY r FROM STDIN (FORMAT csv)", csv, chunk);
    EXPECT_EQ(run("COPY r TO STDOUT").out, canonical) << "csv chunk " << chunk;
  }
  // A NUL byte is refused wherever it is, with its line.
  const Error nul =
      error_in("COPY r FROM STDIN", "1\tok\tok\n2\tn" + std::string(1, '\0') + "ul\tx\n");
  EXPECT_EQ(nul.sqlstate(), "22021");
  EXPECT_EQ(nul.context(), "COPY r, line 2");
}

// A COPY of many chunks: every row arrives in order, and an error far into the data,
// from the parser, a type's input function or the table, names its line and leaves
// the table as it was.
TEST_F(Copy, ALargeCopyIsParsedAheadAndFailsAtTheRightLine) {
  s_.execute("CREATE TABLE big (id int PRIMARY KEY, v text)");
  auto lines = [](int from, int to) {
    std::string data;
    for (int i = from; i <= to; ++i)
      data += std::to_string(i) + "\tvalue number " + std::to_string(i) + "\n";
    return data;
  };
  const size_t chunk = 65536;
  run("COPY big FROM STDIN", lines(1, 200000), chunk);
  EXPECT_EQ(last_tag_, "COPY 200000");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM big"), "200000");
  EXPECT_EQ(scalar(s_, "SELECT sum(id) FROM big"), "20000100000");
  EXPECT_EQ(scalar(s_, "SELECT v FROM big WHERE id = 123456"), "value number 123456");
  // A value the type refuses, at line 150,001 of 200,001.
  std::string data = lines(200001, 350000) + "oops\tx\n" + lines(350001, 400000);
  Error bad = error_in("COPY big FROM STDIN", data);
  EXPECT_EQ(bad.sqlstate(), "22P02");
  EXPECT_EQ(bad.context(), "COPY big, line 150001, column id: \"oops\"");
  // A malformed line (the parser's own error).
  data = lines(200001, 300000) + "1\n" + lines(300001, 310000);
  bad = error_in("COPY big FROM STDIN", data);
  EXPECT_EQ(bad.sqlstate(), "22P04");
  EXPECT_EQ(bad.context(), "COPY big, line 100001: \"1\"");
  // A duplicate key before a bad value further on: the first error by line is reported.
  data = lines(200001, 260000) + "5\tagain\n" + lines(260001, 300000) + "oops\tx\n";
  bad = error_in("COPY big FROM STDIN", data);
  EXPECT_EQ(bad.sqlstate(), "23505");
  EXPECT_EQ(bad.context(), "COPY big, line 60001");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM big"), "200000");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM big WHERE id > 200000"), "0");
  // The table takes rows again after the failures.
  run("COPY big FROM STDIN", lines(200001, 200010), chunk);
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM big"), "200010");
}

// Each error's CONTEXT as PostgreSQL 15 gives it (compared through psql's \\copy): the
// line's text while the line is read and its row checked, cut at 100 bytes on a
// character's start; a unique violation names the line alone, also when the index is
// built in bulk after the load and two keys repeat (the first row to repeat one is
// named); a CSV record over several lines counts them from the first record that ends.
TEST_F(Copy, ErrorContextsNameTheLineAsPostgresDoes) {
  s_.execute("CREATE TABLE k (id int NOT NULL, v text)");
  auto context = [&](const std::string& sql, const std::string& data) {
    return error_in(sql, data).context();
  };
  EXPECT_EQ(context("COPY k FROM STDIN", "1\ta\n\\N\tb\n"), "COPY k, line 2: \"\\N\tb\"");
  EXPECT_EQ(context("COPY k FROM STDIN", "1\ta\r\n\\N\tb\r\n"), "COPY k, line 2: \"\\N\tb\"");
  EXPECT_EQ(context("COPY k FROM STDIN", "1\ta\n2\n"), "COPY k, line 2: \"2\"");
  std::string e_acute;
  for (int i = 0; i < 60; ++i) e_acute += "\xc3\xa9";
  EXPECT_EQ(context("COPY k FROM STDIN", "1\t" + e_acute + "\t3\n"),
            "COPY k, line 1: \"1\t" + e_acute.substr(0, 98) + "...\"");
  EXPECT_EQ(context("COPY k FROM STDIN", "zz" + e_acute + "\tb\n"),
            "COPY k, line 1, column id: \"zz" + e_acute.substr(0, 98) + "...\"");
  EXPECT_EQ(context("COPY k FROM STDIN", "1\t\\xff\n"), "COPY k, line 1: \"1\t\\xff\"");
  EXPECT_EQ(context("COPY k FROM STDIN", "1\ta\n2\tb\xff\n"), "COPY k, line 2");
  EXPECT_EQ(context("COPY k FROM STDIN (FORMAT csv)", "1,a\n2,\"b\n"),
            "COPY k, line 3: \"2,\"b\n\"");
  EXPECT_EQ(context("COPY k FROM STDIN (FORMAT csv)", "\"zz\",\"x\ny\"\n"),
            "COPY k, line 1, column id: \"zz\"");
  EXPECT_EQ(context("COPY k FROM STDIN (FORMAT csv)", "1,\"x\ny\"\n,\"p\nq\nr\"\n"),
            "COPY k, line 4: \",\"p\nq\nr\"\"");
  EXPECT_EQ(context("COPY k FROM STDIN (FORMAT csv)", "1,a\r\n2,\"x\r\ny\"\r\n,b\r\n"),
            "COPY k, line 4: \",b\"");
  // Unique violations: row by row into a table with rows, in bulk into an empty one.
  s_.execute("CREATE TABLE kk (id int PRIMARY KEY, v text)");
  s_.execute("INSERT INTO kk VALUES (7, 'x')");
  EXPECT_EQ(context("COPY kk FROM STDIN (FORMAT csv)", "1,a\n7,\"p\nq\"\n"), "COPY kk, line 3");
  s_.execute("CREATE TABLE ke (id int PRIMARY KEY, v text)");
  Error dup = error_in("COPY ke FROM STDIN", "5\ta\n3\tb\n5\tc\n3\td\n");
  EXPECT_EQ(dup.detail(), "Key (id)=(5) already exists.");
  EXPECT_EQ(dup.context(), "COPY ke, line 3");
  EXPECT_EQ(context("COPY ke FROM STDIN (FORMAT csv, HEADER)", "h\n1,\"p\nq\"\n2,x\n1,y\n"),
            "COPY ke, line 5");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM ke"), "0");
  EXPECT_EQ(error_of(s_, "INSERT INTO ke VALUES (5, 'a'), (3, 'b'), (5, 'c'), (3, 'd')"),
            "duplicate key value violates unique constraint \"ke_pkey\"");
  try {
    s_.execute("INSERT INTO ke VALUES (5, 'a'), (3, 'b'), (5, 'c'), (3, 'd')");
  } catch (const Error& e) {
    EXPECT_EQ(e.detail(), "Key (id)=(5) already exists.");
    EXPECT_EQ(e.context(), "");
  }
}

TEST_F(Copy, NotNullAndAddPrimaryKey) {
  s_.execute("CREATE TABLE k (id int NOT NULL, v text)");
  EXPECT_EQ(error_of(s_, "INSERT INTO k VALUES (NULL, 'x')"),
            "null value in column \"id\" of relation \"k\" violates not-null constraint");
  const Error bad = error_in("COPY k FROM STDIN", "1\ta\n\\N\tb\n");
  EXPECT_EQ(bad.sqlstate(), "23502");
  s_.execute("INSERT INTO k VALUES (1, NULL), (2, 'b'), (2, 'c')");
  EXPECT_EQ(error_of(s_, "ALTER TABLE k ADD PRIMARY KEY (v)"),
            "column \"v\" of relation \"k\" contains null values");
  EXPECT_NE(
      error_of(s_, "ALTER TABLE k ADD PRIMARY KEY (id)").find("could not create unique index"),
      std::string::npos);
  s_.execute("TRUNCATE k");
  s_.execute("INSERT INTO k VALUES (1, 'a'), (2, 'b')");
  s_.execute("ALTER TABLE k ADD PRIMARY KEY (id)");
  EXPECT_EQ(error_of(s_, "ALTER TABLE k ADD PRIMARY KEY (v)"),
            "multiple primary keys for table \"k\" are not allowed");
  EXPECT_EQ(error_of(s_, "INSERT INTO k VALUES (2, 'again')"),
            "duplicate key value violates unique constraint \"k_pkey\"");
  // An index holds at most 8 key columns (tidepool's B-tree), by CREATE INDEX or a primary key.
  std::string cols, names;
  for (int i = 1; i <= 9; ++i) {
    cols += (i > 1 ? ", c" : "c") + std::to_string(i) + " int";
    names += (i > 1 ? ", c" : "c") + std::to_string(i);
  }
  s_.execute("CREATE TABLE wide (" + cols + ")");
  EXPECT_EQ(error_of(s_, "CREATE INDEX ON wide (" + names + ")"),
            "cannot use more than 8 columns in an index");
  EXPECT_EQ(error_of(s_, "ALTER TABLE wide ADD PRIMARY KEY (" + names + ")"),
            "cannot use more than 8 columns in an index");
  // PostgreSQL 15 plans this so too: the index build counted the table's two rows.
  EXPECT_EQ(scalar(s_, "EXPLAIN SELECT v FROM k WHERE id = 2"),
            "Seq Scan on k  (cost=0.00..1.02 rows=1 width=32)");
}

}  // namespace
}  // namespace tp
