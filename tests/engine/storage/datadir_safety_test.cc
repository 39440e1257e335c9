// Data directory safety: the marker file is looked for before anything is
// touched, only new or empty directories are initialised, a missing catalog is
// an error, restore() removes only what tidepool could have created, one
// damaged relation does not take the directory down, and journal read errors
// are raised.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/storage/datadir.h"
#include "engine/storage/datadir_journal.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

namespace stdfs = std::filesystem;
using testing::error_of;
using testing::scalar;
using testing::TempDir;

// Every path under `dir` (relative), for "nothing was touched" checks.
std::set<std::string> tree(const std::string& dir) {
  std::set<std::string> out;
  for (auto& e : stdfs::recursive_directory_iterator(dir))
    out.insert(stdfs::relative(e.path(), dir).string());
  return out;
}

std::string open_error(const std::string& dir) {
  try {
    DataDir d(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(DataDirMarker, NewDirectoryIsInitialisedWithTheMarker) {
  TempDir tmp;
  { DataDir d(tmp.data()); }
  EXPECT_EQ(read_file(tmp.data() + "/TIDEPOOL_DATADIR"), "tidepool data directory\nformat 1\n");
  EXPECT_EQ(tree(tmp.data()),
            (std::set<std::string>{"TIDEPOOL_DATADIR", "base", "catalog", "tidepool.pid"}));
  // And it opens again as itself.
  EXPECT_EQ(open_error(tmp.data()), "");
}

TEST(DataDirMarker, EmptyDirectoryIsInitialised) {
  TempDir tmp;  // tmp.path() exists and is empty
  { DataDir d(tmp.path()); }
  EXPECT_TRUE(stdfs::exists(tmp.path() + "/TIDEPOOL_DATADIR"));
}

// A kill during the first open's initialisation (found by SIGKILL a few ms
// after `tidepool sql -D NEW` starts) leaves base/, tidepool.pid and maybe the
// empty catalog, but no marker. That directory was refused for ever; it holds
// nothing but what initialisation writes, so it is initialised again.
TEST(DataDirMarker, InitialisationCutShortIsInitialisedAgain) {
  for (int step = 0; step < 3; ++step) {
    TempDir tmp;
    std::string dir = tmp.path() + "/new";
    stdfs::create_directories(dir + "/base");
    std::ofstream(dir + "/tidepool.pid") << "12345\n";
    if (step >= 1) std::ofstream(dir + "/catalog") << Catalog{}.serialize();
    if (step >= 2) std::ofstream(dir + "/TIDEPOOL_DATADIR.new") << "tidepool data";
    EXPECT_EQ(open_error(dir), "") << "step " << step;
    EXPECT_EQ(tree(dir),
              (std::set<std::string>{"TIDEPOOL_DATADIR", "base", "catalog", "tidepool.pid"}))
        << "step " << step;
    Session s(testing::options_for(dir));
    s.execute("CREATE TABLE t (a int)");
  }
}

// Only exactly that: a file in base/, a catalog naming a relation or another
// name keeps the directory refused and untouched.
TEST(DataDirMarker, UnmarkedDirectoryWithMoreThanAnInitialisationIsRefused) {
  TempDir tmp;
  std::string with_relation;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int)");
    with_relation = s.catalog().serialize();
  }
  for (int variant = 0; variant < 3; ++variant) {
    std::string dir = tmp.path() + "/v" + std::to_string(variant);
    stdfs::create_directories(dir + "/base");
    std::ofstream(dir + "/catalog") << (variant == 0 ? with_relation : Catalog{}.serialize());
    if (variant == 1) std::ofstream(dir + "/base/16384") << "data";
    if (variant == 2) std::ofstream(dir + "/notes.txt") << "keep me";
    std::set<std::string> before = tree(dir);
    EXPECT_NE(open_error(dir).find("is not a tidepool data directory"), std::string::npos)
        << "variant " << variant;
    EXPECT_EQ(tree(dir), before) << "variant " << variant;
  }
}

// Settings may be written before the first open (README "Settings").
TEST(DataDirMarker, DirectoryWithOnlyASettingsFileIsInitialised) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/tidepool.conf") << "shared_buffers = 1MB\n";
  Session s(testing::options_for(tmp.path()));
  EXPECT_EQ(s.settings().show("shared_buffers"), "1MB");
  EXPECT_TRUE(stdfs::exists(tmp.path() + "/TIDEPOOL_DATADIR"));
}

TEST(DataDirMarker, ForeignDirectoryIsRefusedAndLeftUntouched) {
  TempDir tmp;
  std::string dir = tmp.path() + "/mine";
  stdfs::create_directories(dir + "/base");
  std::ofstream(dir + "/notes.txt") << "keep me";
  std::ofstream(dir + "/base/16384") << "someone else's file";
  std::ofstream(dir + "/catalog.new") << "not ours";
  std::set<std::string> before = tree(dir);
  EXPECT_EQ(open_error(dir),
            "\"" + dir + "\" is not a tidepool data directory (no TIDEPOOL_DATADIR file)");
  try {
    Session s(testing::options_for(dir));
    FAIL() << "a foreign directory was opened";
  } catch (const Error& e) {
    EXPECT_NE(e.hint().find("new or empty directory"), std::string::npos) << e.hint();
  }
  EXPECT_EQ(tree(dir), before);
  EXPECT_EQ(read_file(dir + "/base/16384"), "someone else's file");
}

TEST(DataDirMarker, RegularFileIsRefused) {
  TempDir tmp;
  std::string file = tmp.path() + "/plain";
  std::ofstream(file) << "x";
  EXPECT_NE(open_error(file).find("is not a tidepool data directory"), std::string::npos);
  EXPECT_EQ(read_file(file), "x");
}

TEST(DataDirMarker, MissingCatalogIsAnErrorNotAReinitialisation) {
  TempDir tmp;
  std::string table_file;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int)");
    s.execute("INSERT INTO t VALUES (1)");
    table_file = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
  }
  stdfs::remove(tmp.data() + "/catalog");
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_EQ(open_error(tmp.data()), "data directory \"" + tmp.data() + "\" has no catalog file");
    EXPECT_TRUE(stdfs::exists(table_file));
    EXPECT_FALSE(stdfs::exists(tmp.data() + "/catalog"));
  }
}

TEST(DataDirMarker, CatalogOrMarkerReplacedByADirectoryIsNamed) {
  // Both read as empty through an ifstream: "catalog ... is damaged: parse error
  // at line 1, column 1" and "marker file ... is damaged".
  TempDir tmp;
  { Session s(testing::options_for(tmp.data())); }
  std::string catalog = tmp.data() + "/catalog";
  stdfs::rename(catalog, catalog + ".saved");
  stdfs::create_directory(catalog);
  EXPECT_EQ(open_error(tmp.data()), "could not read file \"" + catalog + "\": Is a directory");
  stdfs::remove(catalog);
  stdfs::rename(catalog + ".saved", catalog);
  std::string marker = tmp.data() + "/TIDEPOOL_DATADIR";
  stdfs::remove(marker);
  stdfs::create_directory(marker);
  EXPECT_EQ(open_error(tmp.data()), "could not read file \"" + marker + "\": Is a directory");
}

TEST(DataDirMarker, Version1DirectoryIsAdopted) {
  TempDir tmp;
  std::string dir = tmp.path() + "/old";
  stdfs::create_directories(dir + "/base");
  std::ofstream(dir + "/catalog") << "tidepool-catalog 1\nversion 3\nnext_oid 16385\n"
                                  << "relation oid=16384 kind=r name=t relnumber=16384 "
                                  << "fillfactor=100 pages=0 rows=0\ncolumn a int4\nend\neof\n";
  std::ofstream(dir + "/base/16384");
  Session s(testing::options_for(dir));
  EXPECT_EQ(read_file(dir + "/TIDEPOOL_DATADIR"), "tidepool data directory\nformat 1\n");
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "0");
}

TEST(DataDirMarker, NewerFormatIsRefused) {
  TempDir tmp;
  { DataDir d(tmp.data()); }
  std::ofstream(tmp.data() + "/TIDEPOOL_DATADIR") << "tidepool data directory\nformat 9\n";
  EXPECT_NE(open_error(tmp.data()).find("has format 9, newer than this tidepool reads (1)"),
            std::string::npos);
}

TEST(DataDirMarker, CheckModeDoesNotCreate) {
  TempDir tmp;
  try {
    DataDir d(tmp.data(), DataDirOptions{.create_if_missing = false});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "data directory \"" + tmp.data() + "\" does not exist");
  }
  EXPECT_FALSE(stdfs::exists(tmp.data()));
}

TEST(DataDirRestore, RemovesOnlyFilesTidepoolCouldHaveCreated) {
  TempDir tmp;
  { DataDir d(tmp.data()); }
  const std::string base = tmp.data() + "/base/";
  std::ofstream(base + "99999") << "leftover of an uncommitted statement";
  for (const char* keep : {"notes", "0123", "99999999999", "16384.bak"})
    std::ofstream(base + keep) << "not ours";
  stdfs::create_directory(base + "17");
  { DataDir d(tmp.data()); }
  EXPECT_FALSE(stdfs::exists(base + "99999"));
  EXPECT_EQ(tree(base), (std::set<std::string>{"notes", "0123", "99999999999", "16384.bak", "17"}));
}

// --- one damaged relation ---

class DamagedRelation : public ::testing::Test {
 protected:
  void SetUp() override {
    Session s(testing::options_for(tmp_.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 5000) s(i)");
    s.execute("CREATE INDEX t_a ON t (a)");
    s.execute("CREATE TABLE keep (a int)");
    s.execute("INSERT INTO keep VALUES (42)");
    t_ = *s.catalog().find("t");
    t_a_ = *s.catalog().find("t_a");
    t_path_ = s.data_dir().relation_path(t_.relnumber);
    t_a_path_ = s.data_dir().relation_path(t_a_.relnumber);
  }

  void expect_keep_works(Session& s) {
    EXPECT_EQ(scalar(s, "SELECT a FROM keep"), "42");
    EXPECT_EQ(error_of(s, "INSERT INTO keep VALUES (43)"), "");
    EXPECT_EQ(error_of(s, "CREATE TABLE other (x int)"), "");
  }

  TempDir tmp_;
  RelationEntry t_, t_a_;
  std::string t_path_, t_a_path_;
};

TEST_F(DamagedRelation, MissingTableFileAffectsOnlyThatTable) {
  stdfs::remove(t_path_);
  {
    Session s(testing::options_for(tmp_.data()));
    const std::string want =
        "could not open relation \"t\": file base/" + std::to_string(t_.relnumber) + " is missing";
    EXPECT_EQ(error_of(s, "SELECT count(*) FROM t"), want);
    EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (1, 1)"), want);
    expect_keep_works(s);
    EXPECT_EQ(error_of(s, "DROP TABLE t"), "");
    EXPECT_EQ(s.catalog().find("t_a"), nullptr);
    EXPECT_TRUE(s.data_dir().damaged().empty());
  }
  Session s(testing::options_for(tmp_.data()));
  EXPECT_EQ(s.catalog().find("t"), nullptr);
  EXPECT_FALSE(stdfs::exists(t_a_path_));
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM keep"), "2");
}

TEST_F(DamagedRelation, TruncatedTableFileAffectsOnlyThatTable) {
  ASSERT_GT(t_.pages, 3u);
  stdfs::resize_file(t_path_, 2 * kBlockSize + 100);
  Session s(testing::options_for(tmp_.data()));
  EXPECT_EQ(error_of(s, "SELECT * FROM t"),
            "relation \"t\" has 2 blocks on disk but the catalog says " + std::to_string(t_.pages) +
                " (file base/" + std::to_string(t_.relnumber) + ")");
  // The short file is left as it is (not cut, not extended) for a rescue.
  EXPECT_EQ(stdfs::file_size(t_path_), 2 * kBlockSize + 100);
  expect_keep_works(s);
  EXPECT_EQ(error_of(s, "TRUNCATE t"), "");  // new, empty files: the table is usable again
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "0");
}

TEST_F(DamagedRelation, MissingIndexFileCanBeDropped) {
  stdfs::remove(t_a_path_);
  {
    Session s(testing::options_for(tmp_.data()));
    expect_keep_works(s);
    // The table stays readable: the planner leaves the damaged index out.
    EXPECT_EQ(scalar(s, "SELECT count(*) FROM t WHERE a < 10"), "9");
    EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (1, 1)"),
              "could not open relation \"t_a\": file base/" + std::to_string(t_a_.relnumber) +
                  " is missing");
    EXPECT_EQ(error_of(s, "SELECT tp_verify('t_a')"),
              "could not open relation \"t_a\": file base/" + std::to_string(t_a_.relnumber) +
                  " is missing");
    EXPECT_EQ(error_of(s, "DROP INDEX t_a"), "");
    EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "5000");
  }
  Session s(testing::options_for(tmp_.data()));
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "5000");
  EXPECT_TRUE(s.data_dir().damaged().empty());
}

TEST_F(DamagedRelation, MissingBaseDirectoryDamagesEveryRelation) {
  stdfs::remove_all(tmp_.data() + "/base");
  Session s(testing::options_for(tmp_.data()));
  EXPECT_EQ(s.data_dir().damaged().size(), 3u);
  EXPECT_EQ(error_of(s, "DROP TABLE t, keep"), "");
  EXPECT_TRUE(s.data_dir().damaged().empty());
  EXPECT_EQ(error_of(s, "CREATE TABLE fresh (a int)"), "");
}

// --- the statement journal ---

// A journal that cannot be read is an error naming it, never "no journal":
// skipping it would leave half-written pages in place.
TEST(DataDirJournal, ReadErrorIsRaised) {
  TempDir tmp;
  { DataDir d(tmp.data()); }
  // A directory opens for reading, and every pread on it fails (EISDIR).
  stdfs::create_directory(tmp.data() + "/statement.undo");
  EXPECT_EQ(open_error(tmp.data()),
            "could not read file \"" + tmp.data() + "/statement.undo\": Is a directory");
}

// A record cut short at the end is what a crash while journaling leaves: its
// page was not yet overwritten, so the replay stops there without an error.
TEST(DataDirJournal, RecordCutShortAtTheEndIsIgnored) {
  TempDir tmp;
  std::string path;
  std::string before;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    path = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
    before = read_file(path);
    int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    alignas(8) char page[kBlockSize];
    ASSERT_EQ(pread(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
    s.data_dir().save_before_image(s.catalog().find("t")->relnumber, 0, page);
    std::memset(page + 4000, 0x7F, 100);
    ASSERT_EQ(pwrite(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
    ::close(fd);
    std::ofstream(tmp.data() + "/statement.undo", std::ios::app | std::ios::binary)
        << std::string(100, '\x01');  // the next record, cut short
  }                                   // no commit: as if killed
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(read_file(path), before);
  EXPECT_FALSE(stdfs::exists(tmp.data() + "/statement.undo"));
}

// The journal of an interrupted statement: table t (1,000 rows), the
// before-image of its block 0 journaled and block 0 then changed on disk, as a
// kill -9 would leave them. Returns t's file and its contents before.
struct Interrupted {
  std::string path, before;
};
Interrupted interrupted_statement(const std::string& data) {
  Interrupted out;
  Session s(testing::options_for(data));
  s.execute("CREATE TABLE t (a int, b int)");
  s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
  const uint32_t rel = s.catalog().find("t")->relnumber;
  out.path = s.data_dir().relation_path(rel);
  out.before = read_file(out.path);
  int fd = ::open(out.path.c_str(), O_RDWR);
  EXPECT_GE(fd, 0);
  alignas(8) char page[kBlockSize];
  EXPECT_EQ(pread(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
  s.data_dir().save_before_image(rel, 0, page);
  s.data_dir().save_before_image(rel, 1, out.before.data() + kBlockSize);
  std::memset(page + 4000, 0x7F, 100);
  EXPECT_EQ(pwrite(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
  ::close(fd);
  return out;  // no commit: as if killed
}

// Flips one byte of the journal at `offset` from its end (or its start).
void flip_journal_byte(const std::string& data, long offset, bool from_end) {
  std::fstream f(data + "/statement.undo", std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset, from_end ? std::ios::end : std::ios::beg);
  char c = 0;
  f.read(&c, 1);
  f.seekp(offset, from_end ? std::ios::end : std::ios::beg);
  c = char(c ^ 0x40);
  f.write(&c, 1);
}

// Journal records: 16 bytes of header (relnumber, block, CRC, zero), then the page.
constexpr long kRecord = 16 + long(kBlockSize);

// A last record torn by the crash (its checksum does not match) is ignored, as
// one cut short is; the records before it are written back.
TEST(DataDirJournal, TornLastRecordIsIgnored) {
  TempDir tmp;
  Interrupted st = interrupted_statement(tmp.data());
  flip_journal_byte(tmp.data(), -100, true);  // inside record 2's page
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(read_file(st.path), st.before);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "1000");
}

// A damaged record before the end is never written back over a page: the open
// stops with an error naming the journal and the record.
TEST(DataDirJournal, DamagedRecordBeforeTheEndIsAnErrorNamingTheJournal) {
  TempDir tmp;
  interrupted_statement(tmp.data());
  flip_journal_byte(tmp.data(), 16 + 16 + 500, false);  // inside record 1's page
  EXPECT_EQ(open_error(tmp.data()), "statement journal \"" + tmp.data() +
                                        "/statement.undo\" is damaged at record 1: its checksum "
                                        "does not match");
}

// A record naming a block the relation never had (a damaged block number)
// would write past the file: refused, naming the journal.
TEST(DataDirJournal, RecordNamingABlockTheCatalogDoesNotHaveIsAnError) {
  TempDir tmp;
  interrupted_statement(tmp.data());
  {
    std::fstream f(tmp.data() + "/statement.undo", std::ios::in | std::ios::out | std::ios::binary);
    std::string rec(size_t(kRecord), '\0');
    f.seekg(16);
    f.read(rec.data(), kRecord);
    uint32_t rel = 0, block = 0xfffffffeu;
    std::memcpy(&rel, rec.data(), 4);
    const uint32_t crc = journal_record_crc(rel, block, rec.data() + 16);
    f.seekp(16 + 4);
    f.write(reinterpret_cast<const char*>(&block), 4);
    f.write(reinterpret_cast<const char*>(&crc), 4);
  }
  const std::string error = open_error(tmp.data());
  EXPECT_EQ(error.rfind("statement journal \"" + tmp.data() +
                            "/statement.undo\" is damaged at record 1: it names block 4294967294 "
                            "of relation \"t\", which has ",
                        0),
            0u)
      << error;
}

}  // namespace
}  // namespace tp
