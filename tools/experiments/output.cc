#include "tools/experiments/output.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/core/error.h"

#ifndef TIDEPOOL_SOURCE_DIR
#define TIDEPOOL_SOURCE_DIR "."
#endif

namespace tp::experiments {

namespace {

std::string csv_quote(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return trim(ss.str());
}

}  // namespace

std::string command_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  return trim(out);
}

void CsvFile::add(const Record& record) {
  for (const auto& [name, value] : record)
    if (std::find(columns_.begin(), columns_.end(), name) == columns_.end())
      columns_.push_back(name);
  rows_.push_back(record);
  write();
}

void CsvFile::write() const {
  const std::string tmp = path_ + ".new";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (size_t i = 0; i < columns_.size(); ++i) out << (i ? "," : "") << csv_quote(columns_[i]);
    out << "\n";
    for (const Record& r : rows_) {
      for (size_t i = 0; i < columns_.size(); ++i) {
        auto it =
            std::find_if(r.begin(), r.end(), [&](const auto& p) { return p.first == columns_[i]; });
        out << (i ? "," : "") << (it == r.end() ? "" : csv_quote(it->second));
      }
      out << "\n";
    }
    if (!out) throw Error("could not write \"" + tmp + "\"");
  }
  std::filesystem::rename(tmp, path_);
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("could not read \"" + path + "\"");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          fields.back() += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          fields.back() += c;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right) {
  std::string md = "|";
  for (const auto& h : header) md += " " + h + " |";
  md += "\n|";
  for (size_t i = 0; i < header.size(); ++i)
    md += (i < right.size() && right[i]) ? "---:|" : "---|";
  md += "\n";
  for (const auto& r : rows) {
    md += "|";
    for (size_t i = 0; i < header.size(); ++i) md += " " + (i < r.size() ? r[i] : "") + " |";
    md += "\n";
  }
  return md;
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string grouped(uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Environment probe_environment(const std::string& data_dir) {
  Environment env;
  utsname u{};
  if (::uname(&u) == 0) env.kernel = u.release;
  env.cpu = std::to_string(std::thread::hardware_concurrency()) + " cores";
  // The block device: /sys/dev/block/MAJOR:MINOR names it; a partition's parent has the model.
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) == 0) {
    std::string sys = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                      std::to_string(minor(st.st_dev));
    std::error_code ec;
    auto real = std::filesystem::canonical(sys, ec);
    if (!ec) {
      std::string name = real.filename();
      auto disk = std::filesystem::exists(real / "partition") ? real.parent_path() : real;
      std::string model = read_text(disk.string() + "/device/model");
      std::string sectors = read_text(disk.string() + "/size");
      env.device = name;
      if (!model.empty()) env.device += " (" + model + ")";
      if (!sectors.empty())
        env.device += " " + std::to_string(std::stoull(sectors) * 512 / 1000000000) + " GB";
      std::string rotational = read_text(disk.string() + "/queue/rotational");
      if (rotational == "0") env.device += " ssd";
      if (rotational == "1") env.device += " hdd";
    } else {
      env.device =
          "dev " + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    }
  }
  const std::string git = "git -C '" + std::string(TIDEPOOL_SOURCE_DIR) + "' ";
  env.commit = command_output(git + "rev-parse --short=12 HEAD 2>/dev/null");
  if (env.commit.empty()) {
    env.commit = "unknown";
  } else if (!command_output(git + "status --porcelain --untracked-files=no 2>/dev/null").empty()) {
    env.commit += "-dirty";
  }
  return env;
}

void add_environment(Record& record, const Environment& env) {
  record.emplace_back("device", env.device);
  record.emplace_back("kernel", env.kernel);
  record.emplace_back("cpu", env.cpu);
  record.emplace_back("commit", env.commit);
}

}  // namespace tp::experiments
