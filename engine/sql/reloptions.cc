#include "engine/sql/reloptions.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/core/error.h"

namespace tp::sql {
namespace {

struct IntOption {
  const char* name;
  int min;
  int max;
};
constexpr IntOption kOptions[] = {{"fillfactor", 10, 100}, {"parallel_workers", 0, 1024}};

// PostgreSQL's parse_int for an option value: an integer, or a number with a
// fraction or exponent rounded to the nearest (rint); surrounding blanks allowed.
std::optional<double> parse_number(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 0);
  double value = double(v);
  if (end == s || errno == ERANGE) return std::nullopt;
  if (*end == '.' || *end == 'e' || *end == 'E') {
    errno = 0;
    double d = std::strtod(s, &end);
    if (end == s || errno == ERANGE) return std::nullopt;
    value = std::rint(d);
  }
  while (*end == ' ' || *end == '\t' || *end == '\n') ++end;
  if (*end != '\0') return std::nullopt;
  return value;
}

// PostgreSQL's parse_bool: true/false, yes/no, on/off, 1/0, or a prefix that
// names one of them alone, in any case.
std::optional<bool> parse_bool(const std::string& text) {
  std::string v;
  for (char c : text) v += char(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1") return true;
  if (v == "0") return false;
  if (v.empty()) return std::nullopt;
  struct Word {
    const char* word;
    bool value;
    size_t min_prefix;
  };
  static constexpr Word kWords[] = {{"true", true, 1}, {"false", false, 1}, {"yes", true, 1},
                                    {"no", false, 1},  {"on", true, 2},     {"off", false, 2}};
  for (const Word& w : kWords)
    if (v.size() >= w.min_prefix && std::string_view(w.word).substr(0, v.size()) == v)
      return w.value;
  return std::nullopt;
}

void check_once(const std::vector<RelOption>& options, size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (options[j].name == options[i].name)
      throw Error("parameter \"" + options[i].name + "\" specified more than once")
          .at_position(options[i].position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
}

}  // namespace

IndexOptions index_options(const std::vector<RelOption>& options) {
  IndexOptions out;
  for (size_t i = 0; i < options.size(); ++i) {
    const RelOption& o = options[i];
    if (o.name == "fillfactor")
      throw Error("index storage option \"fillfactor\" is not supported",
                  "tidepool's B-trees fill pages as PostgreSQL's do by default (90% leaves).")
          .at_position(o.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (o.name != "deduplicate_items")
      throw Error("unrecognized parameter \"" + o.name + "\"")
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    check_once(options, i);
    const std::string text = o.value.value_or("true");
    std::optional<bool> v = parse_bool(text);
    if (!v)
      throw Error("invalid value for boolean option \"" + o.name + "\": " + text)
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    out.deduplicate_items = *v;
  }
  return out;
}

TableOptions table_options(const std::vector<RelOption>& options) {
  TableOptions out;
  for (size_t i = 0; i < options.size(); ++i) {
    const RelOption& o = options[i];
    const IntOption* def = nullptr;
    for (const IntOption& d : kOptions)
      if (o.name == d.name) def = &d;
    if (!def)
      throw Error("unrecognized parameter \"" + o.name + "\"")
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    check_once(options, i);
    const std::string text = o.value.value_or("true");
    std::optional<double> v = parse_number(text);
    if (!v || *v < -2147483648.0 || *v > 2147483647.0)
      throw Error("invalid value for integer option \"" + o.name + "\": " + text)
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    if (*v < def->min || *v > def->max)
      throw Error("value " + text + " out of bounds for option \"" + o.name + "\"",
                  "Valid values are between \"" + std::to_string(def->min) + "\" and \"" +
                      std::to_string(def->max) + "\".")
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    (o.name == "fillfactor" ? out.fillfactor : out.parallel_workers) = int(*v);
  }
  return out;
}

void check_reset_options(const std::vector<RelOption>& options) {
  for (const RelOption& o : options)
    if (o.value)
      throw Error("RESET must not include values for parameters")
          .at_position(o.position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
}

}  // namespace tp::sql
