#include "engine/core/page.h"

#include "engine/core/error.h"

namespace tp {

void page_init(char* page, uint32_t special_size) {
  std::memset(page, 0, kBlockSize);
  PageHeader* h = page_header(page);
  special_size = maxalign(special_size);
  h->lower = kPageHeaderSize;
  h->upper = uint16_t(kBlockSize - special_size);
  h->special = uint16_t(kBlockSize - special_size);
  // 8192 does not fit the low byte; PostgreSQL stores size | version the same way.
  h->size_version = uint16_t(kBlockSize | kPageLayoutVersion);
}

bool page_is_new(const char* page) {
  // Fast path: a formatted page has a non-zero pd_upper.
  if (page_header(page)->upper != 0) return false;
  const uint64_t* words = reinterpret_cast<const uint64_t*>(page);
  for (size_t i = 0; i < kBlockSize / sizeof(uint64_t); ++i)
    if (words[i] != 0) return false;
  return true;
}

OffsetNumber page_add_item(char* page, const void* item, uint32_t len) {
  return page_insert_item_at(page, page_max_offset(page) + 1, item, len) ? page_max_offset(page)
                                                                         : 0;
}

bool page_insert_item_at(char* page, OffsetNumber off, const void* item, uint32_t len) {
  PageHeader* h = page_header(page);
  OffsetNumber max = page_max_offset(page);
  TP_ASSERT(off >= 1 && off <= max + 1);
  uint32_t aligned = maxalign(len);
  if (uint32_t(h->upper) < aligned || h->upper - aligned < uint32_t(h->lower) + kItemIdSize)
    return false;
  if (off <= max) {
    std::memmove(page_item_id(page, off + 1), page_item_id(page, off),
                 size_t(max - off + 1) * kItemIdSize);
  }
  uint16_t upper = uint16_t(h->upper - aligned);
  std::memcpy(page + upper, item, len);
  if (aligned > len) std::memset(page + upper + len, 0, aligned - len);
  ItemId* id = page_item_id(page, off);
  id->off = upper;
  id->state = uint32_t(ItemState::kNormal);
  id->len = len;
  h->upper = upper;
  h->lower = uint16_t(h->lower + kItemIdSize);
  return true;
}

// 32 independent lanes let the compiler vectorise the loop; each lane mixes
// its words with a multiply and a shift so that any flipped bit, and any
// swapped pair of words, changes the result. The checksum field itself is
// treated as zero.
namespace {

constexpr int kLanes = 32;
constexpr uint32_t kPrime = 0x01000193u;  // FNV prime
constexpr int kRows = int(kBlockSize / 4 / kLanes);

uint32_t load_word(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// The loop every page read from disk runs through, compiled twice: for AVX2
// (8 lanes per instruction) and for baseline x86-64 (which has no packed
// 32-bit multiply). The choice is made once, at first use. Not target_clones:
// its ifunc resolver runs before the sanitizers' runtimes start and crashes them.
#define TP_MIX_ROWS_BODY                                             \
  for (int r = 1; r < kRows; ++r)                                    \
    for (int i = 0; i < kLanes; ++i) {                               \
      uint32_t x = lane[i] ^ load_word(page + 4 * (r * kLanes + i)); \
      lane[i] = x * kPrime ^ (x >> 17);                              \
    }

void mix_rows_baseline(uint32_t* lane, const char* page) {
  TP_MIX_ROWS_BODY
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void mix_rows_avx2(uint32_t* lane, const char* page) {
  TP_MIX_ROWS_BODY
}
#endif
#undef TP_MIX_ROWS_BODY

void mix_rows(uint32_t* lane, const char* page) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return mix_rows_avx2(lane, page);
#endif
  mix_rows_baseline(lane, page);
}

}  // namespace

uint16_t page_compute_checksum(const char* page, BlockNumber block) {
  alignas(32) uint32_t lane[kLanes];
  for (int i = 0; i < kLanes; ++i) lane[i] = 0x9E3779B9u * uint32_t(i + 1);
  // Row 0 holds the checksum itself (bytes 8..9, the low half of word 2):
  // it counts as zero.
  for (int i = 0; i < kLanes; ++i) {
    uint32_t w = load_word(page + 4 * i);
    if (i == 2) w &= 0xFFFF0000u;
    uint32_t x = lane[i] ^ w;
    lane[i] = x * kPrime ^ (x >> 17);
  }
  mix_rows(lane, page);
  uint32_t sum = 0;
  for (int i = 0; i < kLanes; ++i) sum = (sum ^ lane[i]) * kPrime;
  sum ^= block * 0x85EBCA6Bu;
  sum ^= sum >> 16;
  uint16_t folded = uint16_t(sum % 65535u) + 1;  // 1..65535: 0 means "never set"
  return folded;
}

void page_set_checksum(char* page, BlockNumber block) {
  page_header(page)->checksum = page_compute_checksum(page, block);
}

bool page_verify(const char* page, BlockNumber block) {
  const PageHeader* h = page_header(page);
  if (h->upper == 0) return page_is_new(page);
  bool header_sane = h->lower >= kPageHeaderSize && h->lower <= h->upper &&
                     h->upper <= h->special && h->special <= kBlockSize &&
                     (h->size_version & 0xFF00) == (kBlockSize & 0xFF00);
  return header_sane && h->checksum == page_compute_checksum(page, block);
}

}  // namespace tp
