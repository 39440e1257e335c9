// Temporary files: where a node that outgrows its memory (Materialize, a hash
// aggregate's partitions, a hash join's batches; an external sort next) puts the rows
// it cannot hold. PostgreSQL's fd.c OpenTemporaryFile and buffile.c, for one process:
// every spill goes through this module, so the rules below hold for all of them, not
// for each node separately (STYLE.md, "Spilling").
//
//   TempFileSpace space(data_dir + "/pgsql_tmp");   // the owner picks the directory
//   std::unique_ptr<TempFile> f = space.create();   // pgsql_tmp<pid>.<n>, made on demand
//   f->append(bytes, n); ...                        // written once, at the end
//   f->rewind(); f->read(buf, n); ...               // read back from the start, as often
//   f.reset();                                      // the name is gone, the bytes too
//
// Lifetime. A file's name lives no longer than its TempFile object: the destructor
// closes and unlinks it, so an error or a cancel (a tp::Error thrown
// through the node that owns the file) removes it while the stack unwinds, with no
// cleanup code in the nodes. A write that fails (a full disk) unlinks the file at once
// and leaves it unusable, so nothing stays behind even if its owner lives on. When the
// space is destroyed it unlinks the names of files still alive (their open descriptors
// keep working until their objects go): a space never leaves a name behind. Names are
// kept while the file is used, rather than unlinked at creation (which would need no
// crash cleanup), so that what a statement spills can be seen in the directory, as
// PostgreSQL's pg_ls_tmpdir() shows it, and so that a file can later be shared by name
// (a parallel hash join's batches, as PostgreSQL's SharedFileSet).
//
// Naming. `pgsql_tmp<pid>.<n>` (PostgreSQL's PG_TEMP_FILE_PREFIX, the process id, a
// counter shared by every space of the process), created with O_EXCL, so two spaces
// or two processes never share a file, and the name alone says "tidepool made this".
//
// Crash cleanup. A killed process leaves its files; remove_leftover_temp_files()
// removes them when the data directory is next opened (engine/storage/datadir.cc), with
// the directory's lock held, so no live process can own one. It removes only regular
// files whose whole name is the pattern above, with digits as tidepool writes them, and
// nothing else: not a symlink or a directory of that name, not `pgsql_tmp12.3.old`, not
// a file the user put there. PostgreSQL removes anything starting with the prefix;
// tidepool never removes what it cannot have made (engine/storage/README.md, "Data
// directory": restore() treats base/ the same way), since a wrong guess loses a user's
// file while a leftover costs only disk space.
//
// Accounting. The space counts the bytes its live files hold (PostgreSQL's
// temporary_files_size, which temp_file_limit will be checked against) and the files.
//
// Threads. A space is shared (every session of a data directory spills into one);
// create() and the counters are thread-safe. A TempFile belongs to one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tp::aio {

inline constexpr std::string_view kTempFilePrefix = "pgsql_tmp";

struct TempSpaceState;  // shared by a space and its files (temp_file.cc)

class TempFile {
 public:
  // Closes the file and removes its name (unless the space or a failed write did).
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  // Bytes appended so far (those still in the write buffer included).
  uint64_t size_bytes() const { return size_; }

  // Adds bytes at the end. Small appends are gathered into one write per 8 kB (BLCKSZ,
  // as buffile.c). Throws tp::Error "could not write to file ..." (53100 for a full
  // disk, else the errno's code): the file is then removed and refuses further use.
  void append(const void* data, size_t len);
  // Makes the next read() start at the first byte.
  void rewind() { read_at_ = 0; }
  // Reads up to `len` bytes from the read position; fewer only at the end. Reading
  // bytes still in the write buffer writes them first, so appends and reads may
  // alternate (a Materialize that replays, then reads more of its child).
  size_t read(void* data, size_t len);
  // As read(), but fewer than `len` bytes is damage: tp::Error naming the file.
  void read_exact(void* data, size_t len);
  uint64_t read_position() const { return read_at_; }

  // The descriptor, for tests that make it fail (dup2 of /dev/full onto it).
  int fd_for_testing() const { return fd_; }

 private:
  friend class TempFileSpace;
  TempFile(std::shared_ptr<TempSpaceState> space, std::string path, int fd);
  void flush();
  void write_at(const char* data, size_t len, uint64_t offset);
  [[noreturn]] void fail_write(int err);
  void check_usable() const;

  std::shared_ptr<TempSpaceState> space_;
  std::string path_;
  int fd_;
  uint64_t size_ = 0;     // logical size: on disk + in write_buffer_
  uint64_t written_ = 0;  // bytes on disk
  std::vector<char> write_buffer_;
  std::vector<char> read_buffer_;
  uint64_t read_buffer_at_ = 0;  // file offset of read_buffer_[0]
  uint64_t read_at_ = 0;
  bool failed_ = false;  // a write failed: the name is gone, no further use
};

class TempFileSpace {
 public:
  // `directory` is created (one level, mode 0700) when the first file is.
  explicit TempFileSpace(std::string directory);
  // Removes the names of files still alive (the objects stay safe to use and destroy).
  ~TempFileSpace();
  TempFileSpace(const TempFileSpace&) = delete;
  TempFileSpace& operator=(const TempFileSpace&) = delete;

  const std::string& directory() const;
  // A new, empty file. Throws tp::Error naming the directory or file when it cannot
  // be made.
  std::unique_ptr<TempFile> create();

  // Bytes the space's live files hold (temporary_files_size).
  uint64_t bytes_held() const;
  // Files alive now, and made since the space began.
  uint64_t files_open() const;
  uint64_t files_created() const;

  // Test hook: every write that would take a file of this space past `limit_bytes`
  // fails with `err` instead (ENOSPC: a full disk). err 0 turns it off.
  void fail_writes_for_testing(int err, uint64_t limit_bytes);

 private:
  std::shared_ptr<TempSpaceState> state_;
};

// True when `name` is one tidepool gives a temporary file: "pgsql_tmp", a process id
// (1-10 digits, no leading zero), ".", a counter (1-20 digits, no leading zero unless 0).
bool is_temp_file_name(std::string_view name);

// Removes the regular files of `directory` whose names pass is_temp_file_name (a
// crashed run's spills) and returns how many. A missing directory (or a non-directory
// in its place) has none. Touches nothing else. Throws tp::Error when the directory
// cannot be read or a file cannot be removed.
size_t remove_leftover_temp_files(const std::string& directory);

}  // namespace tp::aio
