// Type names against PostgreSQL 15.18 (pg15/type_names.out): every spelling of the
// table in pg15/type_names.sql resolves to PostgreSQL's type OID, atttypmod and
// format_type text; every statement PostgreSQL refuses is refused with its message,
// SQLSTATE and position. Types PostgreSQL has and tidepool does not store are refused
// by name; CREATE TABLE refuses the types tables cannot hold yet, leaving no table.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "engine/sql/lexer.h"
#include "engine/sql/parser.h"
#include "engine/sql/value.h"
#include "tests/support/paths.h"
#include "tests/support/test_util.h"

namespace tp::sql {
namespace {

std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream in(testing::source_dir() + "/tests/engine/sql/pg15/" + name);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct PgError {
  std::string sqlstate, message;
  int position = 0;
};

// The errors of pg15/type_names.out by the .sql line that raised them.
std::map<int, PgError> pg_errors(const std::vector<std::string>& out) {
  std::map<int, PgError> errors;
  const std::string prefix = "psql:type_names.sql:";
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t at = out[i].find(": ERROR:  ");
    if (!out[i].starts_with(prefix) || at == std::string::npos) continue;
    const int line = std::stoi(out[i].substr(prefix.size()));
    PgError e;
    e.sqlstate = out[i].substr(at + 10, 5);
    e.message = out[i].substr(at + 17);
    if (i + 2 < out.size() && out[i + 1].starts_with("LINE 1: "))
      e.position = int(out[i + 2].find('^')) - int(std::string("LINE 1: ").size()) + 1;
    errors[line] = e;
  }
  return errors;
}

TEST(TypeNames, EverySpellingResolvesAsPostgres) {
  const std::vector<std::string> sql = lines_of("type_names.sql");
  const std::vector<std::string> out = lines_of("type_names.out");
  std::string create;
  for (const std::string& l : sql)
    if (l.starts_with("create table tn")) create = l;
  ASSERT_FALSE(create.empty());
  const auto ct = std::get<CreateTable>(parse_statement(create));
  std::vector<std::string> pg;  // format_type|oid|typmod, one per column
  for (const std::string& l : out)
    if (std::count(l.begin(), l.end(), '|') == 2 && !l.starts_with("psql:")) pg.push_back(l);
  ASSERT_EQ(pg.size(), ct.columns.size());
  ASSERT_GE(pg.size(), 60u);
  for (size_t i = 0; i < pg.size(); ++i) {
    const TypeRef& t = ct.columns[i].type;
    EXPECT_EQ(format_type(t.id, t.typmod) + "|" + std::to_string(uint32_t(t.id)) + "|" +
                  std::to_string(t.typmod),
              pg[i])
        << "column " << ct.columns[i].name;
  }
}

TEST(TypeNames, RefusedAsPostgresRefusesThem) {
  const std::vector<std::string> sql = lines_of("type_names.sql");
  const std::map<int, PgError> errors = pg_errors(lines_of("type_names.out"));
  int checked = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const std::string& stmt = sql[i];
    if (!stmt.starts_with("create table te") && !stmt.starts_with("select '")) continue;
    auto e = errors.find(int(i + 1));
    ASSERT_NE(e, errors.end()) << "no PostgreSQL error for line " << i + 1 << ": " << stmt;
    try {
      parse_statement(stmt);
      ADD_FAILURE() << "accepted: " << stmt;
    } catch (const Error& got) {
      EXPECT_EQ(got.what(), e->second.message) << stmt;
      EXPECT_EQ(got.sqlstate(), e->second.sqlstate) << stmt;
      EXPECT_EQ(got.position(), e->second.position) << stmt;
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST(TypeNames, TypesTidepoolDoesNotStoreAreRefusedByName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"create table t (a json)", "type \"json\" is not supported"},
      {"create table t (a time)", "type \"time\" is not supported"},
      {"create table t (a timetz)", "type \"timetz\" is not supported"},
      {"create table t (a bit(3))", "type \"bit\" is not supported"},
      {"create table t (a \"char\")", "type \"char\" is not supported"},
      {"create table t (a uuid)", "type \"uuid\" is not supported"},
      {"create table t (a int[])", "arrays are not supported as column or cast types"},
      {"create table t (a text array)", "arrays are not supported as column or cast types"},
  };
  for (const auto& [stmt, message] : cases) {
    try {
      parse_statement(stmt);
      ADD_FAILURE() << "accepted: " << stmt;
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), message) << stmt;
      EXPECT_EQ(e.sqlstate(), sqlstate::kFeatureNotSupported) << stmt;
    }
  }
}

TEST(TypeNames, CreateTableKeepsEachTypeWithItsModifier) {
  testing::TempDir dir;
  {
    Session s(testing::options_for(dir.data()));
    s.execute(
        "create table t (a int, b text, c varchar(10), d numeric(15,2), e char, "
        "f timestamp(3), g interval day to second(2), h \"int8\", i float4)");
  }
  Session s(testing::options_for(dir.data()));  // as the catalog kept them
  std::vector<std::string> types;
  for (const Column& c : s.catalog().find("t")->columns)
    types.push_back(format_type(c.type, c.typmod));
  EXPECT_EQ(types,
            (std::vector<std::string>{"integer", "text", "character varying(10)", "numeric(15,2)",
                                      "character(1)", "timestamp(3) without time zone",
                                      "interval day to second(2)", "bigint", "real"}));
  EXPECT_EQ(testing::scalar(s, "select count(*) from t"), "0");
}

TEST(TypeNames, PrecisionAboveSixIsCutWithPostgresWarning) {
  std::vector<std::string> notices;
  const auto ct = std::get<CreateTable>(
      parse_statement("create table w (a timestamp(9), b interval second(8))", &notices));
  EXPECT_EQ(ct.columns[0].type.typmod, 6);
  EXPECT_EQ(format_type(ct.columns[1].type.id, ct.columns[1].type.typmod), "interval second(6)");
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0],
            std::string(kParseWarning) + "TIMESTAMP(9) precision reduced to maximum allowed, 6");
  EXPECT_EQ(notices[1],
            std::string(kParseWarning) + "INTERVAL(8) precision reduced to maximum allowed, 6");
}

TEST(TypeNames, CastsToTypesWithoutValuesAreRefusedByName) {
  // The parser reads them (cast_type names the type); the constant evaluator, which has
  // no values of these types, refuses them by name where the type is written.
  struct Case {
    std::string stmt, message;
    int position;
  };
  for (const Case& c : std::vector<Case>{
           {"select '1'::interval(9)", "casts to interval(6) are not supported yet", 13},
           {"select '1'::numeric(5,2)", "casts to numeric(5,2) are not supported yet", 13},
           {"select 'a'::varchar(3)", "casts to character varying(3) are not supported yet", 13},
           {"select 1::smallint", "casts to smallint are not supported yet", 11},
           {"select cast(null as date)", "casts to date are not supported yet", 21}}) {
    const auto st = std::get<Select>(parse_statement(c.stmt));
    const Expr& cast = *st.targets[0].expr;
    ASSERT_EQ(cast.kind, ExprKind::kCast) << c.stmt;
    EXPECT_EQ(cast.name, "") << c.stmt;
    EXPECT_EQ(cast.cast_type.position, c.position) << c.stmt;
    try {
      EvalContext ctx;
      evaluate(cast, ctx);
      ADD_FAILURE() << "evaluated: " << c.stmt;
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), c.message);
      EXPECT_EQ(e.sqlstate(), sqlstate::kFeatureNotSupported);
      EXPECT_EQ(e.position(), c.position) << c.stmt;
      EXPECT_EQ(e.hint(),
                "tidepool computes integer, bigint, double precision, numeric and text values "
                "so far.");
    }
  }
  // what casts did before: real is computed as double precision, named as PostgreSQL names it
  const auto st =
      std::get<Select>(parse_statement("select '1.5'::real, 2::int4, 3::double precision"));
  EXPECT_EQ(default_column_name(*st.targets[0].expr), "float4");
  EXPECT_EQ(default_column_name(*st.targets[1].expr), "int4");
  EXPECT_EQ(default_column_name(*st.targets[2].expr), "float8");
}

}  // namespace
}  // namespace tp::sql
