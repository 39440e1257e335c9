// libFuzzer target `catalog`: Catalog::parse fed arbitrary bytes, as a damaged
// or hand-edited catalog file would be. A refusal is a tp::Error naming the
// file; anything else (another exception, a sanitizer report) is a crash. A
// catalog that parses is serialised again, as the next commit would.
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/storage/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tp::Catalog catalog = tp::Catalog::parse(text, "fuzz/catalog");
    for (const tp::RelationEntry& r : catalog.relations) {
      catalog.find(r.name);
      catalog.indexes_of(r.oid);
    }
    catalog.serialize();
  } catch (const tp::Error&) {
  }
  return 0;
}
