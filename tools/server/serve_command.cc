#include "tools/server/serve_command.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "engine/core/error.h"
#include "engine/session/database.h"
#include "tools/live/live_server.h"
#include "tools/server/server.h"

namespace tp::server {
namespace {

const char* kUsage =
    "Usage: tidepool serve [-D DIR] [--port N] [--listen ADDR]... [--max-connections N]\n"
    "                      [--password-file FILE] [--allow-global-set] [--trace-dir DIR]\n"
    "                      [--http PORT [--http-rate HZ]] [--set NAME=VALUE]...\n"
    "Serves the data directory DIR to PostgreSQL clients (psql, pgbench, psycopg,\n"
    "asyncpg, JDBC, node-postgres) with PostgreSQL's protocol 3.0: the simple and the\n"
    "extended query flows, COPY.\n"
    "  -D, --data DIR         data directory (default $TIDEPOOL_DATA or ./tidepool-data)\n"
    "  -p, --port N           TCP port (default 5433; 0: any free port, named in the\n"
    "                         listening line)\n"
    "      --listen ADDR      address to listen on (repeatable; default 127.0.0.1 and ::1).\n"
    "                         Any other address needs --password-file. There is no TLS:\n"
    "                         passwords are never sent (SCRAM), but the data is in the clear.\n"
    "      --password-file FILE  users and SCRAM-SHA-256 verifiers (write it with `tidepool\n"
    "                         passwd FILE USER`): every client logs in with a password.\n"
    "                         Without it every client is accepted as the user it names\n"
    "                         (trust), on loopback only\n"
    "      --allow-global-set clients may SET database-wide settings (shared_buffers,\n"
    "                         io_method, io_workers, io_direct, io_max_concurrency), which\n"
    "                         change them for every session; without it: ERROR 55P02\n"
    "      --max-connections N  clients at once (default 32); more are refused\n"
    "      --set NAME=VALUE   a setting's starting value (repeatable), as in tidepool.conf\n"
    "      --trace-dir DIR    where clients' I/O traces go (SET io_trace = 'name.json' takes\n"
    "                         a plain file name there; default: traces/ beside the data\n"
    "                         directory, created with mode 0700)\n"
    "      --http PORT        also serve the live view of the pool and the I/O in flight\n"
    "                         (a web page; tools/live/README.md) on PORT, on the --listen\n"
    "                         addresses (0: any free port). It has no password: it shows\n"
    "                         every session's statement to whoever reaches it\n"
    "      --http-rate HZ     the live view's snapshots a second (1..20, default 4)\n"
    "SIGTERM or SIGINT (Ctrl-C) stops it: running statements are cancelled, clients are\n"
    "told, the data directory is closed and unlocked.\n";

std::atomic<Server*> g_server{nullptr};  // for the signal handler; set while the server lives
volatile std::sig_atomic_t g_stop_requested = 0;  // a signal before the server existed

// Only the stop pipe's write(): async-signal-safe, and the accept loop does the rest.
void on_stop_signal(int) {
  g_stop_requested = 1;
  if (Server* s = g_server.load()) s->stop();
}

struct ServeArgs {
  DatabaseOptions db;
  ServerOptions server;
  live::LiveServerOptions live;
  bool http = false;
  std::string password_file;
  int exit_code = -1;  // >= 0: exit at once with it
};

int parse_int(const std::string& text, const char* option, int min, int max, int& exit_code) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min || v > max) {
    std::fprintf(stderr, "tidepool serve: invalid value for %s: \"%s\" (%d..%d)\n", option,
                 text.c_str(), min, max);
    exit_code = 2;
  }
  return int(v);
}

ServeArgs parse_args(const std::vector<std::string>& args) {
  ServeArgs r;
  const char* env = std::getenv("TIDEPOOL_DATA");
  r.db.data_dir = env && *env ? env : "./tidepool-data";
  for (size_t i = 0; i < args.size() && r.exit_code < 0; ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 < args.size()) return args[++i];
      std::fprintf(stderr, "tidepool serve: option %s needs a value\n%s", opt, kUsage);
      r.exit_code = 2;
      return "";
    };
    if (a == "-D" || a == "--data")
      r.db.data_dir = value("-D");
    else if (a == "-p" || a == "--port")
      r.server.port = parse_int(value("--port"), "--port", 0, 65535, r.exit_code);
    else if (a == "--listen")
      r.server.listen.push_back(value("--listen"));
    else if (a == "--max-connections")
      r.server.max_connections =
          parse_int(value("--max-connections"), "--max-connections", 1, 10000, r.exit_code);
    else if (a == "--set")
      r.db.settings.push_back(value("--set"));
    else if (a == "--password-file")
      r.password_file = value("--password-file");
    else if (a == "--allow-global-set")
      r.server.allow_global_set = true;
    else if (a == "--http") {
      r.http = true;
      r.live.port = parse_int(value("--http"), "--http", 0, 65535, r.exit_code);
    } else if (a == "--http-rate")
      r.live.hz = parse_int(value("--http-rate"), "--http-rate", 1, 20, r.exit_code);
    else if (a == "--trace-dir")
      r.db.trace_dir = value("--trace-dir");
    else if (a.rfind("--set=", 0) == 0)
      r.db.settings.push_back(a.substr(6));
    else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      r.exit_code = 0;
    } else {
      std::fprintf(stderr, "tidepool serve: unknown option \"%s\"\n%s", a.c_str(), kUsage);
      r.exit_code = 2;
    }
  }
  return r;
}

// The trace directory: given, or traces/ beside the data directory; created 0700 when
// missing. Never the data directory or inside it, never a symbolic link (a link planted
// where the default goes would send clients' files elsewhere).
std::string prepare_trace_dir(const std::string& given, const std::string& data_dir) {
  namespace fs = std::filesystem;
  fs::path dir = given;
  if (dir.empty()) {
    fs::path data = fs::absolute(data_dir).lexically_normal();
    if (!data.has_filename()) data = data.parent_path();  // "data/"
    dir = data.parent_path() / "traces";
  }
  // Checked before anything is created: weakly_canonical resolves the part that exists.
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::absolute(dir), ec).lexically_normal();
  fs::path data_real = fs::weakly_canonical(fs::absolute(data_dir), ec).lexically_normal();
  if (!real.has_filename()) real = real.parent_path();
  if (!data_real.has_filename()) data_real = data_real.parent_path();
  auto mismatch = std::mismatch(data_real.begin(), data_real.end(), real.begin(), real.end());
  if (mismatch.first == data_real.end())
    throw Error("trace directory \"" + dir.string() + "\" is inside the data directory", "",
                "Give --trace-dir a directory outside it.");
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error("could not create trace directory \"" + dir.string() +
                "\": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("trace directory \"" + dir.string() + "\" is not a directory", "",
                "Give --trace-dir a directory (not a symbolic link).");
  return real.string();
}

void install_stop_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a vanished client is a failed send, not the end of the server
}

void print_listening(const Server& server) {
  for (const std::string& w : server.warnings())
    std::fprintf(stderr, "tidepool: WARNING: %s\n", w.c_str());
  std::string where;
  for (const std::string& a : server.addresses()) where += (where.empty() ? "" : ", ") + a;
  std::string auth =
      server.passwords() != nullptr
          ? "scram-sha-256: " + std::to_string(server.passwords()->users.size()) + " users"
          : "trust authentication: no passwords";
  std::fprintf(stderr, "tidepool: listening on %s (%s; %s)\n", where.c_str(), auth.c_str(),
               server.loopback_only() ? "loopback only" : "not loopback only, no TLS");
}

}  // namespace

int run_serve_command(const std::vector<std::string>& args) {
  ServeArgs a = parse_args(args);
  if (a.exit_code >= 0) return a.exit_code;
  install_stop_handlers();
  try {
    if (!a.password_file.empty())
      a.server.passwords =
          std::make_shared<const PasswordFile>(read_password_file(a.password_file));
    a.db.trace_dir = prepare_trace_dir(a.db.trace_dir, a.db.data_dir);
    std::shared_ptr<Database> db = Database::open(a.db);
    {
      Server server(db, a.server);
      std::unique_ptr<live::LiveServer> view;
      if (a.http) {
        a.live.listen = a.server.listen;
        view = std::make_unique<live::LiveServer>(db, a.live);
      }
      g_server = &server;
      if (g_stop_requested) server.stop();  // Ctrl-C while the directory opened
      print_listening(server);
      if (view) {
        for (const std::string& url : view->urls())
          std::fprintf(stderr, "tidepool: live view at %s\n", url.c_str());
        if (!view->loopback_only())
          std::fprintf(stderr,
                       "tidepool: WARNING: the live view has no password and listens beyond "
                       "loopback: whoever reaches it sees every statement\n");
        view->start();
      }
      server.run();
      if (view) view->stop();
      g_server = nullptr;
    }
    std::fprintf(stderr, "tidepool: server stopped\n");
  } catch (const Error& e) {
    g_server = nullptr;
    std::fprintf(stderr, "tidepool serve: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "HINT:  %s\n", e.hint().c_str());
    return 1;
  }
  return 0;
}

}  // namespace tp::server
