// Type input, output, arithmetic, comparison and string functions against what
// PostgreSQL 15.18 printed for the same operands: pg15/type_io_*.out, one case a line
// (see the .sql beside each for how they were made). Every case is run through the tidepool
// function and its text or error (SQLSTATE and message) must equal PostgreSQL's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/type_io.h"
#include "engine/core/types.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp {
namespace {

struct Case {
  std::string kind;
  std::vector<std::string> args;
  std::string expected;  // ok:<text>, null, or err:<sqlstate>:<message>
  int line = 0;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  ADD_FAILURE() << "bad hex digit " << c;
  return 0;
}

// The fixtures write '\' as \\ and '|' and control bytes as \xHH.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
    } else if (s[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (s[i + 1] == 'x' && i + 3 < s.size()) {
      out += char(hex_value(s[i + 2]) * 16 + hex_value(s[i + 3]));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string from_hex(std::string_view s) {
  std::string out;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    out += char(hex_value(s[i]) * 16 + hex_value(s[i + 1]));
  return out;
}

std::vector<Case> load(const std::string& file) {
  std::ifstream in(testing::source_dir() + "/tests/engine/core/pg15/" + file);
  EXPECT_TRUE(in) << "cannot open " << file;
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::vector<std::string> fields = testing::split_fields(line);
    Case c;
    c.kind = fields.front();
    c.line = number;
    // Operands and results have their '|' escaped, so the fields split cleanly: the kind,
    // the operands, the result.
    c.expected = unescape(fields.back());
    for (size_t i = 1; i + 1 < fields.size(); ++i)
      c.args.push_back(c.kind == "utf8" ? from_hex(fields[i]) : unescape(fields[i]));
    cases.push_back(std::move(c));
  }
  return cases;
}

// Runs `f`, rendering its value or its tp::Error the way the fixtures do.
std::string outcome(const std::function<std::string()>& f) {
  try {
    return "ok:" + f();
  } catch (const Error& e) {
    return "err:" + e.sqlstate() + ":" + e.what();
  }
}

using Handler = std::function<std::string(const std::vector<std::string>&)>;

// Checks every case whose kind has a handler; returns how many ran per kind, and fails
// on a case of a kind nobody handles, so a fixture line cannot go unchecked.
std::map<std::string, int> check_all(const std::vector<Case>& cases,
                                     const std::map<std::string, Handler>& handlers) {
  std::map<std::string, int> counts;
  for (const Case& c : cases) {
    auto h = handlers.find(c.kind);
    if (h == handlers.end()) {
      ADD_FAILURE() << "no handler for " << c.kind << " (line " << c.line << ")";
      continue;
    }
    const std::string got = outcome([&] { return h->second(c.args); });
    std::string shown;
    for (const auto& a : c.args) shown += "[" + a + "] ";
    EXPECT_EQ(got, c.expected) << c.kind << " " << shown << "(fixture line " << c.line << ")";
    ++counts[c.kind];
  }
  return counts;
}

std::string sign_text(int v) {
  return v < 0 ? "-1" : v > 0 ? "1" : "0";
}

int32_t as_int(const std::string& s) {
  return int4_in(s);
}

template <typename T>
void add_integer_handlers(std::map<std::string, Handler>& h, const std::string& prefix,
                          T (*parse)(std::string_view)) {
  auto binary = [&h, &prefix, parse](const char* op, T (*fn)(T, T)) {
    h[prefix + op] = [parse, fn](const std::vector<std::string>& a) {
      return int8_out(fn(parse(a[0]), parse(a[1])));
    };
  };
  binary("pl", &int_add<T>);
  binary("mi", &int_sub<T>);
  binary("mul", &int_mul<T>);
  binary("div", &int_div<T>);
  binary("mod", &int_mod<T>);
  h[prefix + "in"] = [parse](const std::vector<std::string>& a) { return int8_out(parse(a[0])); };
  h[prefix + "um"] = [parse](const std::vector<std::string>& a) {
    return int8_out(int_neg<T>(parse(a[0])));
  };
  h[prefix + "abs"] = [parse](const std::vector<std::string>& a) {
    return int8_out(int_abs<T>(parse(a[0])));
  };
}

template <typename F>
void add_float_handlers(std::map<std::string, Handler>& h, const std::string& prefix,
                        F (*parse)(std::string_view), std::string (*print)(F)) {
  auto binary = [&](const char* op, F (*fn)(F, F)) {
    h[prefix + op] = [parse, print, fn](const std::vector<std::string>& a) {
      return print(fn(parse(a[0]), parse(a[1])));
    };
  };
  binary("pl", &float_add<F>);
  binary("mi", &float_sub<F>);
  binary("mul", &float_mul<F>);
  binary("div", &float_div<F>);
  h[prefix + "in"] = [parse, print](const std::vector<std::string>& a) {
    return print(parse(a[0]));
  };
  h[prefix + "cmp"] = [parse](const std::vector<std::string>& a) {
    return sign_text(float_cmp<F>(parse(a[0]), parse(a[1])));
  };
}

std::map<std::string, Handler> scalar_handlers() {
  std::map<std::string, Handler> h;
  h["boolin"] = [](const std::vector<std::string>& a) {
    return std::string(bool_out(bool_in(a[0])));
  };
  add_integer_handlers<int16_t>(h, "int2", &int2_in);
  add_integer_handlers<int32_t>(h, "int4", &int4_in);
  add_integer_handlers<int64_t>(h, "int8", &int8_in);
  add_float_handlers<float>(h, "float4", &float4_in, &float4_out);
  add_float_handlers<double>(h, "float8", &float8_in, &float8_out);
  return h;
}

std::map<std::string, Handler> string_handlers() {
  using Args = const std::vector<std::string>&;
  std::map<std::string, Handler> h;
  auto typmod = [](const std::string& n) { return length_typmod(as_int(n)); };
  h["utf8"] = [](Args a) {
    check_utf8(a[0]);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : a[0]) hex += {kHex[c >> 4], kHex[c & 15]};
    return hex;
  };
  h["varcharin"] = [=](Args a) { return std::string(varchar_in(a[0], typmod(a[1]))); };
  h["bpcharin"] = [=](Args a) { return bpchar_in(a[0], typmod(a[1])); };
  h["varcharassign"] = [=](Args a) {
    return std::string(varchar_coerce(a[0], typmod(a[1]), false));
  };
  h["bpcharassign"] = [=](Args a) { return bpchar_coerce(a[0], typmod(a[1]), false); };
  h["varcharcast"] = [=](Args a) { return std::string(varchar_coerce(a[0], typmod(a[1]), true)); };
  h["bpcharcast"] = [=](Args a) { return bpchar_coerce(a[0], typmod(a[1]), true); };
  h["bpchartotext"] = [=](Args a) {
    return std::string(bpchar_to_text(bpchar_coerce(a[0], typmod(a[1]), true)));
  };
  h["bpcharoctetlength"] = [=](Args a) {
    return int8_out(octet_length(bpchar_coerce(a[0], typmod(a[1]), true)));
  };
  h["textcmp"] = [](Args a) { return sign_text(text_cmp(a[0], a[1])); };
  h["bpcharcmp"] = [](Args a) { return sign_text(bpchar_cmp(a[0], a[1])); };
  h["length"] = [](Args a) { return int8_out(text_length(a[0])); };
  h["bpcharlength"] = [](Args a) { return int8_out(bpchar_length(a[0])); };
  h["octetlength"] = [](Args a) { return int8_out(octet_length(a[0])); };
  h["lower"] = [](Args a) { return text_lower(a[0]); };
  h["upper"] = [](Args a) { return text_upper(a[0]); };
  h["md5"] = [](Args a) { return md5_hex(a[0]); };
  h["trim"] = [](Args a) { return std::string(text_btrim(a[0], " ")); };
  h["ltrim1"] = [](Args a) { return std::string(text_ltrim(a[0], " ")); };
  h["rtrim1"] = [](Args a) { return std::string(text_rtrim(a[0], " ")); };
  h["btrim"] = [](Args a) { return std::string(text_btrim(a[0], a[1])); };
  h["ltrim"] = [](Args a) { return std::string(text_ltrim(a[0], a[1])); };
  h["rtrim"] = [](Args a) { return std::string(text_rtrim(a[0], a[1])); };
  h["substr"] = [](Args a) {
    return std::string(text_substring(a[0], as_int(a[1]), as_int(a[2])));
  };
  h["substrfrom"] = [](Args a) { return std::string(text_substring(a[0], as_int(a[1]))); };
  h["position"] = [](Args a) { return int8_out(text_position(a[1], a[0])); };
  h["concat"] = [](Args a) { return text_concat(a[0], a[1]); };
  h["like"] = [](Args a) { return std::string(text_like(a[0], a[1]) ? "true" : "false"); };
  h["ilike"] = [](Args a) { return std::string(text_ilike(a[0], a[1]) ? "true" : "false"); };
  return h;
}

// Fails unless every kind in `minimums` ran at least that many cases.
void expect_counts(const std::map<std::string, int>& counts,
                   const std::map<std::string, int>& minimums) {
  for (const auto& [kind, min] : minimums) {
    auto it = counts.find(kind);
    EXPECT_GE(it == counts.end() ? 0 : it->second, min) << kind;
  }
}

TEST(TypeIoPg15, BooleanIntegerAndFloatMatchPostgres) {
  const auto counts = check_all(load("type_io_scalars.out"), scalar_handlers());
  expect_counts(counts, {{"boolin", 200},
                         {"int2in", 800},
                         {"int4in", 800},
                         {"int8in", 900},
                         {"int2pl", 200},
                         {"int4mul", 200},
                         {"int8div", 200},
                         {"int8mod", 200},
                         {"int2um", 5},
                         {"int8abs", 5},
                         {"float4in", 1000},
                         {"float8in", 2500},
                         {"float8pl", 400},
                         {"float8mul", 400},
                         {"float4div", 200},
                         {"float8cmp", 400},
                         {"float4cmp", 200}});
}

TEST(TypeIoPg15, StringTypesMatchPostgres) {
  const auto counts = check_all(load("type_io_strings.out"), string_handlers());
  expect_counts(counts, {{"utf8", 100},
                         {"varcharin", 200},
                         {"bpcharin", 200},
                         {"varcharassign", 200},
                         {"bpcharassign", 200},
                         {"varcharcast", 200},
                         {"bpcharcast", 200},
                         {"bpchartotext", 200},
                         {"textcmp", 1000},
                         {"bpcharcmp", 1000},
                         {"md5", 80},
                         {"substr", 600},
                         {"position", 800},
                         {"btrim", 400},
                         {"like", 1400},
                         {"ilike", 1400},
                         {"concat", 500}});
}

// The planner's prefix against the index condition PostgreSQL derived from the same
// pattern: "(t = 'p'::text)" for a fixed pattern, "((t >= 'p'::text) AND ..." for a prefix,
// none for neither.
TEST(TypeIoPg15, LikeFixedPrefixMatchesPlanner) {
  const auto cases = load("type_io_like_prefix.out");
  ASSERT_GE(cases.size(), 15u);
  for (const Case& c : cases) {
    LikePrefix expected;
    const std::string& cond = c.expected;
    if (cond != "none") {
      const size_t open = cond.find('\'');
      const size_t close = cond.find("'::text");
      ASSERT_NE(open, std::string::npos) << cond;
      std::string literal = cond.substr(open + 1, close - open - 1);
      for (size_t q; (q = literal.find("''")) != std::string::npos;) literal.erase(q, 1);
      expected.prefix = literal;
      expected.exact = cond.rfind("(t = ", 0) == 0;
    }
    EXPECT_EQ(like_fixed_prefix(c.args[0]), expected) << c.args[0];
  }
}

// Checks the fixtures cannot reach: per-value paths, buffer forms and round trips.
TEST(TypeIo, IntegerOutputBufferAndRoundTrip) {
  char buf[kIntOutMax];
  for (int64_t v : {INT64_MIN, INT64_MIN + 1, int64_t(-1), int64_t(0), int64_t(42), INT64_MAX}) {
    const size_t n = int_out(v, buf);
    EXPECT_EQ(int8_in(std::string_view(buf, n)), v);
  }
  EXPECT_EQ(int_out(INT64_MIN, buf), kIntOutMax);
  EXPECT_EQ(int_div<int16_t>(-7, 2), -3);
  EXPECT_EQ(int_mod<int16_t>(-7, 2), -1);
  EXPECT_EQ(int_mod<int64_t>(INT64_MIN, -1), 0);
  EXPECT_THROW(int_div<int64_t>(INT64_MIN, -1), Error);
}

TEST(TypeIo, FloatOutputReadsBackExactly) {
  // Walk bit patterns across every exponent; the shortest text must parse back to the same
  // bits, for both widths.
  uint64_t bits = 1;
  for (int i = 0; i < 20000; ++i) {
    bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
    double d;
    std::memcpy(&d, &bits, 8);
    if (std::isnan(d)) continue;
    const double back = float8_in(float8_out(d));
    EXPECT_EQ(std::memcmp(&back, &d, 8), 0) << float8_out(d);
    const uint32_t fbits = uint32_t(bits >> 32);
    float f;
    std::memcpy(&f, &fbits, 4);
    if (std::isnan(f)) continue;
    const float fback = float4_in(float4_out(f));
    EXPECT_EQ(std::memcmp(&fback, &f, 4), 0) << float4_out(f);
  }
  EXPECT_EQ(float8_out(-0.0), "-0");
  EXPECT_EQ(float4_out(-0.0f), "-0");
  EXPECT_EQ(float8_out(5e-324), "5e-324");
  EXPECT_EQ(float8_out(-1.7976931348623157e308), "-1.7976931348623157e+308");
  char buf[kFloatOutMax];
  EXPECT_EQ(std::string(buf, float8_out(1e-5, buf)), "1e-05");
}

TEST(TypeIo, StringViewsPointIntoTheirArgument) {
  const std::string s = "  héllo  ";
  EXPECT_EQ(text_btrim(s, " ").data(), s.data() + 2);
  EXPECT_EQ(text_substring(s, 3, 2), "hé");
  EXPECT_EQ(bpchar_to_text("ab  "), "ab");
  EXPECT_EQ(bpchar_to_text("   "), "");
  EXPECT_EQ(bpchar_coerce("ab", kNoTypmod, false), "ab");
  EXPECT_EQ(varchar_coerce("abcdef", kNoTypmod, false), "abcdef");
  // Padding that fits in the last block (55 bytes), that needs another (56), a whole
  // block (64) and many blocks.
  EXPECT_EQ(md5_hex(std::string(55, 'a')), "ef1772b6dff9a122358552954ad0df65");
  EXPECT_EQ(md5_hex(std::string(56, 'a')), "3b0c8ac703f828b04c6c197006d17218");
  EXPECT_EQ(md5_hex(std::string(64, 'a')), "014842d480b571495a4a0363793f7367");
  EXPECT_EQ(md5_hex(std::string(1000, 'x')), "398533d48111e9f664b1f64cb10c4b63");
}

}  // namespace
}  // namespace tp
