// SET, SHOW and RESET on the session's settings (engine/session/settings.h: a
// database-wide setting changes for every session of the Database).
#include "engine/core/error.h"
#include "engine/session/session.h"

namespace tp {

void Session::check_setting_may_change(const std::string& name) const {
  if (database_settings_refused_ && name != "all" &&
      settings_->def(name).scope == SettingScope::kDatabase)
    throw Error("parameter \"" + name + "\" cannot be changed now", "", database_settings_hint_)
        .with_sqlstate(sqlstate::kCantChangeRuntimeParam);
}

ResultSet Session::set(const sql::SetStmt& s) {
  check_setting_may_change(s.name);
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
  check_setting_may_change(s.name);
  if (s.name == "all" && database_settings_refused_) {
    for (const SettingDef& d : Settings::definitions())
      if (d.scope == SettingScope::kSession) settings_->reset(d.name);
  } else {
    settings_->reset(s.name);
  }
  ResultSet r;
  r.tag = "RESET";
  return r;
}

}  // namespace tp
