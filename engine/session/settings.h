// The settings registry: every knob a researcher can turn, defined once with
// its type, unit, range, default and a one-line description, and written the
// way PostgreSQL writes it ('128MB', '8kB', on/off).
//
// Values come from (lowest to highest): the built-in default, tidepool.conf in
// the data directory, --set on the command line, and SET in the session. RESET
// returns to the value the session started with (conf file / --set), as
// PostgreSQL's reset value does.
//
// Each setting has a scope (SettingDef::scope). A database-wide setting
// configures what the sessions of one Database share (the buffer pool, the I/O
// system): it has one value, kept in the Database's Settings; a session's
// Settings reads and writes it there, so SET in one session changes it for
// every session and RESET puts back the Database's conf file / --set value for
// all. Every other setting is per session: each Session's Settings starts from
// the Database's conf file / --set values and changes them for itself only.
//
// A setting may have apply hooks: they run once the new value is in place (so
// they read it with the typed getters) and may throw (e.g. io_uring cannot
// start), in which case the old value is put back. This is how SET
// shared_buffers rebuilds the pool.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

// kText: free text (application_name), or, with choices, one of the choices
// written in any case, spacing and punctuation, and shown as the choice is
// written ('utf-8' -> UTF8); a value of several comma-separated words matches
// a choice holding them all ('ISO' -> 'ISO, MDY').
enum class SettingType { kBool, kInt, kReal, kEnum, kText };

// Units of an Int setting's stored value, as PostgreSQL's GUC_UNIT_*.
enum class SettingUnit { kNone, kKb, kBlocks, kMs };

// Where a setting's value lives (see the top of this file).
enum class SettingScope { kSession, kDatabase };

struct SettingDef {
  std::string name;
  SettingType type = SettingType::kInt;
  SettingUnit unit = SettingUnit::kNone;
  double min = 0;
  double max = 0;
  std::string default_value;         // as written in a conf file
  std::vector<std::string> choices;  // Enum only
  std::string description;
  std::string group;  // "Resource Usage", "Asynchronous I/O", "Query Planning", ...
  SettingScope scope = SettingScope::kSession;
};

class Settings {
 public:
  using ApplyHook = std::function<void(const std::string& name)>;

  // All definitions known to this build (settings_defs.cc), in display order.
  static const std::vector<SettingDef>& definitions();

  // A Settings that holds every setting itself (a Database's).
  Settings();
  // A session's: per-session settings start from `database`'s current and
  // reset values; database-wide ones are read and written in `database`,
  // which must outlive this object.
  explicit Settings(Settings& database);
  // Apply hooks hold this object's address.
  Settings(const Settings&) = delete;
  Settings& operator=(const Settings&) = delete;

  // Sets `name` from text. Throws tp::Error naming the setting and what is
  // allowed; on error the value is unchanged. `session` = true for SET (the
  // value RESET returns to is kept); false for conf file / command line.
  void set(std::string_view name, std::string_view value, bool session = true);
  // "all" resets every setting, database-wide ones included (only those whose
  // value differs, so an unchanged shared_buffers keeps its pool).
  void reset(std::string_view name);
  // Parses "name=value" (command line --set); same errors as set().
  void set_from_assignment(std::string_view assignment);
  // Reads a tidepool.conf: "name = value" lines, '#' comments, optional quotes.
  void load_conf_file(const std::string& path);

  std::string show(std::string_view name) const;  // as SHOW prints it
  const SettingDef& def(std::string_view name) const;

  // Typed access for the code that honours a setting. Int values are in the
  // setting's unit (kB, 8 kB blocks, ms); memory helpers convert.
  int64_t get_int(std::string_view name) const;
  double get_real(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::string& get_enum(std::string_view name) const;
  const std::string& get_text(std::string_view name) const { return get_enum(name); }

  // A count of every value any Settings has taken since the process started: what a
  // reader that derives something from the values (a session's planner settings)
  // compares to know its copy is current. Database-wide values change in another
  // session's statements, so one count covers all.
  static uint64_t changes();

  // Registers a hook run once a new value of `name` is in place. A hook on a
  // database-wide setting lives in the Database's Settings, so only what lives
  // as long as the Database (its Storage) registers one.
  void on_apply(std::string_view name, ApplyHook hook);

 private:
  struct Value {
    double number = 0;  // Bool (0/1), Int, Real
    std::string text;   // Enum
  };
  Value parse(const SettingDef& d, std::string_view text) const;
  std::string format(const SettingDef& d, const Value& v) const;
  const Value& value(std::string_view name) const;
  void assign(const SettingDef& d, const Value& v);
  void reset_one(const SettingDef& d);  // assigns the reset value if it differs
  // Where `d`'s value lives: the Database's Settings for a database-wide
  // setting of a session's Settings, this object otherwise.
  Settings& owner(const SettingDef& d);
  void refuse_unbuilt();
  void check_device_curves();  // registers the hooks that parse each device_* setting
  const Settings& owner(const SettingDef& d) const;

  Settings* database_ = nullptr;  // set in a session's Settings

  std::map<std::string, Value, std::less<>> values_;
  std::map<std::string, Value, std::less<>> reset_values_;
  std::map<std::string, std::vector<ApplyHook>, std::less<>> hooks_;
};

// "8kB", "128MB", "4GB" for a byte count, PostgreSQL style (largest exact unit).
std::string format_memory_kb(int64_t kb);

}  // namespace tp
