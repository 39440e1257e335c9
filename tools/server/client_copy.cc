#include "tools/server/client_copy.h"

#include <cstdio>

#include "engine/core/error.h"

namespace tp::server {

void ClientCopy::response(char type, sql::CopyStmt::Format format, size_t columns) {
  const int16_t code = format == sql::CopyStmt::Format::kBinary ? 1 : 0;
  Message m(type);
  m.int8(uint8_t(code)).int16(int16_t(columns));
  for (size_t i = 0; i < columns; ++i) m.int16(code);
  socket_.send(m.finish());
  socket_.flush();
}

void ClientCopy::begin_in(sql::CopyStmt::Format format, size_t columns) {
  response('G', format, columns);
}

bool ClientCopy::read(std::string& chunk) {
  for (;;) {
    ClientMessage m = socket_.read_message();
    switch (m.type) {
      case 'd':
        chunk = std::move(m.body);
        return true;
      case 'c':
        return false;
      case 'f':
        throw Error("COPY from stdin failed: " + m.body.substr(0, m.body.find('\0')))
            .with_sqlstate(sqlstate::kQueryCanceled);
      case 'H':
      case 'S':
        continue;
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", unsigned(uint8_t(m.type)));
        throw Error(std::string("unexpected message type ") + hex + " during COPY from stdin")
            .with_sqlstate(sqlstate::kProtocolViolation);
      }
    }
  }
}

void ClientCopy::begin_out(sql::CopyStmt::Format format, size_t columns) {
  response('H', format, columns);
}

void ClientCopy::write(std::string_view data) {
  socket_.send(Message('d').bytes(data).finish());
}

void ClientCopy::end_out() {
  socket_.send(Message('c').finish());
}

}  // namespace tp::server
