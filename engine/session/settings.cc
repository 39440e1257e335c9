#include "engine/session/settings.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/device_curve.h"
#include "engine/session/settings_defs_model.h"

namespace tp {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string format_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// kB per stored unit of a memory setting.
int64_t kb_per_unit(SettingUnit u) {
  return u == SettingUnit::kBlocks ? 8 : 1;
}

std::string format_with_unit(const SettingDef& d, double v) {
  if (d.unit == SettingUnit::kKb || d.unit == SettingUnit::kBlocks)
    return format_memory_kb(int64_t(v) * kb_per_unit(d.unit));
  if (d.unit == SettingUnit::kMs) {
    int64_t ms = int64_t(v);
    if (ms != 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
  }
  return format_number(v);
}

Error invalid_value(const SettingDef& d, const std::string& text, const std::string& hint) {
  return Error("invalid value for parameter \"" + d.name + "\": \"" + text + "\"", "", hint)
      .with_sqlstate(sqlstate::kInvalidParameterValue);
}

// The words of a kText value or choice: lower case, split at commas and
// spaces, '-' and '_' dropped ("UTF-8" -> {"utf8"}, "ISO, MDY" -> {"iso", "mdy"}).
std::vector<std::string> text_words(std::string_view s) {
  std::vector<std::string> words(1);
  for (char c : s) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!words.back().empty()) words.emplace_back();
    } else if (c != '-' && c != '_') {
      words.back().push_back(char(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// The choice of `d` that holds every word of `text`, or null.
const std::string* matching_choice(const SettingDef& d, std::string_view text) {
  std::vector<std::string> want = text_words(text);
  for (const std::string& c : d.choices) {
    std::vector<std::string> have = text_words(c);
    bool all = !want.empty();
    for (const std::string& w : want)
      all = all && std::find(have.begin(), have.end(), w) != have.end();
    if (all) return &c;
  }
  return nullptr;
}

const char* const kMemoryUnitsHint =
    "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".";
const char* const kTimeUnitsHint =
    "Valid units for this parameter are \"ms\", \"s\", \"min\", and \"h\".";

// What one `unit` (as written after a number) is in `d`'s stored unit.
double unit_factor(const SettingDef& d, const std::string& text, const std::string& unit) {
  if (d.unit == SettingUnit::kKb || d.unit == SettingUnit::kBlocks) {
    double kb = unit == "B"    ? 1.0 / 1024
                : unit == "kB" ? 1
                : unit == "MB" ? 1024
                : unit == "GB" ? 1024.0 * 1024
                : unit == "TB" ? 1024.0 * 1024 * 1024
                               : 0;
    if (kb == 0) throw invalid_value(d, text, kMemoryUnitsHint);
    return kb / double(kb_per_unit(d.unit));
  }
  if (d.unit == SettingUnit::kMs) {
    double factor = unit == "ms"    ? 1
                    : unit == "s"   ? 1000
                    : unit == "min" ? 60000
                    : unit == "h"   ? 3600000
                                    : 0;
    if (factor == 0) throw invalid_value(d, text, kTimeUnitsHint);
    return factor;
  }
  throw invalid_value(d, text, "This parameter takes no unit.");
}

// An Int or Real setting's value from its text ("128MB", "0.5"), in its stored
// unit and range.
double parse_number(const SettingDef& d, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double number = std::strtod(begin, &end);
  // Past a double's range either way (1e-400 as much as 1e400): PostgreSQL's parse_real
  // refuses what strtod reports as ERANGE, with no hint.
  if (end != begin && errno == ERANGE) throw invalid_value(d, text, "");
  if (end == begin || std::isnan(number) || std::isinf(number)) {
    std::string what = d.type == SettingType::kInt ? "an integer" : "a numeric";
    std::string units;
    if (d.unit == SettingUnit::kKb || d.unit == SettingUnit::kBlocks)
      units = std::string(" ") + kMemoryUnitsHint;
    if (d.unit == SettingUnit::kMs) units = std::string(" ") + kTimeUnitsHint;
    throw invalid_value(d, text, "Enter " + what + " value." + units);
  }
  std::string unit = trim(std::string_view(end));
  if (!unit.empty()) number *= unit_factor(d, text, unit);
  if (d.type == SettingType::kInt) {
    number = std::rint(number);
    // Beyond 2^53 a double no longer holds every integer, and the range
    // error below would convert it to int64_t (undefined past 2^63): refuse
    // it as PostgreSQL refuses a value that overflows its integer type.
    if (std::fabs(number) >= 9007199254740992.0)
      throw invalid_value(d, text, "Value exceeds integer range.");
  }
  if (number < d.min || number > d.max) {
    throw Error(std::string(d.type == SettingType::kInt && d.unit != SettingUnit::kNone
                                ? format_with_unit(d, number)
                                : format_number(number)) +
                " is outside the valid range for parameter \"" + d.name + "\" (" +
                format_with_unit(d, d.min) + " .. " + format_with_unit(d, d.max) + ")")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  }
  return number;
}

}  // namespace

std::string format_memory_kb(int64_t kb) {
  static const char* kUnits[] = {"kB", "MB", "GB", "TB"};
  int u = 0;
  while (u < 3 && kb != 0 && kb % 1024 == 0) {
    kb /= 1024;
    ++u;
  }
  return std::to_string(kb) + kUnits[u];
}

Settings::Settings() {
  for (const SettingDef& d : definitions()) {
    Value v = parse(d, d.default_value);
    values_[d.name] = v;
    reset_values_[d.name] = v;
  }
  // The stack-depth limit is process-wide (engine/core/stack_depth.h; a Session
  // puts its own value in place for each statement); the hook also refuses a
  // value beyond the platform's stack rlimit.
  on_apply("max_stack_depth",
           [this](const std::string&) { set_max_stack_depth_kb(get_int("max_stack_depth")); });
  check_device_curves();
  refuse_unbuilt();
}

Settings::Settings(Settings& database) : database_(&database) {
  for (const SettingDef& d : definitions()) {
    if (d.scope == SettingScope::kDatabase) continue;
    values_[d.name] = database.values_.at(d.name);
    reset_values_[d.name] = database.reset_values_.at(d.name);
  }
  on_apply("max_stack_depth",
           [this](const std::string&) { set_max_stack_depth_kb(get_int("max_stack_depth")); });
  check_device_curves();
  refuse_unbuilt();
}

Settings& Settings::owner(const SettingDef& d) {
  return database_ && d.scope == SettingScope::kDatabase ? *database_ : *this;
}

const Settings& Settings::owner(const SettingDef& d) const {
  return database_ && d.scope == SettingScope::kDatabase ? *database_ : *this;
}

const SettingDef& Settings::def(std::string_view name) const {
  // Every statement reads a few settings by name: hashed, not a walk of the list.
  static const std::unordered_map<std::string_view, const SettingDef*> by_name = [] {
    std::unordered_map<std::string_view, const SettingDef*> m;
    for (const SettingDef& d : definitions()) m.emplace(d.name, &d);
    return m;
  }();
  if (auto it = by_name.find(name); it != by_name.end()) return *it->second;
  throw Error("unrecognized configuration parameter \"" + std::string(name) + "\"")
      .with_sqlstate(sqlstate::kUndefinedObject);
}

Settings::Value Settings::parse(const SettingDef& d, std::string_view raw) const {
  std::string text = trim(raw);
  Value v;
  switch (d.type) {
    case SettingType::kBool: {
      std::string t = lower(text);
      if (t == "on" || t == "true" || t == "yes" || t == "1") {
        v.number = 1;
      } else if (t == "off" || t == "false" || t == "no" || t == "0") {
        v.number = 0;
      } else {
        throw Error("parameter \"" + d.name + "\" requires a Boolean value", "", "Use on or off.")
            .with_sqlstate(sqlstate::kInvalidParameterValue);
      }
      return v;
    }
    case SettingType::kEnum: {
      std::string t = lower(text);
      for (const std::string& c : d.choices)
        if (c == t) {
          v.text = c;
          return v;
        }
      std::string list;
      for (const std::string& c : d.choices) list += (list.empty() ? "" : ", ") + c;
      throw invalid_value(d, text, "Available values: " + list + ".");
    }
    case SettingType::kReal:
    case SettingType::kInt:
      v.number = parse_number(d, text);
      return v;
    case SettingType::kText: {
      if (d.choices.empty()) {
        v.text = text;
        return v;
      }
      if (const std::string* c = matching_choice(d, text)) {
        v.text = *c;
        return v;
      }
      std::string list;
      for (const std::string& c : d.choices) list += (list.empty() ? "" : "; ") + c;
      throw invalid_value(d, text, "Available values: " + list + ".");
    }
  }
  return v;
}

std::string Settings::format(const SettingDef& d, const Value& v) const {
  switch (d.type) {
    case SettingType::kBool:
      return v.number != 0 ? "on" : "off";
    case SettingType::kEnum:
    case SettingType::kText:
      return v.text;
    case SettingType::kInt:
      return format_with_unit(d, v.number);
    case SettingType::kReal:
      return format_number(v.number);
  }
  return {};
}

const Settings::Value& Settings::value(std::string_view name) const {
  const Settings& o = owner(def(name));
  auto it = o.values_.find(name);
  if (it == o.values_.end())
    throw Error("unrecognized configuration parameter \"" + std::string(name) + "\"")
        .with_sqlstate(sqlstate::kUndefinedObject);
  return it->second;
}

namespace {
std::atomic<uint64_t> value_changes{0};
}  // namespace

uint64_t Settings::changes() {
  return value_changes.load(std::memory_order_acquire);
}

void Settings::assign(const SettingDef& d, const Value& v) {
  if (&owner(d) != this) return owner(d).assign(d, v);
  Value old = values_[d.name];
  values_[d.name] = v;
  value_changes.fetch_add(1, std::memory_order_acq_rel);
  auto it = hooks_.find(d.name);
  if (it == hooks_.end()) return;
  try {
    for (auto& hook : it->second) hook(d.name);
  } catch (...) {
    values_[d.name] = old;
    value_changes.fetch_add(1, std::memory_order_acq_rel);
    throw;
  }
}

void Settings::set(std::string_view name, std::string_view text, bool session) {
  const SettingDef& d = def(lower(name));
  Value v = parse(d, text);
  assign(d, v);
  if (!session) owner(d).reset_values_[d.name] = v;
}

void Settings::reset_one(const SettingDef& d) {
  Settings& o = owner(d);
  const Value& now = o.values_[d.name];
  const Value& start = o.reset_values_[d.name];
  if (now.number != start.number || now.text != start.text) assign(d, start);
}

void Settings::reset(std::string_view name) {
  std::string n = lower(name);
  if (n == "all") {
    for (const SettingDef& d : definitions()) reset_one(d);
    return;
  }
  const SettingDef& d = def(n);
  assign(d, owner(d).reset_values_[d.name]);
}

void Settings::set_from_assignment(std::string_view a) {
  size_t eq = a.find('=');
  if (eq == std::string_view::npos)
    throw Error("invalid setting \"" + std::string(a) + "\"", "", "Write it as name=value.")
        .with_sqlstate(sqlstate::kSyntaxError);
  set(trim(a.substr(0, eq)), trim(a.substr(eq + 1)), false);
}

void Settings::load_conf_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::string t = trim(line);
    if (t.empty()) continue;
    size_t eq = t.find('=');
    std::string name = trim(eq == std::string::npos ? t.substr(0, t.find(' ')) : t.substr(0, eq));
    std::string val = trim(eq == std::string::npos ? t.substr(name.size()) : t.substr(eq + 1));
    if (val.size() >= 2 && val.front() == '\'' && val.back() == '\'')
      val = val.substr(1, val.size() - 2);
    try {
      set(name, val, false);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (in " + path + " line " + std::to_string(lineno) + ")",
                  e.detail(), e.hint())
          .with_sqlstate(e.sqlstate());
    }
  }
}

std::string Settings::show(std::string_view name) const {
  const SettingDef& d = def(lower(name));
  return format(d, value(d.name));
}

int64_t Settings::get_int(std::string_view name) const {
  return int64_t(value(name).number);
}
double Settings::get_real(std::string_view name) const {
  return value(name).number;
}
bool Settings::get_bool(std::string_view name) const {
  return value(name).number != 0;
}
const std::string& Settings::get_enum(std::string_view name) const {
  return value(name).text;
}
void Settings::check_device_curves() {
  // A curve the prefetch-aware model cannot read is refused when it is set, not when a
  // later statement is planned.
  for (const char* method : {"sync", "worker", "io_uring"})
    for (bool direct : {true, false}) {
      const std::string name = device_curve_setting(method, direct);
      on_apply(name, [this](const std::string& n) { parse_device_curve(get_text(n), n); });
    }
}

void Settings::refuse_unbuilt() {
  // A setting whose `on` would need what is not built (a Parallel Hash's shared table).
  on_apply("enable_parallel_hash", [this](const std::string& n) {
    if (get_bool(n))
      throw Error("enable_parallel_hash = on is not supported: tidepool has no Parallel Hash")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
  });
}

void Settings::on_apply(std::string_view name, ApplyHook hook) {
  Settings& o = owner(def(name));
  o.hooks_[std::string(name)].push_back(std::move(hook));
}

}  // namespace tp
