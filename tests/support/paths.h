// Where the tests find the checkout and the built `tidepool`. Kept out of the compile
// flags of every test file (tests/support/paths.cc alone holds the absolute paths), so
// that an object compiled in one clone is the compiler cache's hit in another.
#pragma once

#include <string>

namespace tp::testing {

// The top folder of the checkout the tests were built from.
std::string source_dir();

// The `tidepool` executable of the same build (build/<dir>/bin/tidepool).
std::string tidepool_binary();

}  // namespace tp::testing
