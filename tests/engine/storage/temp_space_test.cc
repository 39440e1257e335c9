// The data directory's temporary files (DIR/pgsql_tmp, aio/temp_file.h): opening a
// directory removes a crashed run's spill files (a child process killed with its file
// open) and nothing else there (decoy names, a user's file, a subdirectory, a symlink,
// tidepool's pattern outside pgsql_tmp); an open creates no pgsql_tmp; Storage's space
// spills into it, and its files' names go with their objects or with the Storage.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "aio/temp_file.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

namespace stdfs = std::filesystem;
using testing::TempDir;

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : stdfs::directory_iterator(dir)) out.insert(e.path().filename());
  return out;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(TempSpace, OpeningCreatesNoTemporaryDirectory) {
  TempDir tmp;
  { DataDir dir(tmp.data()); }
  DataDir dir(tmp.data());
  EXPECT_FALSE(stdfs::exists(dir.temp_path()));
  EXPECT_EQ(dir.temp_path(), tmp.data() + "/pgsql_tmp");
}

TEST(TempSpace, OpeningRemovesACrashedRunsFilesAndNothingElse) {
  TempDir tmp;
  std::string temp_dir;
  {
    DataDir dir(tmp.data());
    temp_dir = dir.temp_path();
  }
  // What crashed runs leave (the next test makes one by killing a process).
  stdfs::create_directories(temp_dir);
  write_file(temp_dir + "/pgsql_tmp4242.0", "spill");
  write_file(temp_dir + "/pgsql_tmp12345.17", "spill");
  const std::set<std::string> decoys = {"pgsql_tmp12345.17.bak", "xpgsql_tmp1.1", "pgsql_tmp1",
                                        "notes.txt", "pgsql_tmp00.1"};
  for (const std::string& d : decoys) write_file(temp_dir + "/" + d, "keep");
  stdfs::create_directory(temp_dir + "/pgsql_tmp7.7");
  write_file(tmp.path() + "/users_file", "precious");
  stdfs::create_symlink(tmp.path() + "/users_file", temp_dir + "/pgsql_tmp8.8");
  // Tidepool's pattern in the data directory itself is not a temporary file there.
  write_file(tmp.data() + "/pgsql_tmp9.9", "not in pgsql_tmp");

  DataDir dir(tmp.data());
  std::set<std::string> expected = decoys;
  expected.insert({"pgsql_tmp7.7", "pgsql_tmp8.8"});
  EXPECT_EQ(names_in(temp_dir), expected);
  EXPECT_TRUE(stdfs::exists(tmp.data() + "/pgsql_tmp9.9"));
  EXPECT_EQ(stdfs::file_size(tmp.path() + "/users_file"), 8u);
}

TEST(TempSpace, AKilledProcesssOpenFileIsRemovedAtTheNextOpen) {
  TempDir tmp;
  { DataDir dir(tmp.data()); }
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DataDir dir(tmp.data());
    aio::TempFileSpace space(dir.temp_path());
    auto f = space.create();
    f->append(std::string(50000, 'k').data(), 50000);
    char ready = 1;
    (void)!write(pipe_fds[1], &ready, 1);
    pause();  // killed here, the file open and named
    _exit(0);
  }
  char ready = 0;
  ASSERT_EQ(read(pipe_fds[0], &ready, 1), 1);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  const std::string temp_dir = tmp.data() + "/pgsql_tmp";
  ASSERT_EQ(names_in(temp_dir), std::set<std::string>{"pgsql_tmp" + std::to_string(child) + ".0"});
  DataDir dir(tmp.data());
  EXPECT_TRUE(names_in(temp_dir).empty());
}

TEST(TempSpace, StorageSpillsIntoTheDataDirectory) {
  TempDir tmp;
  DataDir dir(tmp.data());
  std::unique_ptr<aio::TempFile> survivor;
  std::string survivor_path;
  {
    StorageConfig config;
    config.shared_buffers = 128;
    Storage storage(dir, config);
    aio::TempFileSpace& space = storage.temp_space();
    EXPECT_EQ(space.directory(), dir.temp_path());
    auto f = space.create();
    f->append("rows", 4);
    f->rewind();
    char back[4];
    f->read_exact(back, 4);
    EXPECT_TRUE(stdfs::exists(f->path()));
    EXPECT_EQ(space.bytes_held(), 4u);
    const std::string path = f->path();
    f.reset();
    EXPECT_FALSE(stdfs::exists(path));
    survivor = space.create();
    survivor_path = survivor->path();
  }
  // The Storage went first: its space took the file's name with it.
  EXPECT_FALSE(stdfs::exists(survivor_path));
  survivor.reset();
  EXPECT_TRUE(names_in(dir.temp_path()).empty());
}

}  // namespace
}  // namespace tp
