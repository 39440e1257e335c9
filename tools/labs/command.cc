// `tidepool lab NAME [options]`: the list of labs, argument parsing, and the frame every
// lab is printed in (title, steps, questions, where the code explains it).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <ostream>

#include "engine/core/error.h"
#include "tools/labs/labs.h"
#include "tools/live/live_server.h"

namespace tp::labs {

namespace {

const char* kUsage =
    "Usage: tidepool lab NAME [--rows N] [--data DIR] [--out DIR] [--http PORT [--pause S]]\n"
    "       tidepool lab list          the labs, one line each\n"
    "Guided exercises: each lab builds small tables, runs a few statements (cold where\n"
    "the lesson needs it) and prints every step with its SQL, its output and what to\n"
    "look at, then questions and the files that explain it (tools/labs/README.md).\n"
    "Options:\n"
    "  --rows N     rows of the lab's tables (default: the lab's own, well under a minute)\n"
    "  --data DIR   data directory (default OUT/data); the tables are reused by later runs\n"
    "  --out DIR    where traces are written (default lab-results)\n"
    "  --http PORT  serve the live page of the lab's pool and I/O on loopback (as\n"
    "               `tidepool serve --http`) and print its address; 0 picks a free port\n"
    "  --pause S    seconds to wait before each step (default 2 with --http, else 0),\n"
    "               so the page shows each step before the next begins\n";

std::string lab_names() {
  std::string names;
  for (const LabDef& d : lab_defs()) names += std::string(names.empty() ? "" : ", ") + d.name;
  return names;
}

void print_list(std::ostream& out) {
  for (const LabDef& d : lab_defs())
    out << "  " << d.name << std::string(16 - std::string(d.name).size(), ' ') << d.summary << "\n";
}

// An option's integer value in [min, max] (rows, a port, seconds).
uint64_t number(const std::string& option, const std::string& v, uint64_t min, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0 || n < min || n > max)
    throw Error("invalid value for " + option + ": \"" + v + "\" (an integer, " +
                (max == UINT64_MAX ? "at least " + std::to_string(min)
                                   : "from " + std::to_string(min) + " to " + std::to_string(max)) +
                ")");
  return n;
}

LabArgs parse_args(const std::vector<std::string>& args) {
  LabArgs a;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& o = args[i];
    if (o != "--rows" && o != "--data" && o != "--out" && o != "--http" && o != "--pause")
      throw Error("unknown option \"" + o + "\"");
    if (i + 1 >= args.size()) throw Error("option " + o + " needs a value");
    const std::string& v = args[++i];
    if (o == "--data") {
      a.data_dir = v;
    } else if (o == "--out") {
      a.out_dir = v;
    } else if (o == "--http") {
      a.http_port = int(number(o, v, 0, 65535));
    } else if (o == "--pause") {
      a.pause_ms = int(number(o, v, 0, 60)) * 1000;
    } else {
      a.rows = number(o, v, 1000, UINT64_MAX);
    }
  }
  if (a.pause_ms >= 0 && a.http_port < 0) throw Error("--pause needs --http");
  return a;
}

}  // namespace

const std::vector<LabDef>& lab_defs() {
  static const std::vector<LabDef> defs = {page_life_lab(), fillfactor_lab(), read_streams_lab(),
                                           eic_lab(),       io_methods_lab(), prefetch_limit_lab()};
  return defs;
}

void run_lab(const LabDef& def, const LabArgs& args, std::ostream& out) {
  experiments::LabOptions options;
  options.rows = args.rows ? args.rows : def.default_rows;
  options.out_dir = args.out_dir;
  options.data_dir = args.data_dir;
  options.progress = false;
  experiments::Lab lab(options);
  // Parallel query would split each scan's reads over workers; one scan is the lesson.
  lab.reset_settings();
  out << "# Lab " << def.name << ": " << def.summary << "\n"
      << "(" << options.rows << " rows; data directory " << lab.options().data_dir << ")\n";
  Guide guide(lab, out, options.rows);
  // The live page watches the lab's database; it listens on loopback only.
  std::unique_ptr<live::LiveServer> view;
  if (args.http_port >= 0) {
    live::LiveServerOptions o;
    o.port = args.http_port;
    view = std::make_unique<live::LiveServer>(lab.session().database(), o);
    view->start();
    const int pause_ms = args.pause_ms >= 0 ? args.pause_ms : 2000;
    guide.set_pause_ms(pause_ms);
    out << "Watch it live: open " << view->urls().front()
        << " in a browser (the page follows the lab's statements; each step waits "
        << pause_ms / 1000 << " s for it)\n";
  }
  def.run(guide);
  guide.pause();  // the last step's picture stays up a moment
  lab.reset_settings();
  out << "\nQuestions\n";
  for (size_t i = 0; i < def.questions.size(); ++i)
    out << "  " << i + 1 << ". " << def.questions[i] << "\n";
  out << "\nWhere the code explains it\n";
  for (const CodeRef& c : def.code) out << "  " << c.path << ": " << c.why << "\n";
  out << "\n(Answers: tools/labs/README.md, section \"" << def.name << "\".)\n";
}

int run_lab_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage << "Labs:\n";
    print_list(args.empty() ? err : out);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "list") {
    print_list(out);
    return 0;
  }
  const LabDef* def = nullptr;
  LabArgs parsed;
  try {
    for (const LabDef& d : lab_defs())
      if (args[0] == d.name) def = &d;
    if (!def) throw Error("unknown lab \"" + args[0] + "\" (the labs: " + lab_names() + ")");
    parsed = parse_args(args);
  } catch (const Error& e) {
    err << "tidepool lab: " << e.what() << "\n" << kUsage << "Labs:\n";
    print_list(err);
    return 2;
  }
  try {
    run_lab(*def, parsed, out);
    return 0;
  } catch (const experiments::Stopped&) {
    err << "tidepool lab: stopped\n";
    return 130;
  } catch (const Error& e) {
    out.flush();
    err << "tidepool lab " << def->name << ": " << e.what() << "\n";
    if (!e.hint().empty()) err << "HINT:  " << e.hint() << "\n";
    return 1;
  }
}

}  // namespace tp::labs
