#include "aio/method.h"
#include "engine/error.h"

namespace tp::aio {

std::unique_ptr<IoMethod> make_worker_method(int) {
  throw Error("io_method \"worker\" is not available in this build yet", {}, "Use io_method=sync.");
}

}  // namespace tp::aio
