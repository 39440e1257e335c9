#include "aio/method.h"
#include "engine/error.h"

namespace tp::aio {

std::unique_ptr<IoMethod> make_uring_method(int) {
  throw Error("io_method \"io_uring\" is not available in this build yet", {},
              "Use io_method=sync.");
}

}  // namespace tp::aio
