// COPY's data over the protocol (engine/session/session.h's CopyIo): COPY FROM STDIN
// sends CopyInResponse and reads CopyData until CopyDone (CopyFail ends the statement
// with PostgreSQL's 57014, a message of another type with 08P01; Flush and Sync are
// passed over, as PostgreSQL does during COPY); COPY TO STDOUT sends CopyOutResponse,
// a CopyData per row and CopyDone.
#pragma once

#include "engine/session/session.h"
#include "tools/server/wire.h"

namespace tp::server {

class ClientCopy : public CopyIo {
 public:
  explicit ClientCopy(Socket& socket) : socket_(socket) {}
  void begin_in(sql::CopyStmt::Format format, size_t columns) override;
  bool read(std::string& chunk) override;
  void begin_out(sql::CopyStmt::Format format, size_t columns) override;
  void write(std::string_view data) override;
  void end_out() override;

 private:
  void response(char type, sql::CopyStmt::Format format, size_t columns);
  Socket& socket_;
};

}  // namespace tp::server
