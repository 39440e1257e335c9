// Output helpers shared by the experiments: a CSV written after every run (so
// an interrupted experiment keeps what it measured), Markdown tables, number
// formatting, and the environment every CSV row carries (device, kernel, commit).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tp::experiments {

// One CSV row: (column, value) pairs in the order they should appear.
using Record = std::vector<std::pair<std::string, std::string>>;

// A CSV file rewritten after each add(). Columns are the union of the records'
// columns in first-seen order; a record lacking a column leaves it empty.
class CsvFile {
 public:
  explicit CsvFile(std::string path) : path_(std::move(path)) {}
  // Appends the record and rewrites the file. Throws tp::Error if it cannot be written.
  void add(const Record& record);
  const std::string& path() const { return path_; }

 private:
  void write() const;
  std::string path_;
  std::vector<std::string> columns_;
  std::vector<Record> rows_;
};

// Reads a CSV written by CsvFile (tests and the report use it): header, then rows.
std::vector<std::vector<std::string>> read_csv(const std::string& path);

// A GitHub-flavoured Markdown table; `right` marks numeric columns.
std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right = {});

// What a shell command printed on stdout, trimmed (empty on failure): `git`, `pgbench`.
std::string command_output(const std::string& command);

// Fixed-point formatting ("%.*f"); "-" for NaN.
std::string fixed(double value, int decimals);
// Thousands separators: 454546 -> "454,546".
std::string grouped(uint64_t value);

// What every CSV row carries about where it was measured.
struct Environment {
  std::string device;  // block device holding the data directory, with its model when known
  std::string kernel;  // uname -r
  std::string commit;  // tidepool commit (with "-dirty" when the tree had changes)
  std::string cpu;     // "2 cores" etc.
};
Environment probe_environment(const std::string& data_dir);
// Appends environment columns to a record.
void add_environment(Record& record, const Environment& env);

}  // namespace tp::experiments
