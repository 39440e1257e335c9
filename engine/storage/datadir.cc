// Opening a data directory: recognise it (marker file) before touching it,
// initialise it only when it is new or empty, lock it, read the catalog;
// committing a catalog; writing the statement journal. Restoring the committed
// state is datadir_restore.cc.
#include "engine/storage/datadir.h"

#include <dirent.h>
#include <sys/file.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/interrupts.h"
#include "engine/storage/catalog_format.h"
#include "engine/storage/datadir_journal.h"
#include "engine/storage/fs_util.h"

namespace tp {
namespace {

using fs::fail;

const char* kLockFile = "tidepool.pid";
// A settings file may be written before the first open (README "Settings"):
// with the lock file, the only names a directory may hold and still be "empty".
const char* kConfFile = "tidepool.conf";

enum class DirState {
  kMissing,  // no such path
  kEmpty,    // a directory holding nothing but (maybe) tidepool.pid and tidepool.conf
  kMarked,   // a tidepool data directory
  kLegacy,   // an earlier tidepool's directory: version-1 catalog and base/, no marker
  kForeign,  // anything else: never touched
};

std::string first_line_of(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_empty_directory(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (!dir) return false;
  bool empty = true;
  while (dirent* e = readdir(dir))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  closedir(dir);
  return empty;
}

// What initialise() leaves when the process dies before the marker is written
// (a kill in the first milliseconds of `tidepool sql -D NEW`): an empty base/,
// maybe the empty catalog, maybe the .new files of an atomic write. Nothing in
// it can be data, and every name is one initialise() writes, so it is
// initialised again rather than refused for ever.
bool is_cut_short_initialisation(const std::string& path, const std::vector<std::string>& names) {
  static const char* const kInitNames[] = {"base", "catalog", "catalog.new",
                                           "TIDEPOOL_DATADIR.new"};
  for (const std::string& n : names)
    if (std::find(std::begin(kInitNames), std::end(kInitNames), n) == std::end(kInitNames))
      return false;
  if (std::find(names.begin(), names.end(), "base") == names.end()) return false;
  if (!is_directory(path + "/base") || !is_empty_directory(path + "/base")) return false;
  if (std::find(names.begin(), names.end(), "catalog") == names.end()) return true;
  std::ifstream in(path + "/catalog", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return Catalog::parse(text, path + "/catalog").relations.empty();
  } catch (const Error&) {
    return false;
  }
}

DirState inspect(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return DirState::kMissing;
    fail("access data directory", path);
  }
  if (!S_ISDIR(st.st_mode)) return DirState::kForeign;
  DIR* dir = opendir(path.c_str());
  if (!dir) fail("open directory", path);
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != ".." && name != kLockFile && name != kConfFile)
      names.push_back(name);
  }
  closedir(dir);
  if (names.empty()) return DirState::kEmpty;
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  if (has(kDataDirMarker)) return DirState::kMarked;
  if (is_cut_short_initialisation(path, names)) return DirState::kEmpty;
  if (has("catalog") && has("base") && is_directory(path + "/base") &&
      catalog_format::is_text_v1(first_line_of(path + "/catalog") + "\n"))
    return DirState::kLegacy;
  return DirState::kForeign;
}

Error not_a_data_directory(const std::string& path) {
  return Error("\"" + path + "\" is not a tidepool data directory (no " + kDataDirMarker + " file)",
               "",
               "tidepool creates a data directory only where none exists or in an empty "
               "directory, and never changes another one; give -D a new or empty directory.");
}

std::string marker_content() {
  return "tidepool data directory\nformat " + std::to_string(kDataDirFormat) + "\n";
}

void check_marker(const std::string& path) {
  std::string file = path + "/" + kDataDirMarker;
  // An ifstream opens a directory and then reads nothing: name the real problem.
  if (is_directory(file)) fs::fail("read file", file, EISDIR);
  std::ifstream in(file);
  if (!in) fail("open", file);
  std::string first, word;
  int format = 0;
  std::getline(in, first);
  in >> word >> format;
  if (first != "tidepool data directory" || word != "format" || format < 1)
    throw Error("marker file \"" + file + "\" is damaged", "",
                "It should read \"tidepool data directory\" and \"format " +
                    std::to_string(kDataDirFormat) + "\" on two lines.");
  if (format > kDataDirFormat)
    throw Error("data directory \"" + path + "\" has format " + std::to_string(format) +
                    ", newer than this tidepool reads (" + std::to_string(kDataDirFormat) + ")",
                "", "Open it with the tidepool that wrote it.");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".new";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fail("create file", tmp);
  try {
    fs::write_all(fd, content.data(), content.size(), 0, tmp);
    if (fsync(fd) != 0) fail("fsync", tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) fail("rename file", tmp);
  std::string dir = path.substr(0, path.find_last_of('/'));
  fs::fsync_path(dir.empty() ? "." : dir, true);
}

DataDir::DataDir(std::string path, DataDirOptions options) : path_(std::move(path)) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  recognise_and_lock(options);
  try {
    load_catalog();
    restore();
    // With the lock held no other process can be spilling here: any temporary file is
    // a crashed run's. Only tidepool's own names go (aio/temp_file.h says why). Best
    // effort: a leftover that cannot be removed (its folder's permissions changed) costs
    // disk space, never the directory's opening.
    try {
      aio::remove_leftover_temp_files(temp_path());
    } catch (const Error&) {
    }
  } catch (...) {
    // The destructor will not run: give the lock back, or this very process
    // would find the directory "in use" on its next try.
    ::close(lock_fd_);
    throw;
  }
}

DataDir::~DataDir() {
  // An open journal means a statement neither committed nor restored: leave
  // it for the next open, exactly as a crash would.
  if (journal_fd_ >= 0) ::close(journal_fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

// Nothing is created, changed or removed until the directory is known to be a
// data directory (or new, or empty). The state is looked at again under the
// lock: another process may have initialised it in between.
void DataDir::recognise_and_lock(const DataDirOptions& options) {
  DirState state = inspect(path_);
  if (state == DirState::kForeign) throw not_a_data_directory(path_);
  if (!options.create_if_missing && (state == DirState::kMissing || state == DirState::kEmpty))
    throw Error("data directory \"" + path_ + "\" " +
                (state == DirState::kMissing ? "does not exist" : "is empty"));
  if (state == DirState::kMissing) fs::make_dir(path_);
  lock();
  try {
    switch (inspect(path_)) {
      case DirState::kMarked:
        check_marker(path_);
        break;
      case DirState::kLegacy:
        write_file_atomically(path_ + "/" + kDataDirMarker, marker_content());
        break;
      case DirState::kEmpty:
        initialise();
        break;
      case DirState::kMissing:
      case DirState::kForeign:
        throw not_a_data_directory(path_);
    }
  } catch (...) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw;
  }
}

void DataDir::lock() {
  std::string lock = path_ + "/" + kLockFile;
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) fail("open lock file", lock);
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {};
    ssize_t n = pread(lock_fd_, buf, sizeof buf - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err == EWOULDBLOCK) {
      std::string pid = n > 0 ? std::string(buf, size_t(n)) : "?";
      while (!pid.empty() && (pid.back() == '\n')) pid.pop_back();
      throw Error("data directory \"" + path_ + "\" is in use by another tidepool process (pid " +
                      pid + ")",
                  "", "Wait for it to finish, or use another data directory with -D.");
    }
    fail("lock", lock, err);
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(lock_fd_, 0) != 0) fail("truncate", lock);
  fs::write_all(lock_fd_, pid.data(), pid.size(), 0, lock);
}

// The marker is written last: a directory holding it is complete. An
// initialisation cut short leaves an unmarked directory holding only what this
// function writes, which inspect() recognises and initialises again.
void DataDir::initialise() {
  fs::make_dir(path_ + "/base");
  fs::fsync_path(path_ + "/base", true);
  write_file_atomically(path_ + "/catalog", Catalog{}.serialize());
  write_file_atomically(path_ + "/" + kDataDirMarker, marker_content());
}

std::string DataDir::relation_path(uint32_t relnumber) const {
  return path_ + "/base/" + std::to_string(relnumber);
}

void DataDir::load_catalog() {
  std::string file = path_ + "/catalog";
  ::unlink((file + ".new").c_str());  // an interrupted write: the rename never happened
  if (is_directory(file)) fs::fail("read file", file, EISDIR);  // else "parse error at line 1"
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (errno == ENOENT)
      throw Error("data directory \"" + path_ + "\" has no catalog file", file,
                  "The catalog names every relation; without it the files in base/ cannot be "
                  "read. Restore \"" +
                      file + "\" from a backup.");
    fail("open catalog", file);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("read catalog", file);
  publish(Catalog::parse(ss.str(), file));
}

std::shared_ptr<const Catalog> DataDir::catalog_snapshot() const {
  std::lock_guard lock(publish_mutex_);
  return catalog_;
}

void DataDir::publish(Catalog next) {
  auto published = std::make_shared<const Catalog>(std::move(next));
  std::lock_guard lock(publish_mutex_);
  catalog_ = std::move(published);
}

void DataDir::sync_base_directory() {
  fs::fsync_path(path_ + "/base", true);
}

void DataDir::commit(Catalog next) {
  if (before_commit_hook_) before_commit_hook_();
  check_for_interrupts();
  next.version = catalog_->version + 1;
  write_file_atomically(path_ + "/catalog", next.serialize());
  publish(std::move(next));
  {
    // Relations the commit dropped take their damage with them.
    std::lock_guard lock(publish_mutex_);
    std::erase_if(damaged_, [&](const auto& d) {
      for (const RelationEntry& r : catalog_->relations)
        if (r.relnumber == d.first) return false;
      return true;
    });
  }
  close_journal();
}

std::optional<std::string> DataDir::damage(uint32_t relnumber) const {
  std::lock_guard lock(publish_mutex_);
  auto it = damaged_.find(relnumber);
  if (it == damaged_.end()) return std::nullopt;
  return it->second;
}

std::map<uint32_t, std::string> DataDir::damaged() const {
  std::lock_guard lock(publish_mutex_);
  return damaged_;
}

void DataDir::close_journal() {
  if (journal_fd_ >= 0) {
    ::close(journal_fd_);
    journal_fd_ = -1;
  }
  std::string file = path_ + "/" + kJournalFile;
  ::unlink(file.c_str());
  journaled_.clear();
}

bool DataDir::has_before_image(uint32_t relnumber, BlockNumber block) const {
  return journaled_.count(journal_key(relnumber, block)) != 0;
}

uint32_t journal_record_crc(uint32_t relnumber, uint32_t block, const char* page) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  auto add = [&](const void* data, size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < len; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  };
  add(&relnumber, sizeof relnumber);
  add(&block, sizeof block);
  add(page, kBlockSize);
  return crc ^ 0xFFFFFFFFu;
}

void DataDir::save_before_image(uint32_t relnumber, BlockNumber block, const char* page) {
  if (has_before_image(relnumber, block)) return;
  // Only committed blocks of committed relations have an image to keep (restore()
  // cuts or removes the rest): a transaction block's later statement overwrites the
  // pages its earlier ones added without one.
  const RelationEntry* committed = nullptr;
  for (const RelationEntry& r : catalog_->relations)
    if (r.relnumber == relnumber) committed = &r;
  if (committed == nullptr || block >= committed->pages) return;
  std::string file = path_ + "/" + kJournalFile;
  if (journal_fd_ < 0) {
    journal_fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (journal_fd_ < 0) fail("create journal", file);
    char header[kJournalHeaderSize];
    std::memcpy(header, kJournalMagic, 8);
    std::memcpy(header + 8, &catalog_->version, 8);
    fs::write_all(journal_fd_, header, sizeof header, 0, file);
    fs::fsync_path(path_, true);
  }
  off_t end = lseek(journal_fd_, 0, SEEK_END);
  if (end < 0) fail("seek in journal", file);
  JournalRecordHeader rec{relnumber, block, journal_record_crc(relnumber, block, page)};
  std::vector<char> buf(sizeof rec + kBlockSize);
  std::memcpy(buf.data(), &rec, sizeof rec);
  std::memcpy(buf.data() + sizeof rec, page, kBlockSize);
  fs::write_all(journal_fd_, buf.data(), buf.size(), end, file);
  if (fdatasync(journal_fd_) != 0) fail("fsync", file);
  journaled_.insert(journal_key(relnumber, block));
}

}  // namespace tp
