// The catalog tables drivers and tools read (engine/session/catalog_views.h), as views
// over tidepool's catalog and settings with PostgreSQL 15's column names and OIDs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using Rows = std::vector<std::vector<std::string>>;

class CatalogViews : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE t (a int PRIMARY KEY, b varchar(10) NOT NULL, n numeric(6,2))");
    s_.execute("CREATE INDEX t_bn ON t (b, n)");
    s_.execute("INSERT INTO t SELECT i, 'x' || i, i FROM generate_series(1, 1000) s(i)");
  }
  Rows rows(const std::string& sql) { return s_.execute(sql).rows; }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(CatalogViews, ClassAttributeAndIndexDescribeTheTables) {
  EXPECT_EQ(rows("SELECT relname, relkind, relnamespace, relnatts, relhasindex, reltuples "
                 "FROM pg_catalog.pg_class ORDER BY relname"),
            (Rows{{"t", "r", "2200", "3", "t", "-1"},
                  {"t_bn", "i", "2200", "2", "f", "1000"},
                  {"t_pkey", "i", "2200", "1", "f", "1000"}}));
  s_.execute("ANALYZE t");
  EXPECT_EQ(rows("SELECT reltuples FROM pg_class WHERE relname = 't'"), (Rows{{"1000"}}));
  const std::string t_oid = testing::scalar(s_, "SELECT oid FROM pg_class WHERE relname = 't'");
  EXPECT_EQ(rows("SELECT attname, atttypid, attnum, atttypmod, attnotnull FROM pg_attribute "
                 "WHERE attrelid = " +
                 t_oid + " ORDER BY attnum"),
            (Rows{{"a", "23", "1", "-1", "t"},
                  {"b", "1043", "2", "14", "t"},
                  {"n", "1700", "3", "393222", "f"}}));
  EXPECT_EQ(rows("SELECT indrelid = " + t_oid +
                 ", indnatts, indisunique, indisprimary, indkey "
                 "FROM pg_index ORDER BY indnatts"),
            (Rows{{"t", "1", "t", "t", "1"}, {"t", "2", "f", "f", "2 3"}}));
}

// ::regclass and ::regtype (pg_catalog-qualified too): in a catalog view's WHERE the
// OID they name, as a driver's `WHERE oid = $1::regclass` needs; elsewhere the name
// PostgreSQL prints. Unknown names get PostgreSQL's errors.
TEST_F(CatalogViews, RegclassAndRegtypeCompareAsOids) {
  EXPECT_EQ(rows("SELECT relname, relkind FROM pg_catalog.pg_class "
                 "WHERE oid = 't_pkey'::pg_catalog.regclass"),
            (Rows{{"t_pkey", "i"}}));
  EXPECT_EQ(rows("SELECT attname FROM pg_attribute WHERE attrelid = 't'::regclass AND "
                 "atttypid = 'character varying'::regtype"),
            (Rows{{"b"}}));
  EXPECT_EQ(rows("SELECT typname FROM pg_type WHERE oid IN ('int4'::regtype, "
                 "'pg_catalog.numeric'::regtype, 25::regtype) ORDER BY oid"),
            (Rows{{"int4"}, {"text"}, {"numeric"}}));
  EXPECT_EQ(rows("SELECT 'int8'::regtype, 'timestamp with time zone'::pg_catalog.regtype, "
                 "'t'::regclass, '7'::pg_catalog.int4 + 1"),
            (Rows{{"bigint", "timestamp with time zone", "t", "8"}}));
  EXPECT_EQ(testing::error_of(s_, "SELECT 'nosuch'::regtype"), "type \"nosuch\" does not exist");
  // An OID no type has prints as its number, as in PostgreSQL; a number as text is an OID.
  EXPECT_EQ(rows("SELECT 99999::regtype, '1700'::regtype"), (Rows{{"99999", "numeric"}}));
  EXPECT_EQ(rows("SELECT typname FROM pg_type WHERE oid = '23'::regtype"), (Rows{{"int4"}}));
  EXPECT_EQ(testing::error_of(s_, "SELECT relname FROM pg_class WHERE oid = 'u'::regclass"),
            "relation \"u\" does not exist");
  // Joins over the views are not built: the error says so.
  try {
    s_.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace");
    ADD_FAILURE() << "a join over system views ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "42P01");
    EXPECT_NE(e.hint().find("joins and subqueries over them are not supported"), std::string::npos);
  }
}

TEST_F(CatalogViews, TypesNamespacesDatabaseAndSettings) {
  EXPECT_EQ(rows("SELECT oid, typname, typlen, typbyval FROM pg_type "
                 "WHERE typname IN ('int4', 'text', 'numeric', 'timestamptz') ORDER BY oid"),
            (Rows{{"23", "int4", "4", "t"},
                  {"25", "text", "-1", "f"},
                  {"1184", "timestamptz", "8", "t"},
                  {"1700", "numeric", "-1", "f"}}));
  EXPECT_EQ(rows("SELECT oid, nspname FROM pg_namespace ORDER BY oid"),
            (Rows{{"11", "pg_catalog"}, {"2200", "public"}}));
  s_.set_client_names("bob", "lab");
  EXPECT_EQ(rows("SELECT datname FROM pg_database"), (Rows{{"lab"}}));
  s_.execute("SET work_mem = '8MB'");
  EXPECT_EQ(rows("SELECT setting, unit, vartype, min_val, boot_val FROM pg_settings "
                 "WHERE name = 'work_mem'"),
            (Rows{{"8192", "kB", "integer", "64", "4096"}}));
  EXPECT_EQ(rows("SELECT setting, enumvals FROM pg_settings WHERE name = 'plan_cache_mode'"),
            (Rows{{"auto", "{auto,force_custom_plan,force_generic_plan}"}}));
  // public.pg_class names a table, as in PostgreSQL.
  EXPECT_EQ(testing::error_of(s_, "SELECT * FROM public.pg_class"),
            "relation \"public.pg_class\" does not exist");
}

}  // namespace
}  // namespace tp
