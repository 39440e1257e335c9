#include "tools/server/extended.h"

#include <deque>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/type_send.h"
#include "engine/sql/lexer.h"
#include "tools/server/results.h"

namespace tp::server {

namespace {

Error protocol_error(const std::string& message) {
  return Error(message).with_sqlstate(sqlstate::kProtocolViolation);
}

// A message body read as PostgreSQL's pq_getmsg* read it: running short, or bytes left
// at the end, is ERROR 08P01 (the session goes on after Sync).
class MessageReader {
 public:
  explicit MessageReader(std::string_view body) : b_(body) {}

  std::string cstring() {
    const size_t end = b_.find('\0', at_);
    if (end == std::string_view::npos) throw protocol_error("invalid string in message");
    std::string s(b_.substr(at_, end - at_));
    at_ = end + 1;
    return s;
  }
  int16_t int16() { return int16_t(uint16_t(get(2))); }
  int32_t int32() { return int32_t(uint32_t(get(4))); }
  uint8_t int8() { return uint8_t(get(1)); }
  std::string_view bytes(size_t n) {
    if (b_.size() - at_ < n) throw insufficient();
    std::string_view s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  void end() const {
    if (at_ != b_.size()) throw protocol_error("invalid message format");
  }

 private:
  static Error insufficient() { return protocol_error("insufficient data left in message"); }
  uint64_t get(size_t n) {
    if (b_.size() - at_ < n) throw insufficient();
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | uint8_t(b_[at_ + i]);
    at_ += n;
    return v;
  }

  std::string_view b_;
  size_t at_ = 0;
};

// A parameter type the client gave: none for 0 (and `unknown`, 705), which Parse
// infers from the statement.
std::optional<TypeId> declared_type(int32_t oid, size_t n) {
  if (oid == 0 || oid == 705) return std::nullopt;
  for (TypeId t :
       {TypeId::kBool, TypeId::kInt2, TypeId::kInt4, TypeId::kInt8, TypeId::kText, TypeId::kFloat4,
        TypeId::kFloat8, TypeId::kBpchar, TypeId::kVarchar, TypeId::kDate, TypeId::kTimestamp,
        TypeId::kTimestamptz, TypeId::kInterval, TypeId::kNumeric})
    if (int32_t(t) == oid) return t;
  throw Error("type with OID " + std::to_string(uint32_t(oid)) + " of parameter $" +
                  std::to_string(n) + " is not supported by tidepool",
              "",
              "tidepool has bool, smallint, integer, bigint, real, double precision, "
              "numeric, text, varchar, char(n), date, timestamp, timestamptz and interval.")
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

Error no_statement(const std::string& name) {
  return Error(name.empty() ? std::string("unnamed prepared statement does not exist")
                            : "prepared statement \"" + name + "\" does not exist")
      .with_sqlstate(sqlstate::kInvalidSqlStatementName);
}

Error no_portal(const std::string& name) {
  return Error("portal \"" + name + "\" does not exist")
      .with_sqlstate(sqlstate::kInvalidCursorName);
}

// Format codes as Bind gives them: none (all text), one for all, or one each.
std::vector<int16_t> expand_formats(const std::vector<int16_t>& codes, size_t n) {
  if (codes.empty()) return std::vector<int16_t>(n, 0);
  if (codes.size() == 1) return std::vector<int16_t>(n, codes[0]);
  return codes;
}

std::vector<int16_t> read_formats(MessageReader& r) {
  const int16_t n = r.int16();
  std::vector<int16_t> codes;
  for (int16_t i = 0; i < n; ++i) {
    const int16_t f = r.int16();
    if (f != 0 && f != 1)
      throw Error("unsupported format code: " + std::to_string(f))
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    codes.push_back(f);
  }
  return codes;
}

// Bind's value of parameter $n as the text its type's input function reads: a text
// value checked by that function now (its error is Bind's, as in PostgreSQL), a binary
// one through the type's receive function.
std::string parameter_text(TypeId type, std::string_view bytes, bool binary, size_t n) {
  if (!binary) {
    sql::verify_utf8(bytes);
    (void)datum_in(type, kNoTypmod, bytes, 0);
    return std::string(bytes);
  }
  try {
    return datum_out(type, datum_recv(type, kNoTypmod, bytes).datum());
  } catch (Error& e) {
    if (std::string_view(e.what()) == "incorrect binary data format")
      throw Error("incorrect binary data format in bind parameter " + std::to_string(n))
          .with_sqlstate(sqlstate::kInvalidBinaryRepresentation);
    throw;
  }
}

}  // namespace

struct ExtendedProtocol::Portal {
  std::string name;
  std::shared_ptr<const PreparedStatement> statement;
  sql::StatementParams params;
  std::vector<int16_t> formats;  // each result column's
  enum class State : uint8_t { kNew, kSuspended, kDone } state = State::kNew;
  ResultSet header;  // the columns, once the statement ran
  struct Row {
    std::vector<std::string> cells;
    std::vector<bool> nulls;  // empty: none
  };
  std::deque<Row> kept;  // rows past an Execute's limit, for the next one
  uint64_t kept_bytes = 0;
  uint64_t sent_now = 0;  // rows sent by the running Execute
};

// An Execute's rows: sent while under its limit, kept in the portal past it.
class ExtendedProtocol::PortalSink : public RowSink {
 public:
  PortalSink(ExtendedProtocol& ext, Portal& p, uint64_t max_rows)
      : ext_(ext), p_(p), max_(max_rows) {}
  void begin(const ResultSet& header) override {
    p_.header = header;
    p_.header.notices.clear();
    for (const std::string& m : header.notices) ext_.notice(m, "NOTICE", "00000");
  }
  void row(const std::vector<std::string>& cells, const std::vector<bool>* nulls) override {
    if (max_ == 0 || p_.sent_now < max_) {
      send_data_row(ext_.socket_, p_.header, cells, nulls, p_.formats);
      ++p_.sent_now;
    } else {
      ext_.keep_row(p_, cells, nulls);
    }
  }

 private:
  ExtendedProtocol& ext_;
  Portal& p_;
  uint64_t max_;
};

ExtendedProtocol::ExtendedProtocol(Socket& socket, Session& session)
    : socket_(socket), session_(session) {}

ExtendedProtocol::~ExtendedProtocol() = default;

void ExtendedProtocol::notice(const std::string& message, const char* severity, const char* code) {
  ErrorFields f;
  f.severity = severity;
  f.code = code;
  f.message = message;
  socket_.send(error_message('N', f));
}

void ExtendedProtocol::parse(std::string_view body) {
  MessageReader r(body);
  const std::string name = r.cstring();
  const std::string text = r.cstring();
  const int16_t n = r.int16();
  std::vector<std::optional<TypeId>> declared;
  for (int16_t i = 0; i < n; ++i) declared.push_back(declared_type(r.int32(), size_t(i) + 1));
  r.end();
  std::vector<QueryPart> parts = split_query(text);
  if (parts.size() > 1)
    throw Error("cannot insert multiple commands into a prepared statement")
        .with_sqlstate(sqlstate::kSyntaxError);
  if (name.empty()) session_.deallocate("");  // the unnamed statement is replaced
  try {
    session_.prepare(name, parts.empty() ? std::string() : parts[0].text, declared);
  } catch (Error& e) {
    if (e.position() > 0)
      e.at_position(character_position(text, parts[0].offset + size_t(e.position())));
    std::rethrow_exception(refuse_catalog_query(text, std::current_exception()));
  }
  socket_.send(Message('1').finish());  // ParseComplete
}

void ExtendedProtocol::bind(std::string_view body) {
  MessageReader r(body);
  const std::string portal_name = r.cstring();
  const std::string statement_name = r.cstring();
  const std::vector<int16_t> param_formats = read_formats(r);
  const int16_t nvalues = r.int16();
  struct Value {
    bool isnull;
    std::string_view bytes;
  };
  std::vector<Value> values;
  for (int16_t i = 0; i < nvalues; ++i) {
    const int32_t len = r.int32();
    if (len < -1) throw protocol_error("invalid message format");
    values.push_back(len == -1 ? Value{true, {}} : Value{false, r.bytes(size_t(len))});
  }
  const std::vector<int16_t> result_formats = read_formats(r);
  r.end();

  std::shared_ptr<const PreparedStatement> ps = session_.prepared(statement_name);
  if (!ps) throw no_statement(statement_name);
  const std::vector<TypeId>& types = ps->description.param_types;
  if (param_formats.size() > 1 && param_formats.size() != values.size())
    throw protocol_error("bind message has " + std::to_string(param_formats.size()) +
                         " parameter formats but " + std::to_string(values.size()) + " parameters");
  if (values.size() != types.size())
    throw protocol_error("bind message supplies " + std::to_string(values.size()) +
                         " parameters, but prepared statement \"" + statement_name +
                         "\" requires " + std::to_string(types.size()));
  const size_t ncols = ps->description.returns_rows ? ps->description.header.columns.size() : 0;
  if (result_formats.size() > 1 && result_formats.size() != ncols)
    throw protocol_error("bind message has " + std::to_string(result_formats.size()) +
                         " result formats but query has " + std::to_string(ncols) + " columns");
  if (!portal_name.empty() && portals_.count(portal_name) != 0)
    throw Error("portal \"" + portal_name + "\" already exists")
        .with_sqlstate(sqlstate::kDuplicateCursor);

  const std::vector<int16_t> formats = expand_formats(param_formats, values.size());
  std::vector<sql::ParamSlot> slots(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    slots[i].type = types[i];
    slots[i].isnull = values[i].isnull;
    if (!values[i].isnull)
      slots[i].text = parameter_text(types[i], values[i].bytes, formats[i] == 1, i + 1);
  }
  drop_portal(portal_name);  // the unnamed portal is replaced
  auto p = std::make_unique<Portal>();
  p->name = portal_name;
  p->statement = std::move(ps);
  p->params = sql::StatementParams(std::move(slots), /*describing=*/false);
  p->formats = expand_formats(result_formats, ncols);
  p->header = p->statement->description.header;
  portals_[portal_name] = std::move(p);
  socket_.send(Message('2').finish());  // BindComplete
}

void ExtendedProtocol::describe(std::string_view body) {
  MessageReader r(body);
  const uint8_t kind = r.int8();
  const std::string name = r.cstring();
  r.end();
  if (kind == 'S') {
    std::shared_ptr<const PreparedStatement> ps = session_.prepared(name);
    if (!ps) throw no_statement(name);
    Message m('t');  // ParameterDescription
    m.int16(int16_t(ps->description.param_types.size()));
    for (TypeId t : ps->description.param_types) m.int32(int32_t(t));
    socket_.send(m.finish());
    if (ps->description.returns_rows)
      send_row_description(socket_, ps->description.header);
    else
      socket_.send(Message('n').finish());  // NoData
  } else if (kind == 'P') {
    auto it = portals_.find(name);
    if (it == portals_.end()) throw no_portal(name);
    const Portal& p = *it->second;
    if (p.statement->description.returns_rows)
      send_row_description(socket_, p.header, p.formats);
    else
      socket_.send(Message('n').finish());
  } else {
    throw protocol_error("invalid DESCRIBE message subtype " + std::to_string(kind));
  }
}

void ExtendedProtocol::execute(std::string_view body) {
  MessageReader r(body);
  const std::string name = r.cstring();
  const int32_t max = r.int32();
  r.end();
  auto it = portals_.find(name);
  if (it == portals_.end()) throw no_portal(name);
  Portal& p = *it->second;
  const uint64_t max_rows = max <= 0 ? 0 : uint64_t(max);
  p.sent_now = 0;
  if (p.statement->text.empty()) {
    socket_.send(Message('I').finish());  // EmptyQueryResponse
    return;
  }
  switch (p.state) {
    case Portal::State::kNew: {
      p.state = Portal::State::kDone;  // a statement that fails is not run again
      PortalSink sink(*this, p, max_rows);
      ResultSet result;
      session_.begin_implicit_block(/*pipeline=*/true);  // up to the Sync
      try {
        result = session_.execute_prepared(*p.statement, "", &sink, p.params);
      } catch (Error& e) {
        if (e.position() > 0)
          e.at_position(character_position(p.statement->text, size_t(e.position())));
        throw;
      }
      if (result.returns_rows && !result.streamed) {
        // SHOW, EXPLAIN, the system views: their rows came in the result.
        std::vector<std::vector<std::string>> rows = std::move(result.rows);
        std::vector<std::vector<bool>> nulls = std::move(result.nulls);
        result.rows.clear();
        result.nulls.clear();
        sink.begin(result);
        for (size_t i = 0; i < rows.size(); ++i)
          sink.row(rows[i], i < nulls.size() ? &nulls[i] : nullptr);
      }
      for (const std::string& m : result.notices) notice(m, "NOTICE", "00000");
      for (const std::string& m : result.warnings) notice(m, "WARNING", "01000");
      if (result.returns_rows && max_rows != 0 && p.sent_now == max_rows) {
        p.state = Portal::State::kSuspended;
        socket_.send(Message('s').finish());  // PortalSuspended
      } else {
        socket_.send(Message('C').str(result.tag).finish());
      }
      return;
    }
    case Portal::State::kSuspended:
      while (!p.kept.empty() && (max_rows == 0 || p.sent_now < max_rows)) {
        Portal::Row& row = p.kept.front();
        send_data_row(socket_, p.header, row.cells, row.nulls.empty() ? nullptr : &row.nulls,
                      p.formats);
        ++p.sent_now;
        const uint64_t bytes = row_bytes(row.cells);
        p.kept_bytes -= bytes;
        kept_bytes_ -= bytes;
        p.kept.pop_front();
      }
      if (max_rows != 0 && p.sent_now == max_rows) {
        socket_.send(Message('s').finish());
        return;
      }
      p.state = Portal::State::kDone;
      socket_.send(Message('C').str("SELECT " + std::to_string(p.sent_now)).finish());
      return;
    case Portal::State::kDone:
      if (p.statement->description.returns_rows) {
        socket_.send(Message('C').str("SELECT 0").finish());
        return;
      }
      throw Error("portal \"" + name + "\" cannot be run")
          .with_sqlstate(sqlstate::kObjectNotInPrerequisiteState);
  }
}

void ExtendedProtocol::close(std::string_view body) {
  MessageReader r(body);
  const uint8_t kind = r.int8();
  const std::string name = r.cstring();
  r.end();
  if (kind == 'S')
    session_.deallocate(name);
  else if (kind == 'P')
    drop_portal(name);
  else
    throw protocol_error("invalid CLOSE message subtype " + std::to_string(kind));
  socket_.send(Message('3').finish());  // CloseComplete
}

void ExtendedProtocol::sync() {
  if (session_.in_transaction_block()) return;
  portals_.clear();
  kept_bytes_ = 0;
}

void ExtendedProtocol::drop_portal(const std::string& name) {
  auto it = portals_.find(name);
  if (it == portals_.end()) return;
  kept_bytes_ -= it->second->kept_bytes;
  portals_.erase(it);
}

uint64_t ExtendedProtocol::row_bytes(const std::vector<std::string>& cells) {
  uint64_t bytes = sizeof(Portal::Row);
  for (const std::string& c : cells) bytes += sizeof(std::string) + c.size();
  return bytes;
}

void ExtendedProtocol::keep_row(Portal& p, const std::vector<std::string>& cells,
                                const std::vector<bool>* nulls) {
  const uint64_t bytes = row_bytes(cells);
  if (kept_bytes_ + bytes > kMaxPortalBytes)
    throw Error("the rows a portal keeps past Execute's row limit exceed " +
                    std::to_string(kMaxPortalBytes >> 20) + " MB",
                "", "Fetch more rows per Execute, or all of them (a limit of 0).")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  p.kept.push_back({cells, nulls ? *nulls : std::vector<bool>()});
  p.kept_bytes += bytes;
  kept_bytes_ += bytes;
}

}  // namespace tp::server
