// The labs of `tidepool lab NAME` (tools/labs/README.md): short guided exercises for
// students. Each builds the tables it needs (small by default, `--rows` scales them),
// runs a few statements, cold where the lesson needs it, and prints every step as a
// heading, the SQL, its output and a "Look at:" line; then its questions and the files
// of this repository that explain what was seen.
//
// A lab is a function over a Guide, which owns the printing; the questions and code
// references are data in its LabDef so that the tests can check every path exists.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "engine/session/session.h"
#include "tools/experiments/lab.h"

namespace tp::labs {

// What the command line chose.
struct LabArgs {
  uint64_t rows = 0;     // 0: the lab's own default
  std::string data_dir;  // default: <out_dir>/data
  std::string out_dir = "lab-results";
  int http_port = -1;  // --http PORT: serve the live page of the lab's pool (0: any free port)
  int pause_ms = -1;   // --pause SECONDS before each step (-1: 2 s with --http, else none)
};

// The steps of one lab, printed to `out` as the student reads them.
class Guide {
 public:
  Guide(experiments::Lab& lab, std::ostream& out, uint64_t rows);

  experiments::Lab& lab() { return lab_; }
  std::ostream& out() { return out_; }
  uint64_t rows() const { return rows_; }
  const std::string& out_dir() const { return lab_.options().out_dir; }

  // Builds (or reuses, when an earlier run left it) a table and says so.
  void table(const experiments::TableSpec& spec);
  // "Step N: heading".
  void step(const std::string& heading);
  // Prints "tidepool=> sql", runs it and prints its output as psql would.
  ResultSet run(const std::string& sql);
  // Runs SET/RESET statements and prints them on one line each, without output.
  void set(const std::vector<std::string>& statements);
  // Empties the pool (and the OS page cache of these relations) and says so.
  void cold(const std::vector<std::string>& relations);
  // Prints and runs SELECT pg_relation_size(...); returns the relation's 8 kB pages.
  uint64_t relation_pages(const std::string& relation);
  void look_at(const std::string& text);
  void note(const std::string& text);
  // Waits this long before each step (and at the end), so a live page keeps up.
  void set_pause_ms(int ms) { pause_ms_ = ms; }
  void pause() const;

  // pg_buffercache's rows of one relation, which the lab counts (tidepool's views take
  // no aggregates): the query is printed, then "N buffers; usagecount 1: a, 2: b ...".
  struct BufferCounts {
    int buffers = 0;
    int by_usage[6] = {0, 0, 0, 0, 0, 0};  // usage counts 0..5 (5 is the cap)
  };
  BufferCounts buffer_counts(const std::string& relation);
  // Draws the traces one above the other into `png` (tidepool trace plot) and says where;
  // when gnuplot cannot, says why and goes on.
  void picture(const std::vector<std::string>& traces, const std::vector<std::string>& titles,
               const std::string& png);

 private:
  experiments::Lab& lab_;
  std::ostream& out_;
  uint64_t rows_;
  int step_ = 0;
  int pause_ms_ = 0;
};

// The first EXPLAIN line holding `what` ("Prefetch:", "Buffers:", "Execution Time"), "" if
// none; the number after `key` on it (explain_field), 0 if absent.
std::string explain_line(const ResultSet& explain, const std::string& what);
double number_after(const std::string& line, const std::string& key);

// How many system-call slices of an I/O trace ran on each thread track ("query",
// "io worker 1", ...) (tools/trace/trace_data.h reads the file); empty when it holds
// none. Throws tp::Error when the file is missing or does not parse.
std::vector<std::pair<std::string, int>> trace_syscalls_by_thread(const std::string& path);

struct CodeRef {
  const char* path;  // relative to the repository's root
  const char* why;
};

struct LabDef {
  const char* name;
  const char* summary;
  uint64_t default_rows;
  void (*run)(Guide&);
  std::vector<const char*> questions;
  std::vector<CodeRef> code;
};

// In the order `tidepool lab list` prints them.
const std::vector<LabDef>& lab_defs();

// Each lab's file defines its own (steps, questions, code references).
LabDef page_life_lab();
LabDef fillfactor_lab();
LabDef read_streams_lab();
LabDef eic_lab();
LabDef io_methods_lab();
LabDef prefetch_limit_lab();

// Runs one lab into `out`: its title, steps, questions and code references. Throws
// tp::Error when a step fails.
void run_lab(const LabDef& def, const LabArgs& args, std::ostream& out);

// `tidepool lab NAME|list|--help [--rows N] [--data DIR] [--out DIR]`; the exit status.
int run_lab_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tp::labs
