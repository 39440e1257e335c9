// The catalog file: JSON with a format version, names stored exactly, every
// field validated on read, the version-1 text format still read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/storage/catalog.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

Catalog sample_catalog() {
  Catalog c;
  c.version = 7;
  c.next_oid = 16400;
  RelationEntry t;
  t.oid = 16384;
  t.name = "t";
  t.relnumber = 16390;
  t.fillfactor = 10;
  t.pages = 45455;
  t.rows = 1000000;
  t.columns = {{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}};
  c.relations.push_back(t);
  RelationEntry i;
  i.oid = 16385;
  i.name = "t_a_idx";
  i.kind = RelKind::kIndex;
  i.relnumber = 16385;
  i.table_oid = 16384;
  i.key_columns = {0, 1};
  i.unique = true;
  c.relations.push_back(i);
  return c;
}

// The message of the tp::Error Catalog::parse throws ("" if it accepts the text).
std::string parse_error(const std::string& text) {
  try {
    Catalog::parse(text, "DIR/catalog");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// sample_catalog() as JSON with `from` replaced by `to` (once).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = sample_catalog().serialize();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(Catalog, JsonWithAFormatVersionRoundTrips) {
  Catalog c = sample_catalog();
  std::string text = c.serialize();
  EXPECT_NE(text.find("\"format\": \"tidepool-catalog\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"format_version\": 2"), std::string::npos) << text;
  Catalog back = Catalog::parse(text, "x");
  EXPECT_EQ(back.serialize(), text);
  EXPECT_EQ(back.version, 7u);
  EXPECT_EQ(back.find("t")->pages, 45455u);
  EXPECT_EQ(back.find("t")->columns[1].type, ColumnType::kInt8);
  EXPECT_EQ(back.find("t_a_idx")->key_columns, (std::vector<int>{0, 1}));
  EXPECT_TRUE(back.find("t_a_idx")->unique);
}

TEST(Catalog, NamesAreStoredExactly) {
  Catalog c;
  const std::vector<std::string> names = {"a b",         "tab\there", "new\nline", "x ",
                                          " x",          "x",         "quote\"d",  "back\\slash",
                                          "caf\xC3\xA9", "=;,{}[]"};
  for (const std::string& n : names) {
    RelationEntry t;
    t.oid = c.allocate_oid();
    t.relnumber = t.oid;
    t.name = n;
    t.columns = {{n, ColumnType::kInt4}};
    c.relations.push_back(t);
  }
  Catalog back = Catalog::parse(c.serialize(), "x");
  ASSERT_EQ(back.relations.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(back.relations[i].name, names[i]);
    EXPECT_EQ(back.relations[i].columns[0].name, names[i]);
  }
}

TEST(Catalog, InvalidUtf8NameFailsTheWriteNotTheFile) {
  Catalog c = sample_catalog();
  c.relations[0].name = "bad\xFFname";
  try {
    c.serialize();
    FAIL() << "an invalid UTF-8 name was written";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write the catalog: relation name \"bad\\xFFname\" is not valid UTF-8 "
              "(invalid byte \\xFF at byte 4)");
  }
}

// Whichever layer refuses it (the lexer, or serialize() at commit), a name
// that is not UTF-8 fails its statement and leaves a catalog that reads back.
TEST(Catalog, InvalidUtf8NameThroughSqlLeavesTheCatalogReadable) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE ok (a int)");
    EXPECT_NE(error_of(s, "CREATE TABLE \"bad\xFF\" (a int)"), "");
    EXPECT_NE(error_of(s, "CREATE TABLE t2 (\"\xC3\" int)"), "");
    EXPECT_EQ(s.catalog().relations.size(), 1u);
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(s.catalog().relations.size(), 1u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.data() + "/base"), {}), 1);
}

// A table's parallel_workers option is written only when set; a catalog without the
// field (written before the option existed) reads as unset.
TEST(Catalog, ParallelWorkersIsOptional) {
  Catalog c = sample_catalog();
  std::string unset = c.serialize();
  EXPECT_EQ(unset.find("parallel_workers"), std::string::npos) << unset;
  EXPECT_EQ(Catalog::parse(unset, "x").find("t")->parallel_workers, -1);
  c.relations[0].parallel_workers = 8;
  std::string set = c.serialize();
  EXPECT_NE(set.find("\"parallel_workers\": 8"), std::string::npos) << set;
  EXPECT_EQ(Catalog::parse(set, "x").find("t")->parallel_workers, 8);
  c.relations[0].parallel_workers = 0;
  EXPECT_EQ(Catalog::parse(c.serialize(), "x").find("t")->parallel_workers, 0);
  std::string bad = set;
  bad.replace(bad.find("\"parallel_workers\": 8"), 23, "\"parallel_workers\": 1025");
  EXPECT_NE(parse_error(bad).find("\"parallel_workers\" is 1025, not an integer from 0 to 1024"),
            std::string::npos)
      << parse_error(bad);
}

// A table's relallvisible (the visibility map's count) is written only when not 0; a
// catalog without it (written before the map existed) reads as 0.
TEST(Catalog, RelallvisibleIsOptional) {
  Catalog c = sample_catalog();
  std::string none = c.serialize();
  EXPECT_EQ(none.find("relallvisible"), std::string::npos) << none;
  EXPECT_EQ(Catalog::parse(none, "x").find("t")->all_visible, 0u);
  c.relations[0].all_visible = 45000;
  std::string set = c.serialize();
  EXPECT_NE(set.find("\"relallvisible\": 45000"), std::string::npos) << set;
  EXPECT_EQ(Catalog::parse(set, "x").find("t")->all_visible, 45000u);
  // An index has no visibility map: the key is not one of an index's.
  const std::string on_index =
      edited("\"table_oid\": 16384", "\"relallvisible\": 3, \"table_oid\": 16384");
  EXPECT_NE(parse_error(on_index).find("relallvisible"), std::string::npos)
      << parse_error(on_index);
}

// An index's deduplicate_items is written only when given; absent reads as unset.
TEST(Catalog, DeduplicateItemsIsOptional) {
  Catalog c = sample_catalog();
  RelationEntry* index = nullptr;
  for (RelationEntry& r : c.relations)
    if (!r.is_table()) index = &r;
  ASSERT_NE(index, nullptr);
  std::string unset = c.serialize();
  EXPECT_EQ(unset.find("deduplicate_items"), std::string::npos) << unset;
  EXPECT_FALSE(Catalog::parse(unset, "x").find(index->name)->deduplicate_items.has_value());
  index->deduplicate_items = false;
  std::string set = c.serialize();
  EXPECT_NE(set.find("\"deduplicate_items\": false"), std::string::npos) << set;
  EXPECT_EQ(Catalog::parse(set, "x").find(index->name)->deduplicate_items,
            std::optional<bool>(false));
  std::string bad = set;
  bad.replace(bad.find("\"deduplicate_items\": false"), 26, "\"deduplicate_items\": 3");
  EXPECT_NE(parse_error(bad).find("deduplicate_items"), std::string::npos) << parse_error(bad);
}

TEST(Catalog, SessionWithQuotedNamesSurvivesReopen) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE \"a b\" (\"x \" int, x int)");
    s.execute("INSERT INTO \"a b\" VALUES (1, 2)");
    s.execute("CREATE INDEX \"i\tj\" ON \"a b\" (\"x \")");
  }
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(scalar(s, "SELECT \"x \" FROM \"a b\""), "1");
  EXPECT_EQ(scalar(s, "SELECT x FROM \"a b\""), "2");
  EXPECT_NE(s.catalog().find("i\tj"), nullptr);
}

TEST(Catalog, DamageIsNamedPrecisely) {
  struct Case {
    std::string text;
    std::string error;  // after `catalog file "DIR/catalog" is damaged: `
  };
  const Case cases[] = {
      {"", "syntax error while parsing value"},
      {"{\"format\": ", "parse error at line 1, column 12"},
      {edited("\"pages\": 45455", "\"pages\": 99999999999"),
       "relation 1 \"pages\" is 99999999999, not an integer from 0 to 4294967295"},
      {edited("\"pages\": 45455", "\"pages\": -1"),
       "relation 1 \"pages\" is -1, not an integer from 0 to 4294967295"},
      {edited("\"pages\": 45455", "\"pages\": 1.5"),
       "relation 1 \"pages\" is 1.5, not an integer from 0 to 4294967295"},
      {edited("\"pages\": 45455", "\"pages\": \"45455\""),
       "relation 1 \"pages\" is \"45455\", not an integer from 0 to 4294967295"},
      {edited("\"oid\": 16384", "\"oid\": 1e30"), "relation 1 \"oid\" is 1e+30, not an integer"},
      // Too large for a double: the library's out_of_range, not a parse_error (fuzzer finding).
      {edited("\"oid\": 16384", "\"oid\": 1e400"), "number overflow parsing '1e400'"},
      {edited("\"fillfactor\": 10", "\"fillfactor\": 5"), "\"fillfactor\" is 5"},
      {edited("\"kind\": \"table\"", "\"kind\": \"view\""),
       "relation 1 has an unknown kind \"view\""},
      {edited("\"type\": \"int8\"", "\"type\": \"int8\", \"typmod\": 5"),
       "relation 1 column 2 has a type modifier for type \"int8\", which takes none"},
      {edited("\"type\": \"int8\"", "\"type\": \"point\""),
       "relation 1 column 2 has an unknown column type \"point\""},
      {edited("\"key_columns\": [\n    0,\n    1\n   ]", "\"key_columns\": [0, 2]"),
       "relation 2 (\"t_a_idx\"): key column 2 is out of range (table \"t\" has 2 columns)"},
      {edited("\"table_oid\": 16384", "\"table_oid\": 16385"),
       "relation 2 (\"t_a_idx\"): table_oid 16385 is not a table of this catalog"},
      {edited("\"name\": \"t_a_idx\"", "\"name\": \"t\""),
       "relation 2 (\"t\") has the same name as relation 1 (\"t\")"},
      {edited("\"oid\": 16385", "\"oid\": 16384"),
       "relation 2 (\"t_a_idx\") has the same oid as relation 1 (\"t\")"},
      {edited("\"relnumber\": 16385", "\"relnumber\": 16390"),
       "relation 2 (\"t_a_idx\") has the same relnumber as relation 1 (\"t\")"},
      {edited("\"rows\": 1000000", "\"rows\": 1000000, \"rows\": 3"),
       "the key \"rows\" appears twice in one object"},
      {edited("\"rows\": 1000000", "\"rows\": 1000000, \"colour\": 3"),
       "relation 1 has an unknown field \"colour\""},
      {edited("\"format_version\": 2", "\"format_version\": 3"),
       "format_version 3 is not one this tidepool reads (2)"},
      {edited("\"next_oid\": 16400", "\"next_oid\": 16386"),
       "relation 1 (\"t\"): oid 16384 / relnumber 16390 not below next_oid 16386"},
      {edited("\"name\": \"a\"", "\"name\": \"\""), "a column name is empty"},
      {edited("\"name\": \"t\"", "\"name\": \"t\", \"stats\": \"junk\""),
       "relation 1 (\"t\"): statistics: "},
      {"[1, 2]", "the top-level value is not a JSON object"},
      {edited("\"name\": \"t\"", "\"name\": \"t\xFF\""), "ill-formed UTF-8 byte"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::string error = parse_error(c.text);
    EXPECT_EQ(error.rfind("catalog file \"DIR/catalog\" is damaged: ", 0), 0u) << error;
    EXPECT_NE(error.find(c.error), std::string::npos) << error;
  }
}

// Every prefix of a catalog, and every single-byte change of it, is either
// accepted (a valid catalog) or a clear error: never a crash (ASan would say).
TEST(Catalog, CutOrFlippedBytesNeverCrash) {
  const std::string text = sample_catalog().serialize();
  for (size_t n = 0; n < text.size(); ++n) (void)parse_error(text.substr(0, n));
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'\0', '9', '"', '}', '\xFF', '-'}) {
      std::string t = text;
      t[i] = c;
      (void)parse_error(t);
    }
  }
}

// Deep nesting must not overflow the stack while parsing or freeing the value.
TEST(Catalog, DeepNestingIsDamageNotACrash) {
  const size_t depth = 200000;
  std::string text = "{\"relations\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  EXPECT_NE(parse_error(text).find("is damaged"), std::string::npos);
  text = std::string(depth, '[');
  EXPECT_NE(parse_error(text).find("is damaged"), std::string::npos);
}

const char* kVersion1Catalog =
    "tidepool-catalog 1\n"
    "version 5\n"
    "next_oid 16388\n"
    "relation oid=16384 kind=r name=t relnumber=16386 fillfactor=10 pages=0 rows=0\n"
    "column a int4\n"
    "column b int8\n"
    "end\n"
    "relation oid=16385 kind=i name=t_a_idx relnumber=16385 fillfactor=100 pages=0 rows=0 "
    "table=16384 unique=1 primary=0 keys=0,1\n"
    "end\n"
    "eof\n";

TEST(Catalog, Version1TextIsStillRead) {
  Catalog c = Catalog::parse(kVersion1Catalog, "x");
  EXPECT_EQ(c.version, 5u);
  EXPECT_EQ(c.next_oid, 16388u);
  ASSERT_EQ(c.relations.size(), 2u);
  EXPECT_EQ(c.find("t")->relnumber, 16386u);
  EXPECT_EQ(c.find("t")->fillfactor, 10);
  EXPECT_EQ(c.find("t")->columns[1].type, ColumnType::kInt8);
  EXPECT_EQ(c.find("t_a_idx")->key_columns, (std::vector<int>{0, 1}));
  EXPECT_TRUE(c.find("t_a_idx")->unique);
}

// Older lexers took any bytes in a quoted name: such a directory still opens,
// and it is the commit that refuses the name (until that relation is dropped).
TEST(Catalog, Version1NameThatIsNotUtf8OpensAndFailsOnlyTheWrite) {
  std::string text = kVersion1Catalog;
  text.replace(text.find("name=t "), 7, "name=t\xFF ");
  Catalog c = Catalog::parse(text, "x");
  EXPECT_EQ(c.relations[0].name, "t\xFF");
  EXPECT_THROW(c.serialize(), Error);
  c.remove(c.relations[1].oid);
  c.remove(c.relations[0].oid);
  EXPECT_NO_THROW(c.serialize());
}

TEST(Catalog, Version1DamageIsNamed) {
  auto damaged = [](const std::string& from, const std::string& to) {
    std::string text = kVersion1Catalog;
    text.replace(text.find(from), from.size(), to);
    return parse_error(text);
  };
  EXPECT_NE(damaged("fillfactor=10", "fillfactor=99999999999999")
                .find("line 4: \"99999999999999\" "
                      "is not a valid fillfactor"),
            std::string::npos);
  EXPECT_NE(damaged("pages=0 rows=0\ncolumn", "pages=-3 rows=0\ncolumn")
                .find("\"-3\" is not a valid pages"),
            std::string::npos);
  EXPECT_NE(damaged("keys=0,1", "keys=0,7").find("key column 7 is out of range"),
            std::string::npos);
  EXPECT_NE(damaged("kind=i", "kind=x").find("unknown relation kind \"x\""), std::string::npos);
  EXPECT_NE(damaged("eof\n", "").find("file is truncated"), std::string::npos);
}

// An existing (version-1) data directory opens, and its next commit rewrites the
// catalog as JSON.
TEST(Catalog, Version1DirectoryIsRewrittenAsJsonAtTheNextCommit) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b bigint)");
    s.execute("INSERT INTO t VALUES (1, 2), (3, 4)");
    s.execute("CREATE UNIQUE INDEX t_a_idx ON t (a, b)");
  }
  // Write the same catalog in the old format, with the old layout (no marker).
  Catalog now = Catalog::parse(
      [&] {
        std::ifstream in(tmp.data() + "/catalog");
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
      }(),
      "x");
  std::ostringstream v1;
  v1 << "tidepool-catalog 1\nversion " << now.version << "\nnext_oid " << now.next_oid << "\n";
  for (const RelationEntry& r : now.relations) {
    v1 << "relation oid=" << r.oid << " kind=" << char(r.kind) << " name=" << r.name
       << " relnumber=" << r.relnumber << " fillfactor=" << r.fillfactor << " pages=" << r.pages
       << " rows=" << r.rows;
    if (!r.is_table())
      v1 << " table=" << r.table_oid << " unique=" << r.unique << " primary=" << r.primary
         << " keys=0,1";
    v1 << "\n";
    for (const Column& c : r.columns)
      v1 << "column " << c.name << " " << (c.type == ColumnType::kInt4 ? "int4" : "int8") << "\n";
    v1 << "end\n";
  }
  v1 << "eof\n";
  std::ofstream(tmp.data() + "/catalog") << v1.str();
  std::remove((tmp.data() + "/TIDEPOOL_DATADIR").c_str());
  {
    Session s(testing::options_for(tmp.data()));
    EXPECT_EQ(scalar(s, "SELECT sum(b) FROM t"), "6");
    EXPECT_EQ(scalar(s, "SELECT tp_verify('t_a_idx')").rfind("index \"t_a_idx\" is valid", 0), 0u);
    s.execute("INSERT INTO t VALUES (5, 6)");
  }
  std::ifstream in(tmp.data() + "/catalog");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "{");
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "3");
}

}  // namespace
}  // namespace tp
