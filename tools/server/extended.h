// The extended query protocol of one connection: Parse, Bind, Describe, Execute and
// Close, with the portals they make. Prepared statements belong to the Session (SQL
// PREPARE and EXECUTE share their names); portals belong here, and end at Sync
// outside a transaction block, as PostgreSQL's end with their implicit transaction.
//
//   Parse(name, text, types)   Session::prepare: parsed and planned with NULL
//                              parameters; unknown parameter types inferred
//   Bind(portal, name, values) the values checked by their types' input (or receive)
//                              functions; the portal holds them
//   Describe('S' | 'P')        ParameterDescription and RowDescription, or NoData,
//                              from Parse's description: nothing is planned again
//   Execute(portal, n)         the statement planned with its values (PostgreSQL's
//                              custom plan) and run; at most n rows sent, the rest kept
//                              in the portal (PortalSuspended) for the next Execute
//
// Every handler throws on error (tp::Error with PostgreSQL's SQLSTATE); the caller
// sends ErrorResponse and skips to Sync.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/session/session.h"
#include "tools/server/wire.h"

namespace tp::server {

// A suspended portal keeps the rows it has not sent; a session's portals hold at most
// this much of them (the statement fails with 54000 past it).
inline constexpr uint64_t kMaxPortalBytes = 256ull << 20;

class ExtendedProtocol {
 public:
  ExtendedProtocol(Socket& socket, Session& session);
  ~ExtendedProtocol();

  void parse(std::string_view body);
  void bind(std::string_view body);
  void describe(std::string_view body);
  void execute(std::string_view body);
  void close(std::string_view body);
  // Sync: outside a transaction block the implicit transaction ends, and its portals.
  void sync();
  // The Query message's statements run in a transaction of their own too.
  void simple_query_started() { sync(); }

 private:
  struct Portal;
  class PortalSink;

  void keep_row(Portal& p, const std::vector<std::string>& cells, const std::vector<bool>* nulls);
  void drop_portal(const std::string& name);
  static uint64_t row_bytes(const std::vector<std::string>& cells);
  void notice(const std::string& message, const char* severity, const char* code);

  Socket& socket_;
  Session& session_;
  std::map<std::string, std::unique_ptr<Portal>> portals_;
  uint64_t kept_bytes_ = 0;  // rows kept by every portal
};

}  // namespace tp::server
