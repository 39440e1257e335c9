// One client connection, on its own thread: the startup handshake, then the
// simple query loop with one Session. See README.md for the state machine.
#pragma once

#include "tools/server/server.h"

namespace tp::server {

// Runs the connection of `slot` to its end; never throws. Marks slot.done last.
void run_connection(Server& server, ConnectionSlot& slot);

}  // namespace tp::server
