// Names of the enums, and turning an encoded result into the issuer's tp::Error.
#include <cerrno>
#include <cstring>
#include <string>

#include "aio/aio.h"
#include "aio/file.h"
#include "engine/core/error.h"

namespace tp::aio {

const char* io_method_name(IoMethodKind method) {
  switch (method) {
    case IoMethodKind::kSync:
      return "sync";
    case IoMethodKind::kWorker:
      return "worker";
    case IoMethodKind::kIoUring:
      return "io_uring";
  }
  return "?";
}

IoMethodKind parse_io_method(std::string_view name) {
  for (IoMethodKind m : {IoMethodKind::kSync, IoMethodKind::kWorker, IoMethodKind::kIoUring})
    if (name == io_method_name(m)) return m;
  throw Error("invalid value for parameter \"io_method\": \"" + std::string(name) + "\"", {},
              "Available values: sync, worker, io_uring.")
      .with_sqlstate(sqlstate::kInvalidParameterValue);
}

const char* io_context_name(IoContext context) {
  switch (context) {
    case IoContext::kNormal:
      return "normal";
    case IoContext::kBulkRead:
      return "bulkread";
    case IoContext::kBulkWrite:
      return "bulkwrite";
  }
  return "?";
}

const char* io_op_name(IoOp op) {
  switch (op) {
    case IoOp::kInvalid:
      return "invalid";
    case IoOp::kRead:
      return "read";
    case IoOp::kWrite:
      return "write";
  }
  return "?";
}

std::string describe_io_failure(const IoResult& result, std::string_view relation_name) {
  if (result.status == IoStatus::kInvalidPage)
    return "invalid page in block " + std::to_string(result.callback_data) + " of relation \"" +
           std::string(relation_name) + "\"";
  std::string text = std::string("could not ") + io_op_name(result.op) + " ";
  if (result.nblocks <= 1)
    text += "block " + std::to_string(result.first_block);
  else
    text += "blocks " + std::to_string(result.first_block) + ".." +
            std::to_string(uint64_t(result.first_block) + result.nblocks - 1);
  text += " of relation \"" + std::string(relation_name) + "\": ";
  switch (result.status) {
    case IoStatus::kError:
      text += std::strerror(result.error_number);
      break;
    case IoStatus::kPartial:
      text += std::string(result.op == IoOp::kWrite ? "wrote" : "read") + " only " +
              std::to_string(result.bytes_done) + " of " + std::to_string(result.bytes_requested) +
              " bytes";
      break;
    case IoStatus::kUnknown:
      text += "the I/O has not completed";
      break;
    case IoStatus::kOk:
      text += "no error";
      break;
    case IoStatus::kInvalidPage:
      break;  // handled above
  }
  return text;
}

const char* io_failure_sqlstate(const IoResult& result) {
  switch (result.status) {
    case IoStatus::kInvalidPage:
      return sqlstate::kDataCorrupted;
    case IoStatus::kError:
      return sqlstate::for_errno(result.error_number);
    case IoStatus::kPartial:
      // A short write is a full disk; a short read, a file cut short.
      return result.op == IoOp::kWrite ? sqlstate::kDiskFull : sqlstate::kDataCorrupted;
    case IoStatus::kUnknown:
    case IoStatus::kOk:
      break;
  }
  return sqlstate::kInternalError;
}

void raise_io_error(const IoResult& result, const IoFile& file) {
  // A write that stops short or fails with ENOSPC: most likely a full disk (PostgreSQL's
  // hint for both).
  bool disk_full = result.op == IoOp::kWrite &&
                   (result.status == IoStatus::kPartial ||
                    (result.status == IoStatus::kError && result.error_number == ENOSPC));
  throw Error(describe_io_failure(result, file.name()), {},
              disk_full ? "Check free disk space." : "")
      .with_sqlstate(io_failure_sqlstate(result));
}

void check_io_result(const IoResult& result, const IoFile& file) {
  if (!result.ok()) raise_io_error(result, file);
}

}  // namespace tp::aio
