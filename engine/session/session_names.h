// How the session's statements name relations in their messages, as PostgreSQL
// words them. Shared by the files that implement Session's statements.
#pragma once

#include <string>

#include "engine/core/error.h"

namespace tp {

inline std::string quoted(const std::string& name) {
  return "\"" + name + "\"";
}

inline Error relation_missing(const std::string& name, int position = 0) {
  return Error("relation " + quoted(name) + " does not exist")
      .at_position(position)
      .with_sqlstate(sqlstate::kUndefinedTable);
}

}  // namespace tp
