#include "scans/gather.h"

#include "bufmgr/buffer_usage.h"

namespace tp::scans {

void explain_workers(const WorkerGroup& group, std::vector<std::string>& lines, bool analyze) {
  lines.push_back("Workers Planned: " + std::to_string(group.params().workers_planned));
  if (analyze) lines.push_back("Workers Launched: " + std::to_string(group.launched()));
}

GatherNode::GatherNode(ParticipantBuilder build, GatherParams params)
    : group_(std::move(build), params) {}

void GatherNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  explain_workers(group_, lines, analyze);
}

void GatherNode::do_open() {
  group_.start();
  leader_done_ = false;
  leader_runs_ = group_.leader_runs();
  if (leader_runs_) {
    try {
      group_.leader_copy().open();
    } catch (...) {
      group_.stop();
      throw;
    }
  }
}

const RowBatch* GatherNode::do_next() {
  for (;;) {
    if (group_.try_take_any(current_)) return &current_;
    group_.rethrow_error();
    if (leader_runs_ && !leader_done_) {
      const RowBatch* b = nullptr;
      try {
        b = group_.leader_copy().next();
      } catch (...) {
        group_.stop();
        throw;
      }
      if (b) return b;
      leader_done_ = true;
      continue;
    }
    if (!group_.wait_any()) {
      group_.stop();  // every worker has ended: join them and collect their figures
      return nullptr;
    }
  }
}

void GatherNode::shutdown() {
  // As PostgreSQL's ExecShutdownNode: the workers' buffer usage, added to this
  // thread's when they are joined here, counts as this node's too.
  const bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  group_.stop();
  ExecNode::shutdown();
  if (instr.loops > 0) instr.buffers += bufmgr::thread_buffer_usage() - before;
}

}  // namespace tp::scans
