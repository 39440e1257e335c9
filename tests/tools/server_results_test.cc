// The Query string helpers of tools/server/results.h: split_query's parts and
// their offsets (the plain-statement shortcut and the scanner must agree), and
// names_pg_catalog in any case.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/server/results.h"

namespace tp::server {
namespace {

std::vector<std::string> texts(const std::vector<QueryPart>& parts) {
  std::vector<std::string> out;
  for (const QueryPart& p : parts) out.push_back(p.text);
  return out;
}

TEST(SplitQuery, PlainStatementIsOnePartWithoutItsSemicolon) {
  EXPECT_EQ(texts(split_query("SELECT 1")), std::vector<std::string>{"SELECT 1"});
  EXPECT_EQ(texts(split_query("SELECT a FROM t WHERE a = 7;")),
            std::vector<std::string>{"SELECT a FROM t WHERE a = 7"});
  EXPECT_EQ(texts(split_query("SELECT 1 ;  \n")), std::vector<std::string>{"SELECT 1 "});
  EXPECT_EQ(split_query("SELECT 1;")[0].offset, 0u);
}

TEST(SplitQuery, EmptyAndBlankQueriesHaveNoPart) {
  EXPECT_TRUE(split_query("").empty());
  EXPECT_TRUE(split_query("   \n").empty());
  EXPECT_TRUE(split_query(" ; ").empty());
  EXPECT_TRUE(split_query("-- nothing\n").empty());
  EXPECT_TRUE(split_query("/* nothing */;").empty());
}

TEST(SplitQuery, SeveralStatementsKeepTheirOffsets) {
  const std::vector<QueryPart> parts = split_query("SELECT 1; SELECT 2;SELECT 3");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].text, "SELECT 1");
  EXPECT_EQ(parts[1].text, " SELECT 2");
  EXPECT_EQ(parts[1].offset, 9u);
  EXPECT_EQ(parts[2].text, "SELECT 3");
  EXPECT_EQ(parts[2].offset, 19u);
}

TEST(SplitQuery, SemicolonsInsideStringsAndCommentsDoNotSplit) {
  EXPECT_EQ(texts(split_query("SELECT ';' ; SELECT 2")),
            (std::vector<std::string>{"SELECT ';' ", " SELECT 2"}));
  EXPECT_EQ(texts(split_query("SELECT 1 -- a; b\n")),
            std::vector<std::string>{"SELECT 1 -- a; b\n"});
  EXPECT_EQ(texts(split_query("SELECT /* ; */ 1;")), std::vector<std::string>{"SELECT /* ; */ 1"});
  EXPECT_EQ(texts(split_query("SELECT 1; -- trailing\n")), std::vector<std::string>{"SELECT 1"});
}

TEST(NamesPgCatalog, AnyCaseBeforeADot) {
  EXPECT_TRUE(names_pg_catalog("SELECT * FROM pg_catalog.pg_class"));
  EXPECT_TRUE(names_pg_catalog("select PG_Catalog.pg_type.oid"));
  EXPECT_FALSE(names_pg_catalog("SELECT * FROM pg_class"));
  EXPECT_FALSE(names_pg_catalog("SELECT 'pg_catalog'"));
  EXPECT_FALSE(names_pg_catalog(".pg_catalog"));
  EXPECT_FALSE(names_pg_catalog("g_catalog.x"));
}

}  // namespace
}  // namespace tp::server
