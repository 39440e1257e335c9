#include "engine/sql/reloptions.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

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

}  // namespace

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
    for (size_t j = 0; j < i; ++j)
      if (options[j].name == o.name)
        throw Error("parameter \"" + o.name + "\" specified more than once")
            .at_position(o.position)
            .with_sqlstate(sqlstate::kInvalidParameterValue);
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
