// Issue #10: a few thousand statements built from tidepool's grammar, valid and
// broken pieces mixed, run through one Session. Nothing may crash, and every
// refusal is a tp::Error with a message. Deterministic: a fixed-seed generator.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

// splitmix64: the same statements on every platform.
class Gen {
 public:
  explicit Gen(uint64_t seed) : x_(seed) {}
  uint64_t next() {
    uint64_t z = (x_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return size_t(next() % n); }
  bool chance(int percent) { return below(100) < size_t(percent); }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  uint64_t x_;
};

const std::vector<std::string> kTables = {"t", "u", "\"Q t\"", "\"x \"", "missing"};
const std::vector<std::string> kColumns = {"a", "b", "\"C c\"", "nope", "t.a"};
const std::vector<std::string> kNumbers = {"0",
                                           "1",
                                           "-1",
                                           "42",
                                           "2147483647",
                                           "2147483648",
                                           "-2147483648",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "1.5",
                                           "-0.5",
                                           "1e3",
                                           "1e400",
                                           "1e1001",
                                           "99999999999999999999999999",
                                           "0.0000001",
                                           "1_000",
                                           "1__0",
                                           "1e",
                                           "0x10",
                                           ".5"};
// Series bounds: small, or so large that the series is refused (never billions of rows).
const std::vector<std::string> kBounds = {
    "-3",  "0",   "1",   "10", "300", "9223372036854775807", "-9223372036854775808",
    "1.5", "'1'", "NULL"};
const std::vector<std::string> kOps = {"+",        "-",         "*",      "/",       "%",  "=",
                                       "<>",       "<",         "<=",     ">",       ">=", "::int",
                                       "::bigint", "::numeric", "::text", "::float8"};
const std::vector<std::string> kJunk = {
    "(",    ")",    ",",   ";",   "'",  "\"",     "/*",   "*/",    "--",    "\xff",
    "\xc3", "\"\"", "NOT", "AND", "OR", "SELECT", "FROM", "WHERE", "LIMIT", "ORDER BY",
    "::",   "[",    "]",   ".",   "$1", "\\",     "é",    "''"};

class StatementGen {
 public:
  explicit StatementGen(uint64_t seed) : g_(seed) {}

  std::string expr(int depth = 0) {
    if (depth > 4 || g_.chance(35)) return atom();
    switch (g_.below(8)) {
      case 0:
        return "(" + expr(depth + 1) + ")";
      case 1:
        return "NOT " + expr(depth + 1);
      case 2:
        return expr(depth + 1) + " " + g_.pick(kOps) + " " + atom();
      case 3:
        return expr(depth + 1) + (g_.chance(50) ? " AND " : " OR ") + expr(depth + 1);
      case 4:
        return atom() + " BETWEEN " + atom() + " AND " + atom();
      case 5:
        return atom() + (g_.chance(30) ? " NOT" : "") + " IN (" + atom() + ", " + atom() + ")";
      case 6:
        return g_.pick(std::vector<std::string>{"abs", "random", "count", "sum", "avg", "min",
                                                "max", "pg_size_pretty", "setseed", "nosuch"}) +
               "(" + (g_.chance(70) ? expr(depth + 1) : "") + ")";
      default:
        return "-" + atom();
    }
  }

  std::string atom() {
    switch (g_.below(5)) {
      case 0:
      case 1:
        return g_.pick(kNumbers);
      case 2:
        return g_.pick(kColumns);
      case 3:
        return g_.pick(std::vector<std::string>{"true", "false", "NULL", "'12'", "'x'", "''",
                                                "random()", "'a''b'"});
      default:
        return "(" + g_.pick(kNumbers) + " " + g_.pick(kOps) + " " + g_.pick(kNumbers) + ")";
    }
  }

  std::string statement() {
    const std::string& t = g_.pick(kTables);
    switch (g_.below(15)) {
      case 0:
        return "CREATE TABLE " + t + " (a int, b bigint" + (g_.chance(30) ? ", \"C c\" int" : "") +
               ")" + (g_.chance(20) ? " WITH (fillfactor=" + g_.pick(kNumbers) + ")" : "");
      case 1:
      case 2:
        return "INSERT INTO " + t + " VALUES (" + expr() + ", " + expr() + ")";
      case 3:
        return "INSERT INTO " + t + " SELECT i, " + expr() + " FROM generate_series(" +
               g_.pick(kBounds) + ", " + std::to_string(g_.below(300)) + ") s(i)" +
               (g_.chance(30) ? " ORDER BY random()" : "");
      case 4:
      case 5:
      case 6:
        return "SELECT " + expr() + ", " + g_.pick(kColumns) + " FROM " + t + " WHERE " + expr() +
               (g_.chance(40) ? " ORDER BY " + g_.pick(kColumns) + (g_.chance(50) ? " DESC" : "")
                              : "") +
               (g_.chance(40) ? " LIMIT " + g_.pick(kNumbers) : "");
      case 7:
        return "SELECT " + expr() + (g_.chance(30) ? " LIMIT " + g_.pick(kNumbers) : "");
      case 8:
        return std::string("EXPLAIN ") + (g_.chance(50) ? "(ANALYZE, BUFFERS, COSTS off) " : "") +
               "SELECT count(*) FROM " + t + " WHERE " + expr();
      case 9:
        return "CREATE " + std::string(g_.chance(30) ? "UNIQUE " : "") + "INDEX ON " + t + " (" +
               g_.pick(kColumns) + ")";
      case 10:
        return g_.pick(std::vector<std::string>{"ANALYZE", "VACUUM ANALYZE ", "TRUNCATE "}) +
               (g_.chance(70) ? t : "");
      case 11:
        return "SET " +
               g_.pick(std::vector<std::string>{"work_mem", "random_seed", "max_stack_depth",
                                                "enable_seqscan", "nosuch"}) +
               " = " + g_.pick(kNumbers);
      case 12:
        return "SELECT * FROM generate_series(" + g_.pick(kBounds) + ", " + g_.pick(kBounds) +
               (g_.chance(40) ? ", " + g_.pick(kBounds) : "") + ") LIMIT 5";
      case 13:
        return g_.pick(std::vector<std::string>{
            "BEGIN", "COMMIT", "ROLLBACK", "END", "ABORT", "START TRANSACTION READ ONLY",
            "BEGIN ISOLATION LEVEL SERIALIZABLE", "ROLLBACK TO SAVEPOINT s"});
      default:
        return "SELECT " + std::string(g_.below(3000), '(') + "1" +
               std::string(g_.below(3000), ')');
    }
  }

  // A statement, sometimes damaged: cut short, a junk piece spliced in, or a byte changed.
  std::string maybe_broken() {
    std::string s = statement();
    switch (g_.below(6)) {
      case 0:
        return s.substr(0, g_.below(s.size() + 1));
      case 1: {
        size_t at = g_.below(s.size() + 1);
        return s.substr(0, at) + " " + g_.pick(kJunk) + " " + s.substr(at);
      }
      case 2:
        if (!s.empty()) s[g_.below(s.size())] = char(g_.below(256));
        return s;
      default:
        return s;
    }
  }

 private:
  Gen g_;
};

TEST(GeneratedStatements, ThousandsRunWithoutCrashAndEveryRefusalIsAnError) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (a int, b bigint)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 200) s(i)");
  StatementGen gen(20261201);
  int ok = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string sql = gen.maybe_broken();
    try {
      s.execute(sql);
      ++ok;
    } catch (const Error& e) {
      EXPECT_STRNE(e.what(), "") << sql;
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a tp::Error: " << e.what() << "\n  statement: " << sql;
    }
  }
  // Both kinds occur: the generator exercises the grammar, not only its errors.
  EXPECT_GT(ok, 150);
  EXPECT_GT(refused, 300);
  s.execute("ROLLBACK");  // the last BEGIN may have left a block open
  s.execute("RESET ALL");
}

}  // namespace
}  // namespace tp
