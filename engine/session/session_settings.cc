// SET, SHOW and RESET on the session's settings (engine/session/settings.h: a
// database-wide setting changes for every session of the Database).
#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {

ResultSet Session::set(const sql::SetStmt& s) {
  if (s.to_default) {
    settings_->reset(s.name);
  } else {
    try {
      settings_->set(s.name, s.value);
    } catch (Error& e) {
      throw e.at_position(0);
    }
  }
  ResultSet r;
  r.tag = "SET";
  return r;
}

ResultSet Session::show(const sql::ShowStmt& s) {
  ResultSet r;
  r.returns_rows = true;
  if (s.name == "all") {
    r.columns = {"name", "setting", "description"};
    r.right_aligned = {false, false, false};
    r.column_types.assign(3, ValueType::kText);
    for (const SettingDef& d : Settings::definitions())
      r.rows.push_back({d.name, settings_->show(d.name), d.description});
  } else {
    r.columns = {s.name};
    r.right_aligned = {false};
    r.column_types = {ValueType::kText};
    r.rows.push_back({settings_->show(s.name)});
  }
  r.tag = "SHOW";
  return r;
}

ResultSet Session::reset(const sql::ResetStmt& s) {
  settings_->reset(s.name);
  ResultSet r;
  r.tag = "RESET";
  return r;
}

}  // namespace tp
