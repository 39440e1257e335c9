#include "tools/shell/shell.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/core/interrupts.h"
#include "engine/session/analyze.h"
#include "engine/session/session.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"
#include "tools/shell/psql_format.h"

namespace tp {
namespace {

const char* kUsage =
    "Usage: tidepool sql [OPTION]...\n"
    "  -D, --data DIR        data directory (default: $TIDEPOOL_DATA, else ./tidepool-data)\n"
    "  -c, --command SQL     run SQL (one or more statements) and exit\n"
    "  -f, --file FILE       run the statements in FILE and exit\n"
    "  -A, --no-align        unaligned output\n"
    "  -t, --tuples-only     print rows only\n"
    "      --set NAME=VALUE  set a setting for this session (repeatable)\n"
    "Without -c or -f, statements are read from standard input (interactively on a terminal).\n";

const char* kHelp =
    "General\n"
    "  \\q                     quit\n"
    "  \\?                     this help\n"
    "  \\timing [on|off]       print how long each statement takes\n"
    "Informational\n"
    "  \\d                     list tables and indexes (kind, pages, rows, size)\n"
    "  \\d NAME                describe a table: columns, fillfactor, parallel_workers, pages,\n"
    "                        rows, indexes\n"
    "Statements: CREATE TABLE, ALTER TABLE, DROP TABLE, TRUNCATE, INSERT, SELECT, SET, SHOW,\n"
    "RESET\n"
    "(see README.md for what each accepts).\n";

void on_sigint(int) {
  cancel_requested().store(true);
}

const char* kCancelMessage = "canceling statement due to user request";

std::string trim_left(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

class Shell {
 public:
  Shell(Session& session, PrintOptions print) : session_(session), print_(print) {}

  // Runs every statement (and meta-command) of `script`. Returns false at the
  // first error when stop_on_error. A pending Ctrl-C stops the script before its
  // next statement (Session::execute would otherwise forget it).
  bool run_script(const std::string& script, bool stop_on_error) {
    if (cancelled_between_statements()) return false;
    bool ok = true;
    std::istringstream in(script);
    std::string line, pending;
    while (std::getline(in, line)) {
      if (pending.find_first_not_of(" \t\n") == std::string::npos && !line.empty() &&
          trim_left(line).rfind("\\", 0) == 0) {
        if (!meta(trim_left(line))) {
          ok = false;
          if (stop_on_error) return false;
        }
        if (quit_) return ok;
        continue;
      }
      pending += line + "\n";
      bool complete = false;
      auto stmts = sql::split_statements(pending, &complete);
      if (!complete) continue;
      for (auto& s : stmts) {
        if (cancelled_between_statements()) return false;
        if (!statement(s)) {
          ok = false;
          if (stop_on_error) return false;
        }
      }
      pending.clear();
    }
    bool complete = false;
    for (auto& s : sql::split_statements(pending, &complete)) {
      if (cancelled_between_statements()) return false;
      if (!statement(s)) {
        ok = false;
        if (stop_on_error) return false;
      }
    }
    return ok;
  }

  void interactive() {
    std::string pending;
    std::printf("tidepool (type \\? for help, \\q to quit)\n");
    for (;;) {
      bool fresh = pending.find_first_not_of(" \t\n") == std::string::npos;
      std::printf("%s", fresh ? "tidepool=> " : "tidepool-> ");
      std::fflush(stdout);
      std::string line;
      if (!std::getline(std::cin, line)) {
        std::printf("\n");
        break;
      }
      if (fresh && trim_left(line).rfind("\\", 0) == 0) {
        meta(trim_left(line));
        if (quit_) break;
        pending.clear();
        continue;
      }
      pending += line + "\n";
      bool complete = false;
      auto stmts = sql::split_statements(pending, &complete);
      if (!complete) continue;
      for (auto& s : stmts) statement(s);
      pending.clear();
    }
  }

 private:
  bool cancelled_between_statements() {
    if (!cancel_requested().exchange(false)) return false;
    std::fflush(stdout);
    std::fputs(format_error(Error(kCancelMessage), "").c_str(), stderr);
    return true;
  }

  bool statement(const std::string& raw) {
    std::string text = trim_left(raw);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    auto start = std::chrono::steady_clock::now();
    try {
      ResultSet r = session_.execute(text);
      for (const auto& n : r.notices) std::fprintf(stderr, "NOTICE:  %s\n", n.c_str());
      for (const auto& w : r.warnings) std::fprintf(stderr, "WARNING:  %s\n", w.c_str());
      std::fputs(format_result(r, print_).c_str(), stdout);
      timing(start);
      std::fflush(stdout);
      return true;
    } catch (const Error& e) {
      std::fflush(stdout);
      std::fputs(format_error(e, text).c_str(), stderr);
      timing(start);
      return false;
    }
  }

  void timing(std::chrono::steady_clock::time_point start) {
    if (!timing_) return;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("Time: %.3f ms\n", ms);
  }

  bool meta(const std::string& line) {
    std::istringstream in(line);
    std::string cmd, arg;
    in >> cmd;
    if (cmd == "\\d" || cmd == "\\d+") {
      std::string rest;
      std::getline(in, rest);
      arg = psql_object_name(rest);
    } else {
      in >> arg;
    }
    try {
      if (cmd == "\\q") {
        quit_ = true;
      } else if (cmd == "\\?") {
        std::fputs(kHelp, stdout);
      } else if (cmd == "\\timing") {
        if (arg.empty())
          timing_ = !timing_;
        else if (arg == "on")
          timing_ = true;
        else if (arg == "off")
          timing_ = false;
        else
          throw Error("\\timing: unrecognized value \"" + arg + "\": Boolean expected");
        std::printf("Timing is %s.\n", timing_ ? "on" : "off");
      } else if (cmd == "\\d" || cmd == "\\d+") {
        describe(arg, cmd == "\\d+");
      } else {
        throw Error("invalid command " + cmd, "", "Try \\? for help.");
      }
      std::fflush(stdout);
      return true;
    } catch (const Error& e) {
      std::fputs(format_error(e, "").c_str(), stderr);
      return false;
    }
  }

  // \d: every relation; \d NAME (\d+ NAME with statistics): one relation.
  void describe(const std::string& name, bool verbose = false) {
    if (name.empty())
      describe_all();
    else
      describe_relation(name, verbose);
  }

  void describe_all() {
    const Catalog& cat = session_.catalog();
    ResultSet r;
    r.returns_rows = true;
    r.columns = {"Name", "Type", "Table", "Pages", "Rows", "Height", "Size"};
    r.right_aligned = {false, false, false, true, true, true, false};
    for (const auto& rel : cat.relations) {
      const RelationEntry* table = rel.is_table() ? nullptr : cat.find_oid(rel.table_oid);
      r.rows.push_back({rel.name, rel.is_table() ? "table" : "index", table ? table->name : "",
                        std::to_string(rel.pages), std::to_string(rel.rows),
                        rel.is_table() ? "" : std::to_string(session_.index_height(rel)),
                        size_pretty(int64_t(rel.pages * kBlockSize))});
    }
    if (r.rows.empty()) {
      std::printf("Did not find any relations.\n");
      return;
    }
    PrintOptions p = print_;
    p.title = "List of relations";
    std::fputs(format_result(r, p).c_str(), stdout);
  }

  void describe_relation(const std::string& name, bool verbose) {
    const Catalog& cat = session_.catalog();
    const RelationEntry* rel = cat.find(name);
    if (!rel) throw Error("Did not find any relation named \"" + name + "\".");
    ResultSet r;
    r.returns_rows = true;
    r.columns = {"Column", "Type", "Nullable"};
    r.right_aligned = {false, false, false};
    for (const auto& c : rel->columns)
      r.rows.push_back({c.name, column_type_name(c.type, c.typmod), "not null"});
    PrintOptions p = print_;
    p.title = std::string(rel->is_table() ? "Table" : "Index") + " \"" + rel->name + "\"";
    std::string text = format_result(r, p);
    // Drop the "(n rows)" footer: psql's \d has none; add our facts instead.
    size_t footer = text.rfind("(");
    if (footer != std::string::npos) text.resize(footer);
    std::fputs(text.c_str(), stdout);
    std::printf("Fillfactor: %d\n", rel->fillfactor);
    if (rel->parallel_workers >= 0) std::printf("Parallel workers: %d\n", rel->parallel_workers);
    std::printf("Pages: %llu (%s)\nRows: %llu\n", (unsigned long long)rel->pages,
                size_pretty(int64_t(rel->pages * kBlockSize)).c_str(),
                (unsigned long long)rel->rows);
    describe_indexes(*rel);
    if (verbose)
      for (const std::string& line : describe_stats(*rel)) std::printf("%s\n", line.c_str());
    std::printf("\n");
  }

  void describe_indexes(const RelationEntry& rel) {
    auto idx = session_.catalog().indexes_of(rel.oid);
    if (idx.empty()) return;
    std::printf("Indexes:\n");
    for (const RelationEntry* i : idx) {
      std::string cols;
      for (int k : i->key_columns)
        cols += (cols.empty() ? "" : ", ") + sql::quote_identifier(rel.columns[size_t(k)].name);
      // PostgreSQL's \d prints a storage option only when it was given.
      std::string with;
      if (i->deduplicate_items)
        with = std::string(" WITH (deduplicate_items='") + (*i->deduplicate_items ? "on" : "off") +
               "')";
      std::printf("    \"%s\"%s btree (%s)%s, %llu pages, height %d\n", i->name.c_str(),
                  i->primary  ? " PRIMARY KEY,"
                  : i->unique ? " UNIQUE,"
                              : "",
                  cols.c_str(), with.c_str(), (unsigned long long)i->pages,
                  session_.index_height(*i));
    }
  }

  Session& session_;
  PrintOptions print_;
  bool timing_ = false;
  bool quit_ = false;
};

}  // namespace

void install_cancel_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sa.sa_flags = SA_RESTART;  // a Ctrl-C at the prompt must not end the read of stdin
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

namespace {

// What the command line asked for.
struct ShellArgs {
  SessionOptions session;
  PrintOptions print;
  std::vector<std::string> commands, files;  // -c and -f, run in this order
  int exit_code = -1;                        // >= 0: exit at once with it (--help, a bad option)
};

ShellArgs parse_args(const std::vector<std::string>& args) {
  ShellArgs r;
  const char* env = std::getenv("TIDEPOOL_DATA");
  r.session.data_dir = env && *env ? env : "./tidepool-data";
  for (size_t i = 0; i < args.size() && r.exit_code < 0; ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 < args.size()) return args[++i];
      std::fprintf(stderr, "tidepool sql: option %s needs a value\n%s", opt, kUsage);
      r.exit_code = 2;
      return "";
    };
    if (a == "-D" || a == "--data")
      r.session.data_dir = value("-D");
    else if (a == "-c" || a == "--command")
      r.commands.push_back(value("-c"));
    else if (a == "-f" || a == "--file")
      r.files.push_back(value("-f"));
    else if (a == "-A" || a == "--no-align")
      r.print.unaligned = true;
    else if (a == "-t" || a == "--tuples-only")
      r.print.tuples_only = true;
    else if (a == "-At" || a == "-tA")
      r.print.unaligned = r.print.tuples_only = true;
    else if (a == "--set")
      r.session.settings.push_back(value("--set"));
    else if (a.rfind("--set=", 0) == 0)
      r.session.settings.push_back(a.substr(6));
    else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      r.exit_code = 0;
    } else {
      std::fprintf(stderr, "tidepool sql: unknown option \"%s\"\n%s", a.c_str(), kUsage);
      r.exit_code = 2;
    }
  }
  return r;
}

// The -c commands, then the -f files; the first failing statement ends the run (exit 1).
int run_scripts(Shell& shell, const ShellArgs& args) {
  for (const auto& c : args.commands)
    if (!shell.run_script(c, true)) return 1;
  for (const auto& f : args.files) {
    std::ifstream in(f);
    if (!in) {
      std::fprintf(stderr, "tidepool sql: could not read \"%s\": %s\n", f.c_str(),
                   std::strerror(errno));
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (!shell.run_script(ss.str(), true)) return 1;
  }
  return 0;
}

}  // namespace

int run_sql_shell(const std::vector<std::string>& argv) {
  install_cancel_handler();
  ShellArgs args = parse_args(argv);
  if (args.exit_code >= 0) return args.exit_code;
  args.session.progress = isatty(STDERR_FILENO);
  std::unique_ptr<Session> session;
  try {
    session = std::make_unique<Session>(args.session);
  } catch (const Error& e) {
    std::fputs(format_error(e, "").c_str(), stderr);
    return 2;
  }
  Shell shell(*session, args.print);
  if (!args.commands.empty() || !args.files.empty()) return run_scripts(shell, args);
  if (isatty(STDIN_FILENO)) {
    shell.interactive();
    return 0;
  }
  std::stringstream ss;
  ss << std::cin.rdbuf();
  return shell.run_script(ss.str(), true) ? 0 : 1;
}

}  // namespace tp
