#include "engine/session/database.h"

#include <filesystem>
#include <set>

#include "engine/core/error.h"
#include "engine/session/layer_settings.h"

namespace tp {
namespace {

// The data directories a Database of this process has open. The directory's
// lock file keeps other processes out; this list keeps a second Database of
// the same process out, with an error that says what to do instead.
std::mutex g_open_mutex;
std::set<std::string> g_open_directories;

std::string directory_key(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

}  // namespace

struct Database::DirectoryClaim {
  explicit DirectoryClaim(const std::string& path) : key(directory_key(path)) {
    std::lock_guard lock(g_open_mutex);
    if (!g_open_directories.insert(key).second)
      throw Error("data directory \"" + path + "\" is already open in this process", "",
                  "Open its Database once and hand it to every Session "
                  "(Session(std::shared_ptr<Database>)).")
          .with_sqlstate(sqlstate::kObjectInUse);
  }
  ~DirectoryClaim() {
    std::lock_guard lock(g_open_mutex);
    g_open_directories.erase(key);
  }
  DirectoryClaim(const DirectoryClaim&) = delete;
  DirectoryClaim& operator=(const DirectoryClaim&) = delete;

  std::string key;
};

std::shared_ptr<Database> Database::open(const DatabaseOptions& options) {
  return std::shared_ptr<Database>(new Database(options));
}

Database::Database(const DatabaseOptions& options)
    : options_(options), claim_(std::make_unique<DirectoryClaim>(options.data_dir)) {
  dir_ = std::make_unique<DataDir>(options.data_dir,
                                   DataDirOptions{.create_if_missing = options.create_if_missing});
  settings_.load_conf_file(dir_->conf_path());
  for (const std::string& s : options.settings) settings_.set_from_assignment(s);
  storage_ = std::make_unique<Storage>(*dir_, storage_config(settings_));
  // The database-wide settings: SET in any session rebuilds the shared part.
  for (const char* name : {"io_method", "io_workers", "io_direct", "io_max_concurrency"})
    settings_.on_apply(
        name, [this](const std::string&) { storage_->set_io_config(io_config(settings_)); });
  settings_.on_apply("shared_buffers", [this](const std::string&) {
    storage_->set_shared_buffers(int(settings_.get_int("shared_buffers")));
  });
}

Database::~Database() {
  storage_.reset();  // flushes and closes files before the data directory unlocks
  dir_.reset();
}

}  // namespace tp
