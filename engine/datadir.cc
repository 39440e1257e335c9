#include "engine/datadir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "engine/error.h"

namespace tp {
namespace {

constexpr char kJournalMagic[8] = {'t', 'p', 'u', 'n', 'd', 'o', '0', '1'};

std::string errno_text(int err) {
  return std::strerror(err);
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int err = errno) {
  throw Error("could not " + what + " \"" + path + "\": " + errno_text(err));
}

void write_all(int fd, const void* data, size_t len, off_t offset, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = pwrite(fd, p, len, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write to file", path);
    }
    p += n;
    len -= size_t(n);
    offset += n;
  }
}

void fsync_path(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) fail("open", path);
  if (fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    fail("fsync", path, err);
  }
  ::close(fd);
}

void make_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail("create directory", path);
}

uint64_t journal_key(uint32_t relnumber, BlockNumber block) {
  return (uint64_t(relnumber) << 32) | block;
}

// Journal layout: magic (8 bytes), base catalog version (8), then records of
// relnumber (4), block (4), page (8192). A record cut short by a crash is
// ignored: its page was not yet overwritten (we fsync before returning).
struct JournalRecordHeader {
  uint32_t relnumber;
  uint32_t block;
};

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".new";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fail("create file", tmp);
  try {
    write_all(fd, content.data(), content.size(), 0, tmp);
    if (fsync(fd) != 0) fail("fsync", tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) fail("rename file", tmp);
  std::string dir = path.substr(0, path.find_last_of('/'));
  fsync_path(dir.empty() ? "." : dir, true);
}

DataDir::DataDir(std::string path) : path_(std::move(path)) {
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  make_dir(path_);
  make_dir(path_ + "/base");
  std::string lock = path_ + "/tidepool.pid";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT, 0600);
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
  write_all(lock_fd_, pid.data(), pid.size(), 0, lock);
  try {
    load_catalog();
    restore();
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

std::string DataDir::relation_path(uint32_t relnumber) const {
  return path_ + "/base/" + std::to_string(relnumber);
}

void DataDir::load_catalog() {
  std::string file = path_ + "/catalog";
  ::unlink((file + ".new").c_str());  // an interrupted write: the rename never happened
  std::ifstream in(file);
  if (!in) {
    if (errno != ENOENT) fail("open catalog", file);
    catalog_ = Catalog{};
    write_file_atomically(file, catalog_.serialize());
    return;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  catalog_ = Catalog::parse(ss.str(), file);
}

void DataDir::sync_base_directory() {
  fsync_path(path_ + "/base", true);
}

void DataDir::commit(Catalog next) {
  next.version = catalog_.version + 1;
  write_file_atomically(path_ + "/catalog", next.serialize());
  catalog_ = std::move(next);
  close_journal();
}

void DataDir::close_journal() {
  if (journal_fd_ >= 0) {
    ::close(journal_fd_);
    journal_fd_ = -1;
  }
  std::string file = path_ + "/statement.undo";
  ::unlink(file.c_str());
  journaled_.clear();
}

bool DataDir::has_before_image(uint32_t relnumber, BlockNumber block) const {
  return journaled_.count(journal_key(relnumber, block)) != 0;
}

void DataDir::save_before_image(uint32_t relnumber, BlockNumber block, const char* page) {
  if (has_before_image(relnumber, block)) return;
  std::string file = path_ + "/statement.undo";
  if (journal_fd_ < 0) {
    journal_fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (journal_fd_ < 0) fail("create journal", file);
    char header[16];
    std::memcpy(header, kJournalMagic, 8);
    std::memcpy(header + 8, &catalog_.version, 8);
    write_all(journal_fd_, header, sizeof header, 0, file);
    fsync_path(path_, true);
  }
  off_t end = lseek(journal_fd_, 0, SEEK_END);
  if (end < 0) fail("seek in journal", file);
  JournalRecordHeader rec{relnumber, block};
  std::vector<char> buf(sizeof rec + kBlockSize);
  std::memcpy(buf.data(), &rec, sizeof rec);
  std::memcpy(buf.data() + sizeof rec, page, kBlockSize);
  write_all(journal_fd_, buf.data(), buf.size(), end, file);
  if (fdatasync(journal_fd_) != 0) fail("fsync", file);
  journaled_.insert(journal_key(relnumber, block));
}

void DataDir::restore() {
  std::string file = path_ + "/statement.undo";
  if (journal_fd_ >= 0) {
    ::close(journal_fd_);
    journal_fd_ = -1;
  }
  // 1. Write back before-images of an unfinished statement.
  int jfd = ::open(file.c_str(), O_RDONLY);
  if (jfd >= 0) {
    char header[16];
    bool ours = pread(jfd, header, sizeof header, 0) == ssize_t(sizeof header) &&
                std::memcmp(header, kJournalMagic, 8) == 0;
    uint64_t base_version = 0;
    if (ours) std::memcpy(&base_version, header + 8, 8);
    // A journal whose statement committed (catalog moved on) is obsolete.
    if (ours && base_version == catalog_.version) {
      std::vector<char> rec(sizeof(JournalRecordHeader) + kBlockSize);
      off_t off = sizeof header;
      while (pread(jfd, rec.data(), rec.size(), off) == ssize_t(rec.size())) {
        JournalRecordHeader h;
        std::memcpy(&h, rec.data(), sizeof h);
        std::string rel = relation_path(h.relnumber);
        int fd = ::open(rel.c_str(), O_WRONLY);
        if (fd >= 0) {
          write_all(fd, rec.data() + sizeof h, kBlockSize, off_t(h.block) * kBlockSize, rel);
          if (fsync(fd) != 0) {
            int err = errno;
            ::close(fd);
            fail("fsync", rel, err);
          }
          ::close(fd);
        }
        off += off_t(rec.size());
      }
    }
    ::close(jfd);
  }
  // 2. Cut files back to their committed size; remove files nobody owns.
  std::unordered_set<uint32_t> known;
  for (const auto& r : catalog_.relations) known.insert(r.relnumber);
  std::string base = path_ + "/base";
  DIR* dir = opendir(base.c_str());
  if (!dir) fail("open directory", base);
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(dir);
  for (const std::string& name : names) {
    std::string full = base + "/" + name;
    char* end = nullptr;
    unsigned long num = std::strtoul(name.c_str(), &end, 10);
    if (*end != '\0' || !known.count(uint32_t(num))) {
      if (::unlink(full.c_str()) != 0) fail("remove leftover file", full);
      continue;
    }
    const RelationEntry* rel = nullptr;
    for (const auto& r : catalog_.relations)
      if (r.relnumber == num) rel = &r;
    struct stat st;
    if (stat(full.c_str(), &st) != 0) fail("stat", full);
    off_t want = off_t(rel->pages) * kBlockSize;
    if (st.st_size > want) {
      if (truncate(full.c_str(), want) != 0) fail("truncate", full);
      fsync_path(full, false);
    } else if (st.st_size < want) {
      throw Error("relation \"" + rel->name + "\" has " + std::to_string(st.st_size / kBlockSize) +
                      " blocks on disk but the catalog says " + std::to_string(rel->pages),
                  "The file " + full + " was cut short outside tidepool.");
    }
  }
  // Files the catalog lists but that are missing (a crash between catalog
  // commit and file creation cannot happen: files are created first).
  for (const auto& r : catalog_.relations) {
    std::string full = relation_path(r.relnumber);
    if (access(full.c_str(), F_OK) != 0)
      throw Error("file of relation \"" + r.name + "\" is missing", full);
  }
  fsync_path(base, true);
  ::unlink(file.c_str());
  journaled_.clear();
}

}  // namespace tp
