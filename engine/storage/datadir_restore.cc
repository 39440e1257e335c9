// DataDir::restore(): put every file back as the committed catalog describes
// it, after a failed statement or (at open) a crash.
//
//   1. replay_journal: a journal whose base version is the catalog's belongs
//      to an unfinished statement; its before-images are written back.
//   2. reconcile_base_directory: files tidepool created that the catalog does
//      not name are removed; files longer than their committed size are cut;
//      a missing or short file marks its relation damaged (not the directory).
#include <dirent.h>
#include <sys/stat.h>

#include <charconv>
#include <vector>

#include "engine/storage/datadir.h"
#include "engine/storage/datadir_journal.h"
#include "engine/storage/fs_util.h"

namespace tp {
namespace {

using fs::fail;

// A name restore() may remove: one tidepool gives a relation file, the decimal
// form of a 32-bit relnumber. Anything else in base/ is not ours to delete.
bool is_relation_file_name(const std::string& name, uint32_t* relnumber) {
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), *relnumber);
  return ec == std::errc() && end == name.data() + name.size() &&
         name == std::to_string(*relnumber);
}

// A visibility map file: "<relnumber>_vm", or "<relnumber>_vm.new" (a replacement a
// crash interrupted before its rename, always garbage). Sets *relnumber, *pending.
bool is_vm_file_name(const std::string& name, uint32_t* relnumber, bool* pending) {
  *pending = name.size() > 7 && name.ends_with("_vm.new");
  const size_t suffix = *pending ? 7 : 3;
  if (name.size() <= suffix || (!*pending && !name.ends_with("_vm"))) return false;
  return is_relation_file_name(name.substr(0, name.size() - suffix), relnumber);
}

}  // namespace

void DataDir::restore() {
  if (journal_fd_ >= 0) {
    ::close(journal_fd_);
    journal_fd_ = -1;
  }
  replay_journal();
  reconcile_base_directory();
  std::string journal = path_ + "/" + kJournalFile;
  if (::unlink(journal.c_str()) != 0 && errno != ENOENT) fail("remove journal", journal);
  journaled_.clear();
}

void DataDir::replay_journal() {
  std::string file = path_ + "/" + kJournalFile;
  int jfd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (jfd < 0) {
    if (errno == ENOENT) return;
    fail("open journal", file);
  }
  try {
    char header[kJournalHeaderSize];
    // A header cut short (a crash while creating the journal) or not ours: no
    // statement can have overwritten a page under it.
    const bool whole = fs::read_up_to(jfd, header, sizeof header, 0, file) == sizeof header;
    const bool v2 = whole && std::memcmp(header, kJournalMagic, 8) == 0;
    const bool v1 = whole && std::memcmp(header, kJournalMagicV1, 8) == 0;
    uint64_t base_version = 0;
    if (v1 || v2) std::memcpy(&base_version, header + 8, 8);
    // A journal whose statement committed (catalog moved on) is obsolete.
    if ((v1 || v2) && base_version == catalog_->version) {
      const size_t head = v2 ? sizeof(JournalRecordHeader) : sizeof(JournalRecordHeaderV1);
      std::vector<char> rec(head + kBlockSize);
      struct stat st;
      if (fstat(jfd, &st) != 0) fail("stat", file);
      off_t off = sizeof header;
      // A short read is a record cut by a crash (the end); a failed read throws.
      for (int n = 1; fs::read_up_to(jfd, rec.data(), rec.size(), off, file) == rec.size(); ++n) {
        JournalRecordHeader h{};
        std::memcpy(&h, rec.data(), head);
        const char* page = rec.data() + head;
        const bool last = off + off_t(rec.size()) >= st.st_size;
        off += off_t(rec.size());
        auto damaged = [&](const std::string& why) {
          return Error("statement journal \"" + file + "\" is damaged at record " +
                           std::to_string(n) + ": " + why,
                       "",
                       "It holds the before-images of an interrupted statement; writing it back "
                       "could damage the relation. Restore the directory from a backup, or move "
                       "the journal away to open the directory as the interrupted statement left "
                       "it.");
        };
        if (v2 && h.crc != journal_record_crc(h.relnumber, h.block, page)) {
          if (last) break;  // torn by a crash while it was written: its page is untouched
          throw damaged("its checksum does not match");
        }
        const RelationEntry* r = nullptr;
        for (const RelationEntry& c : catalog_->relations)
          if (c.relnumber == h.relnumber) r = &c;
        // Before-images are taken only of committed blocks of committed relations.
        if (r == nullptr)
          throw damaged("it names file base/" + std::to_string(h.relnumber) +
                        ", which the catalog does not list");
        if (h.block >= r->pages)
          throw damaged("it names block " + std::to_string(h.block) + " of relation \"" + r->name +
                        "\", which has " + std::to_string(r->pages) + " blocks");
        std::string rel = relation_path(h.relnumber);
        int fd = ::open(rel.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
          try {
            fs::write_all(fd, page, kBlockSize, off_t(h.block) * kBlockSize, rel);
            if (fsync(fd) != 0) fail("fsync", rel);
          } catch (...) {
            ::close(fd);
            throw;
          }
          ::close(fd);
        }
      }
    }
  } catch (...) {
    ::close(jfd);
    throw;
  }
  ::close(jfd);
}

void DataDir::reconcile_base_directory() {
  std::string base = path_ + "/base";
  DIR* dir = opendir(base.c_str());
  if (!dir && errno == ENOENT) {
    // Recognised directory without base/: every relation in it is missing.
    fs::make_dir(base);
    dir = opendir(base.c_str());
  }
  if (!dir) fail("open directory", base);
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(dir);
  // 1. Leftovers of statements that never committed (or of a DROP whose unlink
  //    a crash interrupted): regular files with relation-file names.
  //    A table's map goes with its table (DROP, TRUNCATE), and an unfinished
  //    replacement of a map is dropped (the map it would have replaced stays).
  for (const std::string& name : names) {
    uint32_t num = 0;
    bool vm_pending = false;
    const bool vm = is_vm_file_name(name, &num, &vm_pending);
    if (!vm && !is_relation_file_name(name, &num)) continue;
    bool known = false;
    for (const RelationEntry& r : catalog_->relations)
      known = known || (r.relnumber == num && (!vm || r.is_table()));
    known = known && !vm_pending;
    std::string full = base + "/" + name;
    struct stat st;
    if (known || lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlink(full.c_str()) != 0) fail("remove leftover file", full);
  }
  // 2. Every relation's file at its committed size, or the relation marked damaged.
  std::map<uint32_t, std::string> damaged;
  for (const RelationEntry& r : catalog_->relations) {
    std::string full = relation_path(r.relnumber);
    std::string shown = "base/" + std::to_string(r.relnumber);
    struct stat st;
    if (stat(full.c_str(), &st) != 0) {
      const int err = errno;
      damaged[r.relnumber] = "could not open relation \"" + r.name + "\": file " + shown +
                             (err == ENOENT ? " is missing" : ": " + std::string(strerror(err)));
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      damaged[r.relnumber] =
          "could not open relation \"" + r.name + "\": file " + shown + " is not a regular file";
      continue;
    }
    off_t want = off_t(r.pages) * kBlockSize;
    if (st.st_size > want) {
      if (truncate(full.c_str(), want) != 0) fail("truncate", full);
      fs::fsync_path(full, false);
    } else if (st.st_size < want) {
      damaged[r.relnumber] = "relation \"" + r.name + "\" has " +
                             std::to_string(st.st_size / kBlockSize) +
                             " blocks on disk but the catalog says " + std::to_string(r.pages) +
                             " (file " + shown + ")";
    }
  }
  {
    std::lock_guard lock(publish_mutex_);
    damaged_ = std::move(damaged);
  }
  fs::fsync_path(base, true);
}

}  // namespace tp
