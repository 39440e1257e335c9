// The catalog tables drivers and tools read (engine/session/catalog_views.h), as views
// over tidepool's catalog and settings with PostgreSQL 15's column names and OIDs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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
