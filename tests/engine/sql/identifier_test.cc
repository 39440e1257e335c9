// Issue #10: identifiers as PostgreSQL makes them (quoted names kept exactly,
// unquoted ones folded, 63-byte truncation with its notice, UTF-8 checked) and
// printed back as its quote_identifier does.
#include <gtest/gtest.h>

#include "engine/sql/identifier.h"
#include "engine/sql/lexer.h"
#include "tests/support/test_util.h"
#include "tools/shell/psql_format.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

std::string lex_error(const std::string& text) {
  try {
    sql::tokenize(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Identifiers, QuotedKeepEveryCharacterUnquotedFoldAsciiOnly) {
  auto t =
      sql::tokenize("\"a b\" \"x \" \" x\" \"a\"\"b\" \"tab\there\" FooBar \"FooBar\" Ünïcode");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].text, "a b");
  EXPECT_EQ(t[1].text, "x ");
  EXPECT_EQ(t[2].text, " x");
  EXPECT_EQ(t[3].text, "a\"b");
  EXPECT_EQ(t[4].text, "tab\there");
  EXPECT_EQ(t[5].text, "foobar");
  EXPECT_EQ(t[6].text, "FooBar");
  EXPECT_EQ(t[7].text, "Ünïcode");  // PostgreSQL folds only A-Z in UTF-8
  EXPECT_FALSE(t[7].quoted);
  EXPECT_EQ(lex_error("SELECT \"\""), "zero-length delimited identifier");
  EXPECT_EQ(lex_error("SELECT \"abc"), "unterminated quoted identifier at or near \"\"abc\"");
}

TEST(Identifiers, LongNamesAreCutTo63BytesWithPostgresNotice) {
  std::vector<std::string> notices;
  std::string long_name(70, 'a');
  auto t = sql::tokenize(long_name, &notices);
  EXPECT_EQ(t[0].text, std::string(63, 'a'));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0], "identifier \"" + long_name + "\" will be truncated to \"" +
                            std::string(63, 'a') + "\"");
  // 62 bytes then a 2-byte character: the cut does not split it.
  notices.clear();
  std::string utf = std::string(62, 'b') + "é" + "c";
  t = sql::tokenize("\"" + utf + "\"", &notices);
  EXPECT_EQ(t[0].text, std::string(62, 'b'));
  EXPECT_EQ(notices.size(), 1u);
  notices.clear();
  t = sql::tokenize(std::string(63, 'c'), &notices);  // exactly 63: kept, no notice
  EXPECT_EQ(t[0].text.size(), 63u);
  EXPECT_TRUE(notices.empty());
}

TEST(Identifiers, InvalidUtf8IsRefusedAsPostgresDoes) {
  EXPECT_EQ(lex_error("SELECT '\xc3\x28'"),
            "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
  EXPECT_EQ(lex_error("SELECT 1 \xff"), "invalid byte sequence for encoding \"UTF8\": 0xff");
  EXPECT_EQ(lex_error("SELECT \"\x80\""), "invalid byte sequence for encoding \"UTF8\": 0x80");
  EXPECT_EQ(lex_error("SELECT '\xe2\x82"),
            "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82");
  EXPECT_EQ(lex_error("SELECT '\xc0\xaf'"),
            "invalid byte sequence for encoding \"UTF8\": 0xc0 0xaf");
  EXPECT_EQ(lex_error("SELECT '\xed\xa0\x80'"),
            "invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80");
  EXPECT_EQ(lex_error(std::string("SELECT 'a\0b'", 12)),
            "invalid byte sequence for encoding \"UTF8\": 0x00");
  EXPECT_EQ(lex_error("SELECT '€ 😀 ü'"), "");
}

TEST(Identifiers, QuoteIdentifierAsPostgres) {
  EXPECT_EQ(sql::quote_identifier("a"), "a");
  EXPECT_EQ(sql::quote_identifier("_x1"), "_x1");
  EXPECT_EQ(sql::quote_identifier("A"), "\"A\"");
  EXPECT_EQ(sql::quote_identifier("a b"), "\"a b\"");
  EXPECT_EQ(sql::quote_identifier("1x"), "\"1x\"");
  EXPECT_EQ(sql::quote_identifier("x\"y"), "\"x\"\"y\"");
  EXPECT_EQ(sql::quote_identifier("select"), "\"select\"");
  EXPECT_EQ(sql::quote_identifier("int"), "\"int\"");
  EXPECT_EQ(sql::quote_identifier("left"), "\"left\"");
  EXPECT_EQ(sql::quote_identifier("name"), "name");  // unreserved keyword
  EXPECT_EQ(sql::quote_identifier("ü"), "\"ü\"");
}

TEST(Identifiers, PsqlMetaCommandArgumentFoldsOutsideQuotes) {
  EXPECT_EQ(psql_object_name(" \"a b\""), "a b");
  EXPECT_EQ(psql_object_name(" T"), "t");
  EXPECT_EQ(psql_object_name("\"A\"\"B\"  "), "A\"B");
  EXPECT_EQ(psql_object_name(" \"x \""), "x ");
}

TEST(Identifiers, ExactNamesThroughCreateInsertSelectExplain) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE \"a b\" (\"my col\" int, \"X\" int)");
  s.execute("INSERT INTO \"a b\" VALUES (1, 2), (3, 4)");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM \"a b\" WHERE \"my col\" > 1"), "1");
  ResultSet r = s.execute("SELECT \"X\" FROM \"a b\" ORDER BY \"X\" DESC");
  EXPECT_EQ(r.columns, std::vector<std::string>{"X"});
  EXPECT_EQ(r.rows[0][0], "4");
  EXPECT_EQ(error_of(s, "SELECT x FROM \"a b\""), "column \"x\" does not exist");
  EXPECT_EQ(error_of(s, "SELECT * FROM \"a b \""), "relation \"a b \" does not exist");
  EXPECT_EQ(error_of(s, "SELECT * FROM a_b"), "relation \"a_b\" does not exist");

  // "x " and "x" are two relations.
  s.execute("CREATE TABLE \"x \" (a int)");
  s.execute("CREATE TABLE \"x\" (a int)");
  s.execute("INSERT INTO \"x \" VALUES (1), (2)");
  s.execute("INSERT INTO x VALUES (7)");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM \"x \""), "2");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM \"x\""), "1");
  EXPECT_NE(s.catalog().find("x "), nullptr);
  EXPECT_NE(s.catalog().find("x"), nullptr);

  // EXPLAIN quotes as PostgreSQL's quote_identifier does.
  std::string plan;
  for (auto& row : s.execute("EXPLAIN (COSTS off) SELECT \"X\" FROM \"a b\" WHERE \"my col\" > 1 "
                             "ORDER BY \"X\"")
                       .rows)
    plan += row[0] + "\n";
  EXPECT_EQ(plan,
            "Sort\n"
            "  Sort Key: \"X\"\n"
            "  ->  Seq Scan on \"a b\"\n"
            "        Filter: (\"my col\" > 1)\n");
  // The index build records the table's 2 rows in 1 page: sorting them is cheaper, as in
  // PostgreSQL; with seq scans off the index's name shows.
  s.execute("CREATE INDEX \"Ix\" ON \"a b\" (\"X\")");
  const std::string query = "EXPLAIN (COSTS off) SELECT \"X\" FROM \"a b\" ORDER BY \"X\" LIMIT 1";
  plan.clear();
  for (auto& row : s.execute(query).rows) plan += row[0] + "\n";
  EXPECT_EQ(plan,
            "Limit\n"
            "  ->  Sort\n"
            "        Sort Key: \"X\"\n"
            "        ->  Seq Scan on \"a b\"\n");
  s.execute("SET enable_seqscan = off");
  plan.clear();
  for (auto& row : s.execute(query).rows) plan += row[0] + "\n";
  EXPECT_EQ(plan,
            "Limit\n"
            "  ->  Index Only Scan using \"Ix\" on \"a b\"\n");
}

TEST(Identifiers, ExactNamesSurviveAReopen) {
  TempDir tmp;
  const std::string weird = "tab\there \"q\" new\nline é";
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE \"x \" (\" a\" int)");
    s.execute("CREATE TABLE \"x\" (a int)");
    s.execute("CREATE TABLE \"tab\there \"\"q\"\" new\nline é\" (a int)");
    s.execute("INSERT INTO \"x \" VALUES (1), (2)");
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(scalar(s, "SELECT count(\" a\") FROM \"x \""), "2");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM x"), "0");
  ASSERT_NE(s.catalog().find(weird), nullptr);
  EXPECT_EQ(s.catalog().find("x ")->columns[0].name, " a");
}

TEST(Identifiers, LongNameIsTruncatedWithNoticeThroughTheSession) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  std::string name(70, 'n');
  ResultSet r = s.execute("CREATE TABLE " + name + " (a int)");
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0],
            "identifier \"" + name + "\" will be truncated to \"" + std::string(63, 'n') + "\"");
  EXPECT_NE(s.catalog().find(std::string(63, 'n')), nullptr);
  s.execute("INSERT INTO " + std::string(80, 'n') + " VALUES (1)");  // the same table
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM " + std::string(63, 'n')), "1");
  EXPECT_EQ(error_of(s, "SELECT '\xff'"), "invalid byte sequence for encoding \"UTF8\": 0xff");
}

// A generated index name fits in 63 bytes as PostgreSQL's makeObjectName cuts
// it (the longer part first, never the label), so DROP INDEX can name it.
TEST(Identifiers, GeneratedIndexNamesFitIn63Bytes) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  const std::string table(60, 't'), column(20, 'c');
  s.execute("CREATE TABLE " + table + " (" + column + " int, b int)");
  s.execute("CREATE INDEX ON " + table + " (" + column + ")");
  s.execute("CREATE INDEX ON " + table + " (" + column + ")");
  s.execute("CREATE INDEX ON " + table + " (b)");
  // 63 - len("_") - len("_idx") = 58 bytes for both names, the longer cut first.
  const std::string first = std::string(38, 't') + "_" + column + "_idx";
  const std::string second = std::string(37, 't') + "_" + column + "_idx1";
  const std::string third = std::string(57, 't') + "_b_idx";
  for (const std::string& name : {first, second, third}) {
    SCOPED_TRACE(name);
    EXPECT_LE(name.size(), 63u);
    ASSERT_NE(s.catalog().find(name), nullptr);
  }
  s.execute("DROP INDEX " + second);
  EXPECT_EQ(s.catalog().find(second), nullptr);
  // A multibyte character is never split: "x" and 31 two-byte letters (63 bytes)
  // cut to 58 bytes keep "x" and 28 letters (57 bytes).
  std::string wide = "x";
  for (int i = 0; i < 31; ++i) wide += "\xc3\xa9";
  s.execute("CREATE TABLE " + wide + " (a int PRIMARY KEY)");
  std::string cut = "x";
  for (int i = 0; i < 28; ++i) cut += "\xc3\xa9";
  EXPECT_NE(s.catalog().find(cut + "_pkey"), nullptr);
}

}  // namespace
}  // namespace tp
