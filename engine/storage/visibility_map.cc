#include "engine/storage/visibility_map.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstring>

#include "engine/core/error.h"
#include "engine/storage/datadir.h"
#include "engine/storage/fs_util.h"

namespace tp {
namespace {

constexpr size_t kVmBytesPerPage = kBlockSize - kPageHeaderSize;

Error damaged_map(const std::string& file, const std::string& why) {
  return Error("visibility map \"" + file + "\" is damaged: " + why, "",
               "VACUUM the table to write a new map.")
      .with_sqlstate(sqlstate::kDataCorrupted);
}

}  // namespace

uint8_t VisibilityMap::bits(BlockNumber heap_block) const {
  const size_t byte = heap_block / 4;
  if (byte >= bytes_.size()) return 0;
  return (bytes_[byte] >> (2 * (heap_block % 4))) & 0x03;
}

void VisibilityMap::set_all_visible(BlockNumber n) {
  const size_t pages = (size_t(n) + kVmHeapBlocksPerPage - 1) / kVmHeapBlocksPerPage;
  if (bytes_.size() < pages * kVmBytesPerPage) bytes_.resize(pages * kVmBytesPerPage, 0);
  for (BlockNumber b = 0; b < n; ++b) bytes_[b / 4] |= uint8_t(kVmAllVisible << (2 * (b % 4)));
}

bool VisibilityMap::clear(BlockNumber from, BlockNumber to) {
  bool was_set = false;
  for (BlockNumber b = from; b < to && b < covered(); ++b) {
    const uint8_t mask = uint8_t(0x03 << (2 * (b % 4)));
    was_set = was_set || (bytes_[b / 4] & mask) != 0;
    bytes_[b / 4] &= uint8_t(~mask);
  }
  return was_set;
}

BlockNumber VisibilityMap::count_all_visible() const {
  BlockNumber n = 0;
  for (uint8_t byte : bytes_) n += BlockNumber(std::popcount(uint8_t(byte & 0x55)));
  return n;
}

BlockNumber VisibilityMap::end_of_set_bits() const {
  for (size_t i = bytes_.size(); i > 0; --i) {
    const uint8_t byte = bytes_[i - 1];
    if (byte == 0) continue;
    BlockNumber last = BlockNumber((i - 1) * 4);
    for (int k = 3; k >= 0; --k)
      if ((byte >> (2 * k)) & 0x03) return last + BlockNumber(k) + 1;
  }
  return 0;
}

std::string VisibilityMap::serialize() const {
  const size_t pages = bytes_.size() / kVmBytesPerPage;
  std::string out(pages * kBlockSize, '\0');
  for (size_t p = 0; p < pages; ++p) {
    char* page = out.data() + p * kBlockSize;
    page_init(page, 0);
    std::memcpy(page + kPageHeaderSize, bytes_.data() + p * kVmBytesPerPage, kVmBytesPerPage);
    page_set_checksum(page, BlockNumber(p));
  }
  return out;
}

VisibilityMap VisibilityMap::parse(const std::string& content, const std::string& file) {
  if (content.size() % kBlockSize != 0)
    throw damaged_map(file, "its size (" + std::to_string(content.size()) +
                                " bytes) is not a whole number of 8 kB pages");
  VisibilityMap map;
  const size_t pages = content.size() / kBlockSize;
  map.bytes_.resize(pages * kVmBytesPerPage);
  for (size_t p = 0; p < pages; ++p) {
    const char* page = content.data() + p * kBlockSize;
    const PageHeader* h = page_header(page);
    const std::string where = "page " + std::to_string(p);
    if (!page_verify(page, BlockNumber(p)) || page_is_new(page))
      throw damaged_map(file, where + " fails its checksum");
    if (h->lower != kPageHeaderSize || h->upper != kBlockSize || h->special != kBlockSize)
      throw damaged_map(file, where + " is not a visibility map page (lower " +
                                  std::to_string(h->lower) + ", upper " + std::to_string(h->upper) +
                                  ")");
    std::memcpy(map.bytes_.data() + p * kVmBytesPerPage, page + kPageHeaderSize, kVmBytesPerPage);
  }
  return map;
}

std::string vm_file_name(uint32_t relnumber) {
  return std::to_string(relnumber) + "_vm";
}

VisibilityMap read_visibility_map(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    fs::fail("open visibility map", path);
  }
  std::string content;
  try {
    struct stat st;
    if (fstat(fd, &st) != 0) fs::fail("stat", path);
    if (!S_ISREG(st.st_mode)) throw damaged_map(path, "it is not a regular file");
    content.resize(size_t(st.st_size));
    content.resize(fs::read_up_to(fd, content.data(), content.size(), 0, path));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return VisibilityMap::parse(content, path);
}

void write_visibility_map(const std::string& path, const VisibilityMap& map) {
  if (map.end_of_set_bits() == 0) {
    // Nothing all-visible: no file, as a table that was never vacuumed.
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) fs::fail("remove visibility map", path);
    fs::fsync_path(path.substr(0, path.find_last_of('/')), true);
    return;
  }
  write_file_atomically(path, map.serialize());
}

std::vector<std::string> verify_visibility_map(const std::string& path, BlockNumber table_pages) {
  std::vector<std::string> problems;
  VisibilityMap map;
  try {
    map = read_visibility_map(path);
  } catch (const Error& e) {
    problems.push_back(e.what());
    return problems;
  }
  const std::string file = "visibility map base/" + path.substr(path.find_last_of('/') + 1);
  if (map.end_of_set_bits() > table_pages)
    problems.push_back(file + " marks block " + std::to_string(map.end_of_set_bits() - 1) +
                       ", past the table's " + std::to_string(table_pages) + " blocks");
  for (BlockNumber b = 0; b < map.covered(); ++b)
    if (map.bits(b) == kVmAllFrozen) {
      problems.push_back(file + " marks block " + std::to_string(b) +
                         " all-frozen but not all-visible");
      break;
    }
  return problems;
}

}  // namespace tp
