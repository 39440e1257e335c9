#include "engine/plan/device_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/core/error.h"

namespace tp {

namespace {

[[noreturn]] void bad_curve(std::string_view setting, std::string_view text,
                            const std::string& why) {
  throw Error(
      "invalid value for parameter \"" + std::string(setting) + "\": \"" + std::string(text) + "\"",
      why +
          ". Expected \"seq=US d1=US d4=US ...\": microseconds per 8 kB page of a "
          "sequential read and of a random read at each depth (tidepool calibrate "
          "writes it).")
      .with_sqlstate(sqlstate::kInvalidParameterValue);
}

double positive_number(std::string_view setting, std::string_view text, const std::string& word,
                       const std::string& value) {
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v) || v <= 0)
    bad_curve(setting, text, "\"" + word + "\" needs a positive number of microseconds");
  return v;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

double DeviceCurve::random_read_us(double depth) const {
  if (random_us.empty()) return seq_us;
  depth = std::max(1.0, depth);
  double best = random_us.front().second;  // running minimum over shallower depths
  double prev_depth = random_us.front().first, prev_us = best;
  if (depth <= prev_depth) return best;
  for (size_t i = 1; i < random_us.size(); ++i) {
    const double d = random_us[i].first;
    const double us = std::min(best, random_us[i].second);
    if (depth <= d) {
      const double t =
          (std::log(depth) - std::log(prev_depth)) / (std::log(d) - std::log(prev_depth));
      return prev_us + t * (us - prev_us);
    }
    best = us;
    prev_depth = d;
    prev_us = us;
  }
  return best;
}

DeviceCurve parse_device_curve(std::string_view text, std::string_view setting) {
  DeviceCurve c;
  std::istringstream in{std::string(text)};
  std::string word;
  while (in >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) bad_curve(setting, text, "\"" + word + "\" has no '='");
    const std::string key = word.substr(0, eq);
    const double v = positive_number(setting, text, word, word.substr(eq + 1));
    if (key == "seq" || key == "s1") {
      (key == "seq" ? c.seq_us : c.seq1_us) = v;
      continue;
    }
    char* end = nullptr;
    const long depth = key.size() > 1 && key[0] == 'd' ? std::strtol(key.c_str() + 1, &end, 10) : 0;
    if (depth < 1 || depth > 1024 || *end != '\0')
      bad_curve(setting, text,
                "unknown key \"" + key + "\" (seq, s1, or dN for a depth N of 1..1024)");
    for (const auto& [d, us] : c.random_us)
      if (d == depth) bad_curve(setting, text, "depth " + std::to_string(depth) + " given twice");
    c.random_us.emplace_back(int(depth), v);
  }
  std::sort(c.random_us.begin(), c.random_us.end());
  if (c.seq_us <= 0) bad_curve(setting, text, "no seq figure");
  if (c.random_us.empty() || c.random_us.front().first != 1)
    bad_curve(setting, text, "no d1 figure (the latency of one random read)");
  return c;
}

std::string format_device_curve(const DeviceCurve& curve) {
  std::string s = "seq=" + short_number(curve.seq_us);
  if (curve.seq1_us > 0) s += " s1=" + short_number(curve.seq1_us);
  for (const auto& [d, us] : curve.random_us)
    s += " d" + std::to_string(d) + "=" + short_number(us);
  return s;
}

}  // namespace tp
