#include "engine/session/prewarm.h"

#include "engine/core/error.h"
#include "engine/session/session_names.h"

namespace tp {

namespace {

Error prewarm_error(const std::string& message, const std::string& hint, int position,
                    const char* sqlstate) {
  return Error(message, "", hint).at_position(position).with_sqlstate(sqlstate);
}

// Argument i as text, or `fallback` when absent.
std::string text_arg(const std::vector<Value>& args, size_t i, const char* fallback,
                     const char* what, int position) {
  if (i >= args.size()) return fallback;
  if (args[i].type == ValueType::kNull)
    throw prewarm_error(std::string(what) + " cannot be null", "", position,
                        sqlstate::kInvalidParameterValue);
  if (args[i].type != ValueType::kText)
    throw prewarm_error("function pg_prewarm takes text for its " + std::string(what), "", position,
                        sqlstate::kUndefinedFunction);
  return args[i].s;
}

// Argument i as a block number within [0, last], or `fallback` when absent or NULL.
int64_t block_arg(const std::vector<Value>& args, size_t i, int64_t fallback, int64_t last,
                  const char* which, int position) {
  if (i >= args.size() || args[i].type == ValueType::kNull) return fallback;
  if (args[i].type != ValueType::kInt4 && args[i].type != ValueType::kInt8)
    throw prewarm_error("function pg_prewarm takes a bigint block number", "", position,
                        sqlstate::kUndefinedFunction);
  const int64_t b = args[i].i;
  if (b < 0 || b > last)
    throw prewarm_error(
        std::string(which) + " block number must be between 0 and " + std::to_string(last), "",
        position, sqlstate::kInvalidParameterValue);
  return b;
}

}  // namespace

Value prewarm_relation(const Catalog& catalog, Storage& storage,
                       const bufmgr::ReadStreamConfig& stream, const sql::Expr& call,
                       const std::vector<Value>& args) {
  const int pos = call.position;
  if (args.empty() || args.size() > 5 || args[0].type != ValueType::kText)
    throw prewarm_error("function pg_prewarm takes a relation name and up to four more arguments",
                        "pg_prewarm(relation [, mode [, fork [, first_block [, last_block]]]])",
                        pos, sqlstate::kUndefinedFunction);
  const RelationEntry* rel = catalog.find(args[0].s);
  if (!rel) throw relation_missing(args[0].s, call.args[0]->position);
  const std::string mode = text_arg(args, 1, "buffer", "prewarm type", pos);
  if (mode == "read" || mode == "prefetch")
    throw prewarm_error("prewarm type \"" + mode + "\" is not supported",
                        "tidepool prewarms its own buffer pool only: use \"buffer\".", pos,
                        sqlstate::kFeatureNotSupported);
  if (mode != "buffer")
    throw prewarm_error("invalid prewarm type", "Valid prewarm types are \"buffer\".", pos,
                        sqlstate::kInvalidParameterValue);
  const std::string fork = text_arg(args, 2, "main", "relation fork", pos);
  if (fork != "main")
    throw prewarm_error("invalid fork name \"" + fork + "\"",
                        "tidepool prewarms the main fork only.", pos,
                        sqlstate::kInvalidParameterValue);
  const int64_t nblocks = int64_t(rel->pages);
  if (nblocks == 0) return Value::int8(0);
  const int64_t first = block_arg(args, 3, 0, nblocks - 1, "starting", pos);
  const int64_t last = block_arg(args, 4, nblocks - 1, nblocks - 1, "ending", pos);
  int64_t next = first, read = 0;
  // Through a read stream without a ring: the blocks stay in the pool, read ahead and
  // combined as a scan's would be.
  bufmgr::ReadStreamConfig config = stream;
  config.strategy = nullptr;
  config.sequential = true;
  bufmgr::ReadStream s(storage.pool(), storage.file(*rel), config,
                       [&](void*) { return next <= last ? BlockNumber(next++) : kInvalidBlock; });
  while (bufmgr::PinGuard buf = s.next_buffer()) ++read;
  return Value::int8(read);
}

}  // namespace tp
