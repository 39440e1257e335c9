#include "tools/server/connection.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/session_memory.h"
#include "engine/session/session.h"
#include "engine/sql/lexer.h"
#include "tools/server/client_copy.h"
#include "tools/server/extended.h"
#include "tools/server/password_file.h"
#include "tools/server/results.h"
#include "tools/server/scram.h"
#include "tools/server/wire.h"

namespace tp::server {
namespace {

// What the client said in its startup packet.
struct Startup {
  int minor_version = 0;
  std::map<std::string, std::string> params;
  std::vector<std::string> protocol_options;  // "_pq_.*": none is known
};

// A connection that must end with a FATAL message (the client is told why).
struct Fatal {
  Fatal(std::string c, std::string m, std::string h = {}, std::string d = {})
      : code(std::move(c)), message(std::move(m)), hint(std::move(h)), detail(std::move(d)) {}
  std::string code;
  std::string message;
  std::string hint;
  std::string detail;
};

void send_fatal(Socket& socket, const std::string& code, const std::string& message,
                const std::string& hint = {}, const std::string& detail = {}) {
  ErrorFields f;
  f.severity = "FATAL";
  f.code = code;
  f.message = message;
  f.hint = hint;
  f.detail = detail;
  try {
    socket.send(error_message('E', f));
    socket.flush();
  } catch (const ConnectionClosed&) {
    // the client is gone already
  }
}

void send_error(Socket& socket, ErrorFields f) {
  f.severity = "ERROR";
  socket.send(error_message('E', f));
}

void send_ready(Socket& socket, Session& session) {
  socket.send(Message('Z').int8(uint8_t(session.transaction_status())).finish());
  socket.flush();
}

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point deadline) {
  return int(std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
}

// Reads startup packets until the real one: SSLRequest and GSSENCRequest get
// 'N' (tidepool has no encryption) and the client goes on in the clear, each at
// most once, as PostgreSQL allows; a repeat is an unknown protocol. The whole
// exchange has one deadline (PostgreSQL's authentication_timeout), so a client
// cannot hold a connection slot by restarting it. False for a CancelRequest,
// which ends the connection without a reply.
bool read_startup(Socket& socket, Server& server, Clock::time_point deadline, Startup& out) {
  bool ssl_done = false;
  bool gss_done = false;
  for (;;) {
    const int left = ms_left(deadline);
    if (left <= 0) throw ConnectionClosed("timeout waiting for the startup packet");
    std::string body = socket.read_startup_packet(left);
    int32_t code = read_int32(body.data());
    if (code == kCancelRequestCode) {
      if (body.size() >= 12) server.cancel_request(read_int32(&body[4]), read_int32(&body[8]));
      return false;
    }
    bool& done = code == kSslRequestCode ? ssl_done : gss_done;
    if ((code == kSslRequestCode || code == kGssEncRequestCode) && !done) {
      done = true;
      socket.send("N");
      socket.flush();
      continue;
    }
    if ((code >> 16) != 3)
      throw Fatal{"08P01",
                  "unsupported frontend protocol " + std::to_string(code >> 16) + "." +
                      std::to_string(code & 0xffff) + ": server supports 3.0 to 3.0",
                  ""};
    out.minor_version = code & 0xffff;
    BodyReader r(std::string_view(body).substr(4));
    while (!r.at_end()) {
      std::string name = r.cstring();
      if (name.empty()) break;
      std::string value = r.cstring();
      try {
        sql::verify_utf8(name);
        sql::verify_utf8(value);
      } catch (const Error& e) {
        throw Fatal{e.sqlstate(), e.what(), ""};
      }
      if (name.rfind("_pq_.", 0) == 0)
        out.protocol_options.push_back(name);
      else
        out.params[name] = value;
    }
    if (out.params["user"].empty())
      throw Fatal{"28000", "no PostgreSQL user name specified in startup packet", ""};
    return true;
  }
}

// A SASLInitialResponse or SASLResponse ('p') within the startup deadline.
ClientMessage read_sasl_message(Socket& socket, Clock::time_point deadline) {
  ClientMessage m = socket.read_message(ms_left(deadline));
  if (m.type != 'p')
    throw Fatal{"08P01", "expected SASL response, got message type " + std::to_string(int(m.type))};
  return m;
}

// The client-first-message of a SASLInitialResponse: the mechanism's name, then
// the data's int32 length and the data.
std::string initial_sasl_data(const ClientMessage& m) {
  BodyReader r(m.body);
  if (r.cstring() != "SCRAM-SHA-256")
    throw Fatal{"08P01", "client selected an invalid SASL authentication mechanism"};
  const size_t at = m.body.find('\0') + 1;
  if (m.body.size() < at + 4 || read_int32(&m.body[at]) != int32_t(m.body.size() - at - 4))
    throw Fatal{"08P01", "invalid message format"};
  return m.body.substr(at + 4);
}

// PostgreSQL's scram-sha-256 method when the server has a password file; trust
// (nothing to do) without one. An unknown user goes through the same exchange
// and fails at its end, as a wrong password does.
void authenticate(Socket& socket, Server& server, const Startup& startup,
                  Clock::time_point deadline) {
  const PasswordFile* passwords = server.passwords();
  if (passwords == nullptr) return;
  const std::string& user = startup.params.at("user");
  auto known = passwords->users.find(user);
  ScramExchange scram(known == passwords->users.end() ? std::nullopt : std::optional(known->second),
                      user, server.mock_secret());
  socket.send(Message('R').int32(10).str("SCRAM-SHA-256").int8(0).finish());  // AuthenticationSASL
  socket.flush();
  try {
    std::string server_first = scram.first(initial_sasl_data(read_sasl_message(socket, deadline)));
    socket.send(Message('R').int32(11).bytes(server_first).finish());  // AuthenticationSASLContinue
    socket.flush();
    std::optional<std::string> server_final = scram.final(read_sasl_message(socket, deadline).body);
    if (!server_final)
      throw Fatal{"28P01", "password authentication failed for user \"" + user + "\""};
    socket.send(Message('R').int32(12).bytes(*server_final).finish());  // AuthenticationSASLFinal
  } catch (const ScramMalformed& e) {
    throw Fatal{"08P01", "malformed SCRAM message", "", e.what()};
  }
}

// Startup settings: application_name, and "-c name=value" / "--name=value" in
// the options parameter (PGOPTIONS). They become the session's reset values.
void apply_startup_settings(Session& session, const Startup& startup) {
  std::vector<std::string> assignments;
  if (auto it = startup.params.find("options"); it != startup.params.end()) {
    std::istringstream words(it->second);
    std::string w;
    while (words >> w) {
      if (w == "-c") continue;
      if (w.rfind("-c", 0) == 0) w = w.substr(2);
      if (w.rfind("--", 0) == 0) {  // --enable-seqscan=off: dashes in the name are underscores
        w = w.substr(2);
        for (size_t i = 0; i < w.size() && w[i] != '='; ++i)
          if (w[i] == '-') w[i] = '_';
      }
      assignments.push_back(w);
    }
  }
  for (const std::string& a : assignments) {
    size_t eq = a.find('=');
    if (eq == std::string::npos)
      throw Error("invalid command-line argument for server process: " + a).with_sqlstate("22023");
    std::string name = a.substr(0, eq);
    if (session.settings().def(name).scope == SettingScope::kDatabase)
      throw Error("parameter \"" + name + "\" cannot be changed now", "",
                  "Database-wide settings are given to tidepool serve with --set.")
          .with_sqlstate("55P02");
    session.settings().set(name, a.substr(eq + 1), false);
  }
  if (auto it = startup.params.find("application_name"); it != startup.params.end())
    session.settings().set("application_name", it->second, false);
}

// Returns the secret key of BackendKeyData.
int32_t send_startup_reply(Socket& socket, Session& session, const Startup& startup) {
  if (startup.minor_version > 0 || !startup.protocol_options.empty()) {
    Message v('v');
    v.int32(0).int32(int32_t(startup.protocol_options.size()));
    for (const std::string& o : startup.protocol_options) v.str(o);
    socket.send(v.finish());
  }
  socket.send(Message('R').int32(0).finish());  // AuthenticationOk
  auto param = [&](const std::string& name) {
    auto it = startup.params.find(name);
    return it == startup.params.end() ? std::string() : it->second;
  };
  const std::pair<std::string, std::string> status[] = {
      {"server_version", "15.0"},
      {"server_encoding", "UTF8"},
      {"client_encoding", "UTF8"},
      {"DateStyle", "ISO, MDY"},
      {"IntervalStyle", "postgres"},
      {"TimeZone", "UTC"},
      {"integer_datetimes", "on"},
      {"standard_conforming_strings", "on"},
      {"is_superuser", "on"},
      {"session_authorization", param("user")},
      {"application_name", session.settings().show("application_name")},
      {"tidepool", "on"},
  };
  for (const auto& [name, value] : status) socket.send(Message('S').str(name).str(value).finish());
  std::random_device random;
  auto secret = int32_t(random());
  socket.send(Message('K').int32(session.activity().pid).int32(secret).finish());
  return secret;
}

// The simple-query and extended-protocol loop of one session.
class QueryLoop {
 public:
  QueryLoop(Server& server, ConnectionSlot& slot, Socket& socket, Session& session)
      : server_(server),
        slot_(slot),
        socket_(socket),
        session_(session),
        extended_(socket, session),
        copy_(socket) {
    socket_.track_memory(&messages_memory_);
    session_.set_copy_io(&copy_);
  }
  ~QueryLoop() {
    session_.set_copy_io(nullptr);
    socket_.track_memory(nullptr);
  }
  QueryLoop(const QueryLoop&) = delete;
  QueryLoop& operator=(const QueryLoop&) = delete;

  // Returns when the client terminates or goes away; throws Fatal to end the
  // connection with a message.
  void run() {
    for (;;) {
      ClientMessage m = socket_.read_message();
      switch (m.type) {
        case 'Q':
          // Exactly one string and its terminator, as pq_getmsgstring and pq_getmsgend
          // require: PostgreSQL's ERROR 08P01, then ReadyForQuery.
          if (m.body.empty() || m.body.back() != '\0') {
            send_error(socket_, protocol_error("invalid string in message"));
          } else if (m.body.find('\0') + 1 != m.body.size()) {
            send_error(socket_, protocol_error("invalid message format"));
          } else {
            extended_.simple_query_started();
            query(m.body.substr(0, m.body.size() - 1));
            if (must_close()) throw Fatal{"57P01", kTerminating, ""};
          }
          ready(m);
          break;
        case 'X':
          return;
        case 'P':
        case 'B':
        case 'E':
        case 'D':
        case 'C':
        case 'H':
          extended(m);
          break;
        case 'S':
          skipping_to_sync_ = false;
          // Sync has no body (pq_getmsgend): bytes in it are PostgreSQL's 08P01.
          if (!m.body.empty()) send_error(socket_, protocol_error("invalid message format"));
          end_implicit_block();
          extended_.sync();
          ready(m);
          break;
        case 'F':
          send_error(socket_, refused("function call messages are not supported by tidepool"));
          ready(m);
          break;
        case 'd':
        case 'c':
        case 'f':
          break;  // CopyData / CopyDone / CopyFail outside COPY: ignored, as PostgreSQL does
        default:
          throw Fatal{"08P01", "invalid frontend message type " + std::to_string(int(m.type)), ""};
      }
    }
  }

  static constexpr const char* kTerminating = "terminating connection due to administrator command";

 private:
  static ErrorFields refused(std::string message, std::string hint = {}) {
    ErrorFields f;
    f.code = sqlstate::kFeatureNotSupported;
    f.message = std::move(message);
    f.hint = std::move(hint);
    return f;
  }

  static ErrorFields protocol_error(std::string message) {
    ErrorFields f;
    f.code = "08P01";
    f.message = std::move(message);
    return f;
  }

  // ReadyForQuery, once the message is done with: the session's memory figure
  // shows it gone before the client can ask.
  void ready(ClientMessage& m) {
    m.body = std::string();
    messages_memory_.set(socket_.queued_capacity());
    send_ready(socket_, session_);
  }

  bool must_close() const {
    return server_.stopping() || session_.activity().terminate_requested.load();
  }

  // Parse, Bind, Describe, Execute, Close (extended.h) and Flush. After an error every
  // message up to Sync is skipped, as PostgreSQL does; Sync gets ReadyForQuery.
  void extended(const ClientMessage& m) {
    if (m.type == 'H') {
      // Flush has no body either; an error in the extended protocol skips to Sync.
      if (!m.body.empty() && !skipping_to_sync_) {
        send_error(socket_, protocol_error("invalid message format"));
        skipping_to_sync_ = true;
      }
      socket_.flush();
      return;
    }
    if (skipping_to_sync_) return;
    try {
      slot_.busy = m.type == 'E';  // a running statement: its client's hang-up cancels it
      switch (m.type) {
        case 'P':
          extended_.parse(m.body);
          break;
        case 'B':
          extended_.bind(m.body);
          break;
        case 'D':
          extended_.describe(m.body);
          break;
        case 'E':
          extended_.execute(m.body);
          break;
        case 'C':
          extended_.close(m.body);
          break;
        default:
          break;
      }
      slot_.busy = false;
    } catch (const ConnectionClosed&) {
      slot_.busy = false;
      throw;
    } catch (...) {
      slot_.busy = false;
      if (must_close()) throw Fatal{"57P01", kTerminating, ""};
      send_error(socket_, error_fields(std::current_exception()));
      skipping_to_sync_ = true;
    }
    if (must_close()) throw Fatal{"57P01", kTerminating, ""};
  }

  // Runs each statement of a Query string; an error skips the rest. Several statements
  // are one implicit transaction block: an error undoes what those before it wrote.
  void query(const std::string& text) {
    query_ = text;
    std::vector<QueryPart> parts = split_query(text);
    if (parts.empty()) socket_.send(Message('I').finish());  // EmptyQueryResponse
    for (const QueryPart& part : parts) {
      // A session being terminated commits nothing: its end undoes the block.
      if (must_close()) return;
      if (parts.size() > 1) session_.begin_implicit_block(/*pipeline=*/false);
      if (!statement(part)) break;
    }
    if (!must_close()) end_implicit_block();
  }

  // The end of a Query string or a Sync: commits the implicit block's writes. A commit
  // that fails (a cancel at its last moment) is the error the client gets.
  void end_implicit_block() {
    try {
      session_.end_implicit_block();
    } catch (...) {
      send_error(socket_, error_fields(std::current_exception()));
    }
  }

  // NoticeResponses of one severity (PostgreSQL's default SQLSTATE for it).
  void notices(const std::vector<std::string>& messages, const char* severity, const char* code) {
    for (const std::string& m : messages) {
      ErrorFields f;
      f.severity = severity;
      f.code = code;
      f.message = m;
      socket_.send(error_message('N', f));
    }
  }

  // A query's rows go to the client as they are made: the socket sends whenever 64 kB
  // are queued, so a session holds about that much of its result, whatever its size.
  class StreamToClient : public RowSink {
   public:
    explicit StreamToClient(QueryLoop& loop) : loop_(loop) {}
    void begin(const ResultSet& header) override {
      types_.column_types = header.column_types;
      loop_.notices(header.notices, "NOTICE", "00000");
      send_row_description(loop_.socket_, header);
    }
    void row(const std::vector<std::string>& cells, const std::vector<bool>* nulls) override {
      send_data_row(loop_.socket_, types_, cells, nulls);
    }

   private:
    QueryLoop& loop_;
    ResultSet types_;  // the columns' types, for NULLs without flags
  };

  // One statement; false when it failed.
  bool statement(const QueryPart& part) {
    ResultSet r;
    StreamToClient stream(*this);
    try {
      slot_.busy = true;
      r = session_.execute(part.text, &stream);
      slot_.busy = false;
    } catch (const ConnectionClosed&) {
      slot_.busy = false;
      throw;  // the client went away (or stopped reading) while rows were sent
    } catch (...) {
      slot_.busy = false;
      if (must_close()) return false;  // the cancel was the server's: FATAL follows
      ErrorFields f = error_fields(refuse_catalog_query(part.text, std::current_exception()));
      if (f.position > 0) f.position = character_position(query_, part.offset + f.position);
      send_error(socket_, f);
      return false;
    }
    notices(r.notices, "NOTICE", "00000");
    notices(r.warnings, "WARNING", "01000");
    send_result(socket_, r);
    return true;
  }

  Server& server_;
  ConnectionSlot& slot_;
  Socket& socket_;
  Session& session_;
  // The message being handled and the queued replies, in the session's memory figure.
  TrackedMemory messages_memory_{MemoryPart::kMessages, &session_.activity().memory};
  bool skipping_to_sync_ = false;
  std::string_view query_;  // the Query string being run
  ExtendedProtocol extended_;
  ClientCopy copy_;
};

// From the startup packet to the end of the session.
void serve(Server& server, ConnectionSlot& slot, Socket& socket) {
  // One deadline for the whole exchange up to AuthenticationOk (PostgreSQL's
  // authentication_timeout), so a client cannot hold a connection slot by restarting it.
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(server.startup_timeout_ms());
  Startup startup;
  if (!read_startup(socket, server, deadline, startup)) return;
  if (server.stopping()) throw Fatal{"57P03", "the database system is shutting down"};
  authenticate(socket, server, startup, deadline);
  if (!server.claim_backend(slot)) throw Fatal{"53300", "sorry, too many clients already"};
  Session session(server.database_ptr());
  if (!server.allow_global_set())
    session.refuse_database_settings(
        "Database-wide settings are given to tidepool serve with --set, or by clients when it "
        "runs with --allow-global-set.");
  // pg_terminate_backend ends a session even while it waits for a client that reads
  // nothing; the check goes with the session (send_fatal may still send after it).
  struct AbandonCheck {
    Socket& socket;
    Server& server;
    ~AbandonCheck() {
      Server* s = &server;
      socket.set_abandon_check([s] { return s->stopping(); });
    }
  } abandon{socket, server};
  socket.set_abandon_check([&server, &session] {
    return server.stopping() || session.activity().terminate_requested.load();
  });
  try {
    const auto user = startup.params.find("user");
    const auto database = startup.params.find("database");
    const std::string user_name = user == startup.params.end() ? "" : user->second;
    session.set_client_names(user_name, database == startup.params.end() || database->second.empty()
                                            ? user_name
                                            : database->second);
    auto app = startup.params.find("application_name");
    server.database().sessions().set_client(
        session.activity(), app == startup.params.end() ? "" : app->second, slot.client_addr);
    apply_startup_settings(session, startup);
  } catch (const Error& e) {
    throw Fatal{e.sqlstate().empty() ? "22023" : e.sqlstate(), e.what(), e.hint()};
  }
  int32_t secret = send_startup_reply(socket, session, startup);
  server.publish_backend_key(slot, session.activity().pid, secret);
  send_ready(socket, session);
  QueryLoop(server, slot, socket, session).run();
}

}  // namespace

void run_connection(Server& server, ConnectionSlot& slot) {
  Socket socket(slot.fd, server.stop_fd());
  socket.set_abandon_check([&server] { return server.stopping(); });
  try {
    serve(server, slot, socket);
  } catch (const Fatal& f) {
    send_fatal(socket, f.code, f.message, f.hint, f.detail);
  } catch (const ProtocolViolation& e) {
    send_fatal(socket, "08P01", e.what());
  } catch (const ConnectionClosed&) {
    if (server.stopping()) send_fatal(socket, "57P01", QueryLoop::kTerminating);
  } catch (...) {
    ErrorFields f = error_fields(std::current_exception());
    send_fatal(socket, f.code, f.message);
  }
  ::shutdown(slot.fd, SHUT_RDWR);
  server.release_backend(slot);
  slot.done = true;
}

}  // namespace tp::server
