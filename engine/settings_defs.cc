// Every setting tidepool accepts. A setting is added here together with the
// code that honours it; nothing listed here is ignored.
#include "engine/settings.h"

namespace tp {

const std::vector<SettingDef>& Settings::definitions() {
  static const std::vector<SettingDef> defs = {
      // Resource usage
      {"shared_buffers",
       SettingType::Int,
       SettingUnit::Blocks,
       16,
       1073741823,
       "128MB",
       {},
       "Size of the shared buffer pool (8 kB pages). SET rebuilds the pool: dirty pages are "
       "written first, cached pages are lost.",
       "Resource Usage / Memory"},
      // Asynchronous I/O
      {"io_method",
       SettingType::Enum,
       SettingUnit::None,
       0,
       0,
       "worker",
       {"sync", "worker", "io_uring"},
       "How reads and writes are issued: sync (in the issuing thread; fadvise ahead when "
       "buffered), worker (I/O worker threads), io_uring (one ring per thread).",
       "Resource Usage / I/O"},
      {"io_workers",
       SettingType::Int,
       SettingUnit::None,
       1,
       32,
       "3",
       {},
       "Number of I/O worker threads (io_method = worker).",
       "Resource Usage / I/O"},
      {"io_direct",
       SettingType::Bool,
       SettingUnit::None,
       0,
       1,
       "off",
       {},
       "Read and write relation files with O_DIRECT, bypassing the kernel page cache.",
       "Resource Usage / I/O"},
      {"effective_io_concurrency",
       SettingType::Int,
       SettingUnit::None,
       0,
       1000,
       "16",
       {},
       "Reads a read stream keeps in flight at most; 0 reads synchronously without look-ahead.",
       "Resource Usage / I/O"},
      {"io_combine_limit",
       SettingType::Int,
       SettingUnit::Blocks,
       1,
       128,
       "128kB",
       {},
       "Largest read a read stream issues: consecutive blocks merge up to this size.",
       "Resource Usage / I/O"},
      {"random_seed",
       SettingType::Int,
       SettingUnit::None,
       0,
       2147483647,
       "0",
       {},
       "Seed of random() and ORDER BY random(); each statement starts from it unless setseed() "
       "was called.",
       "Developer Options"},
  };
  return defs;
}

}  // namespace tp
