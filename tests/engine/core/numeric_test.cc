// numeric values read, printed, computed, converted and stored exactly as PostgreSQL 15:
// every case of pg15/numeric_cases.out (captured from the server) is recomputed here and
// must print the same text, or raise the same SQLSTATE, message and detail; each valid
// input's heap tuple must carry pageinspect's bytes, and those bytes must read back as
// the same value. pg15/numeric_errors.out checks the errors against psql's verbose
// reports as well.
#include "engine/core/numeric.h"

#include <gtest/gtest.h>

#include <random>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/error.h"
#include "engine/core/tuple_format.h"
#include "engine/core/types.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp {
namespace {

struct Case {
  std::string kind, a, b;
  std::string expected;  // "ok|result" or "err|sqlstate|message|detail"
};

std::string join_from(const std::vector<std::string>& parts, size_t from) {
  std::string s;
  for (size_t i = from; i < parts.size(); ++i) s += (i > from ? "|" : "") + parts[i];
  return s;
}

std::vector<Case> load_cases() {
  std::ifstream in(testing::source_dir() + "/tests/engine/core/pg15/numeric_cases.out");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> parts = testing::split_fields(line);
    if (parts.size() < 5) continue;
    cases.push_back({parts[0], parts[1], parts[2], join_from(parts, 3)});
  }
  return cases;
}

std::string hex(std::string_view bytes) {
  std::string out;
  char b[3];
  for (char c : bytes) {
    std::snprintf(b, sizeof b, "%02x", unsigned(uint8_t(c)));
    out += b;
  }
  return out;
}

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(char(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

int32_t typmod_of(const std::string& spec) {
  if (spec.empty()) return kNoTypmod;
  const size_t comma = spec.find(',');
  return numeric_typmod(std::stoi(spec.substr(0, comma)), std::stoi(spec.substr(comma + 1)));
}

std::string num(const std::string& text) {
  return numeric_in(text, kNoTypmod);
}

// Doubles compared by value: both sides printed with every digit.
std::string double_text(double d) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", d);
  return b;
}

// sum() by repeated addition, then avg() from it.
std::string aggregate(const std::string& list, bool integers, bool average) {
  std::vector<std::string> values;
  std::stringstream ss(list);
  for (std::string v; std::getline(ss, v, ',');)
    values.push_back(integers ? numeric_from_int64(std::stoll(v)) : num(v));
  std::string sum = values[0];
  for (size_t i = 1; i < values.size(); ++i) sum = numeric_add(sum.data(), values[i].data());
  if (!average) return numeric_out(sum.data());
  return numeric_out(numeric_avg(sum.data(), int64_t(values.size()))->data());
}

// The result of one case as tidepool computes it, as the fixture's text.
std::string compute(const Case& c) {
  using BinaryOp = std::string (*)(const char*, const char*);
  static const std::map<std::string, BinaryOp> binary = {{"add", numeric_add},
                                                         {"sub", numeric_sub},
                                                         {"mul", numeric_mul},
                                                         {"div", numeric_div},
                                                         {"mod", numeric_mod}};
  using UnaryOp = std::string (*)(const char*);
  static const std::map<std::string, UnaryOp> unary = {
      {"abs", numeric_abs},
      {"neg", numeric_neg},
      {"floor", numeric_floor},
      {"ceil", numeric_ceil},
      {"sign", numeric_sign},
      {"round", [](const char* a) { return numeric_round(a); }},
      {"trunc", [](const char* a) { return numeric_trunc(a); }}};
  if (c.kind == "in") return numeric_out(numeric_in(c.a, typmod_of(c.b)).data());
  if (c.kind == "cast")
    return numeric_out(numeric_apply_typmod(num(c.a).data(), typmod_of(c.b)).data());
  if (binary.count(c.kind)) {
    const std::string x = num(c.a), y = num(c.b);
    return numeric_out(binary.at(c.kind)(x.data(), y.data()).data());
  }
  if (c.kind == "cmp") return std::to_string(numeric_cmp(num(c.a).data(), num(c.b).data()));
  if ((c.kind == "round" || c.kind == "trunc") && !c.b.empty()) {
    const std::string x = num(c.a);
    const int scale = std::stoi(c.b);
    return numeric_out(
        (c.kind == "round" ? numeric_round(x.data(), scale) : numeric_trunc(x.data(), scale))
            .data());
  }
  if (unary.count(c.kind)) return numeric_out(unary.at(c.kind)(num(c.a).data()).data());
  if (c.kind == "int8") return std::to_string(numeric_to_int64(num(c.a).data()));
  if (c.kind == "int4") return std::to_string(numeric_to_int32(num(c.a).data()));
  if (c.kind == "int2") return std::to_string(numeric_to_int16(num(c.a).data()));
  if (c.kind == "float8") return double_text(numeric_to_double(num(c.a).data()));
  if (c.kind == "from_float8")
    return numeric_out(numeric_from_double(std::strtod(c.a.c_str(), nullptr)).data());
  if (c.kind == "from_int8") return numeric_out(numeric_from_int64(std::stoll(c.a)).data());
  if (c.kind == "avg" || c.kind == "sum") return aggregate(c.a, c.b == "int8", c.kind == "avg");
  ADD_FAILURE() << "unknown case kind " << c.kind;
  return {};
}

std::string outcome(const Case& c) {
  try {
    return "ok|" + compute(c);
  } catch (const Error& e) {
    return "err|" + e.sqlstate() + "|" + e.what() + "|" + e.detail();
  }
}

std::string expected_outcome(const Case& c) {
  if (c.kind == "float8" && c.expected.rfind("ok|", 0) == 0)
    return "ok|" + double_text(std::strtod(c.expected.c_str() + 3, nullptr));
  return c.expected;
}

class NumericTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cases_ = new std::vector<Case>(load_cases()); }
  static void TearDownTestSuite() { delete cases_; }
  static std::vector<Case>* cases_;
};
std::vector<Case>* NumericTest::cases_ = nullptr;

TEST_F(NumericTest, FixtureHoldsEveryKindOfCase) {
  std::map<std::string, int> count, errors;
  for (const Case& c : *cases_) {
    ++count[c.kind];
    if (c.expected.rfind("err|", 0) == 0) ++errors[c.kind];
  }
  EXPECT_GE(count["in"], 800);
  EXPECT_GE(count["disk"], 450);
  EXPECT_GE(count["cast"], 300);
  for (const char* op : {"add", "sub", "mul", "div", "mod", "cmp"})
    EXPECT_GE(count[op], 1296) << op;
  for (const char* f : {"abs", "neg", "floor", "ceil", "sign", "int8", "int4", "int2", "float8"})
    EXPECT_GE(count[f], 70) << f;
  EXPECT_GE(count["round"], 600);
  EXPECT_GE(count["trunc"], 600);
  EXPECT_GE(count["from_float8"], 60);
  EXPECT_GE(count["avg"], 29);
  EXPECT_GE(count["sum"], 11);
  for (const char* k : {"in", "cast", "div", "mod", "mul", "int8", "int4", "int2", "float8"})
    EXPECT_GT(errors[k], 0) << k;
}

TEST_F(NumericTest, EveryCaseMatchesPostgres) {
  int checked = 0;
  for (const Case& c : *cases_) {
    if (c.kind == "disk") continue;
    EXPECT_EQ(outcome(c), expected_outcome(c)) << c.kind << "(" << c.a << ", " << c.b << ")";
    ++checked;
  }
  EXPECT_GT(checked, 10000);
}

// t_data of `nt (x numeric)`: the value alone, packed behind a 1-byte header when its
// payload fits in 126 bytes.
TEST_F(NumericTest, StoredTuplesEqualPostgresBytes) {
  const TupleFormat format = TupleFormat::of_types({TypeId::kNumeric});
  int long_headers = 0;
  for (const Case& c : *cases_) {
    if (c.kind != "disk") continue;
    const std::string v = num(c.a);
    Datum d = pointer_datum(v.data());
    bool isnull = false;
    const uint32_t len = format.tuple_size(&d, &isnull);
    std::string tuple(len, '\0');
    format.form(&d, &isnull, Tid{0, 1}, tuple.data(), len);
    const uint8_t hoff = uint8_t(tuple[22]);
    EXPECT_EQ(hex(std::string_view(tuple).substr(hoff)), c.b) << c.a;
    long_headers += !varlena_is_short(tuple.data() + hoff);

    // Both header forms read back as the value.
    Datum back;
    format.deform(tuple.data(), len, &back, &isnull);
    EXPECT_EQ(numeric_out(datum_pointer(back)), numeric_out(v.data())) << c.a;
    const std::string pg_bytes = unhex(c.b);
    EXPECT_EQ(numeric_out(pg_bytes.data()), numeric_out(v.data())) << c.a;
    EXPECT_EQ(numeric_cmp(pg_bytes.data(), v.data()), 0) << c.a;
  }
  EXPECT_GT(long_headers, 5);
}

// numeric_errors.out: what psql printed with VERBOSITY verbose for numeric_errors.sql,
// whose line N holds the case "-- case: kind|a|b". Each becomes a Case expecting
// "err|sqlstate|message|detail".
std::vector<Case> load_psql_errors() {
  const std::string dir = testing::source_dir() + "/tests/engine/core/pg15/";
  std::map<int, Case> by_line;
  std::ifstream sql(dir + "numeric_errors.sql");
  std::string line;
  for (int n = 1; std::getline(sql, line); ++n) {
    const size_t mark = line.find("-- case: ");
    if (mark == std::string::npos || line.rfind("select", 0) != 0) continue;
    const std::vector<std::string> parts = testing::split_fields(line.substr(mark + 9));
    by_line[n] = {parts[0], parts[1], parts[2], ""};
  }
  std::vector<Case> cases;
  std::ifstream out(dir + "numeric_errors.out");
  const std::string error_mark = ": ERROR:  ";
  while (std::getline(out, line)) {
    const size_t e = line.find(error_mark);
    if (line.rfind("psql:", 0) == 0 && e != std::string::npos) {
      const int n = std::stoi(line.substr(line.rfind(':', e - 1) + 1));
      const std::string rest = line.substr(e + error_mark.size());  // "22003: message"
      Case c = by_line.at(n);
      c.expected = "err|" + rest.substr(0, 5) + "|" + rest.substr(7) + "|";
      cases.push_back(c);
    } else if (line.rfind("DETAIL:  ", 0) == 0 && !cases.empty()) {
      cases.back().expected += line.substr(9);
    }
  }
  EXPECT_EQ(cases.size(), by_line.size());
  return cases;
}

TEST(Numeric, ErrorsMatchPsqlVerboseReports) {
  const std::vector<Case> cases = load_psql_errors();
  EXPECT_GE(cases.size(), 26u);
  for (const Case& c : cases)
    EXPECT_EQ(outcome(c), c.expected) << c.kind << "(" << c.a << ", " << c.b << ")";
}

TEST(Numeric, ShortAndLongHeaders) {
  const std::string short_form = numeric_in("12.50", kNoTypmod);
  EXPECT_EQ(hex(varlena_payload(short_form.data())), "00810c008813");
  // dscale 64 no longer fits the short header: sign/dscale word, then the weight.
  const std::string long_form = numeric_in("1." + std::string(64, '0'), kNoTypmod);
  EXPECT_EQ(hex(varlena_payload(long_form.data())), "400000000100");
  EXPECT_EQ(hex(varlena_payload(numeric_in("-1e256", kNoTypmod).data())), "004040000100");
  EXPECT_EQ(hex(varlena_payload(numeric_in("NaN", kNoTypmod).data())), "00c0");
  EXPECT_EQ(hex(varlena_payload(numeric_in("-inf", kNoTypmod).data())), "00f0");
}

TEST(Numeric, OrderingAndEquality) {
  const std::vector<std::string> sorted = {"-Infinity", "-1e20",    "-2.5", "-0.0001",   "0",
                                           "1e-30",     "0.5",      "1",    "1.0000001", "99",
                                           "1e100",     "Infinity", "NaN"};
  for (size_t i = 0; i < sorted.size(); ++i) {
    for (size_t j = 0; j < sorted.size(); ++j) {
      const int want = i < j ? -1 : i > j ? 1 : 0;
      EXPECT_EQ(numeric_cmp(num(sorted[i]).data(), num(sorted[j]).data()), want)
          << sorted[i] << " vs " << sorted[j];
    }
  }
  EXPECT_TRUE(numeric_eq(num("1.0").data(), num("1.000").data()));
  EXPECT_TRUE(numeric_eq(num("-0.00").data(), num("0").data()));
  EXPECT_TRUE(numeric_eq(num("NaN").data(), num("nan").data()));
  EXPECT_FALSE(numeric_eq(num("1").data(), num("1.0000000001").data()));
  EXPECT_TRUE(numeric_is_nan(num(" NaN ").data()));
}

TEST(Numeric, NarrowIntegersAndEmptyAverage) {
  EXPECT_EQ(numeric_out(numeric_from_int32(INT32_MIN).data()), "-2147483648");
  EXPECT_EQ(numeric_out(numeric_from_int16(INT16_MAX).data()), "32767");
  EXPECT_EQ(numeric_to_int16(num("-32768.4").data()), -32768);
  EXPECT_FALSE(numeric_avg(num("0").data(), 0).has_value());
}

TEST(Numeric, ErrorsCarryPostgresText) {
  try {
    numeric_in("1234.567", numeric_typmod(5, 2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "numeric field overflow");
    EXPECT_EQ(e.detail(),
              "A field with precision 5, scale 2 must round to an absolute value less than 10^3.");
    EXPECT_EQ(e.sqlstate(), sqlstate::kNumericValueOutOfRange);
  }
  try {
    numeric_div(num("1").data(), num("0.0").data());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "division by zero");
    EXPECT_EQ(e.sqlstate(), sqlstate::kDivisionByZero);
  }
}

// sum()'s integer fast path: a value as units of 10^-dscale and back, exactly; NaN,
// the infinities and values of 10^36 units or more have none.
TEST(Numeric, ScaledUnitsRoundTrip) {
  const std::pair<const char*, std::pair<long long, int>> cases[] = {
      {"123.45", {12345, 2}}, {"0.5", {5, 1}}, {"-0.005", {-5, 3}}, {"12345.678", {12345678, 3}},
      {"1.00", {100, 2}},     {"0", {0, 0}},   {"1e-20", {1, 20}},  {"100000000", {100000000, 0}},
  };
  for (const auto& [text, want] : cases) {
    const std::string v = num(text);
    const std::optional<ScaledNumeric> x = numeric_to_scaled(v.data());
    ASSERT_TRUE(x.has_value()) << text;
    EXPECT_EQ(static_cast<long long>(x->units), want.first) << text;
    EXPECT_EQ(x->dscale, want.second) << text;
    EXPECT_EQ(numeric_out(numeric_from_scaled(x->units, x->dscale).data()), numeric_out(v.data()));
  }
  for (const char* none : {"NaN", "Infinity", "-Infinity", "1e40", "1e-40"})
    EXPECT_FALSE(numeric_to_scaled(num(none).data()).has_value()) << none;
  EXPECT_EQ(numeric_out(numeric_from_scaled(0, 2).data()), "0.00");
  EXPECT_EQ(numeric_out(numeric_from_scaled(-1, 4).data()), "-0.0001");
}

// The fast path of + - * makes the exact arithmetic's bytes (digits, weight, display
// scale) for every pair it takes, over random values of mixed sizes, signs and scales.
TEST(Numeric, ScaledArithmeticEqualsExactArithmetic) {
  std::mt19937_64 rng(7);
  auto random_value = [&]() {
    const int digits = int(rng() % 19), scale = int(rng() % 8);
    std::string t = rng() % 3 == 0 ? "-" : "";
    for (int i = 0; i < std::max(digits - scale, 0) + 1; ++i) t += char('0' + rng() % 10);
    if (scale > 0) {
      t += '.';
      for (int i = 0; i < scale; ++i) t += char('0' + (rng() % 4 == 0 ? 0 : rng() % 10));
    }
    return num(t);
  };
  int fast = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string a = random_value(), b = random_value();
    for (char op : {'+', '-', '*'}) {
      char out[kScaledNumericMaxBytes];
      const size_t n = numeric_scaled_arith(op, a.data(), b.data(), out);
      if (n == 0) continue;
      ++fast;
      const std::string exact = op == '+'   ? numeric_add(a.data(), b.data())
                                : op == '-' ? numeric_sub(a.data(), b.data())
                                            : numeric_mul(a.data(), b.data());
      ASSERT_EQ(std::string(out, n), exact)
          << numeric_out(a.data()) << " " << op << " " << numeric_out(b.data());
    }
  }
  EXPECT_GT(fast, 40000);  // most pairs take it
  char out[kScaledNumericMaxBytes];
  EXPECT_EQ(numeric_scaled_arith('+', num("NaN").data(), num("1").data(), out), 0u);
  EXPECT_EQ(numeric_scaled_arith('*', num("1e20").data(), num("1e20").data(), out), 0u);
}

// numeric to double precision: the exact fast path (a short integer scaled by a power of
// ten) gives the double strtod reads from the value's text, as PostgreSQL's numeric_float8
// does, for values across scales and weights.
TEST(Numeric, DoubleConversionEqualsReadingTheText) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const int whole = int(rng() % 18), scale = int(rng() % 24);
    std::string t = rng() % 2 == 0 ? "-" : "";
    t += std::to_string(1 + rng() % 9);
    for (int d = 0; d < whole; ++d) t += char('0' + rng() % 10);
    if (scale > 0) {
      t += '.';
      for (int d = 0; d < scale; ++d) t += char('0' + (rng() % 3 == 0 ? 0 : rng() % 10));
    }
    if (rng() % 4 == 0) t = (t[0] == '-' ? "-0." : "0.") + std::string(rng() % 12, '0') + "7";
    const std::string n = num(t);
    const std::string text = numeric_out(n.data());
    ASSERT_EQ(double_text(numeric_to_double(n.data())),
              double_text(std::strtod(text.c_str(), nullptr)))
        << text;
  }
  EXPECT_EQ(numeric_to_double(num("0").data()), 0.0);
  EXPECT_EQ(numeric_to_double(num("1e22").data()), 1e22);
  EXPECT_EQ(numeric_to_double(num("0.1").data()), 0.1);
  EXPECT_EQ(numeric_to_double(num("-2521.5").data()), -2521.5);
}

}  // namespace
}  // namespace tp
