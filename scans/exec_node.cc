#include "scans/exec_node.h"

#include <algorithm>

#include "engine/core/interrupts.h"

namespace tp::scans {

namespace {
double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

template <typename Start>
void ExecNode::start_loop(Start start_node) {
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  ++instr.loops;
  instr.loop_start_total_ms = instr.total_ms;
  instr.loop_has_row = false;
  std::chrono::steady_clock::time_point start;
  if (instr.timing) start = std::chrono::steady_clock::now();
  start_node();
  if (instr.timing) instr.total_ms += ms_between(start, std::chrono::steady_clock::now());
  instr.buffers += bufmgr::thread_buffer_usage() - before;
}

void ExecNode::open() {
  start_loop([this] { do_open(); });
}

void ExecNode::rescan_counted() {
  start_loop([this] { do_rescan(); });
}

const RowBatch* ExecNode::next() {
  check_for_interrupts();  // once per batch: Ctrl-C stops a long scan within a batch
  // Buffer counters are thread-local plain integers: a snapshot per batch is cheap.
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  std::chrono::steady_clock::time_point start;
  if (instr.timing) start = std::chrono::steady_clock::now();
  const RowBatch* batch = do_next();
  if (instr.timing) {
    auto end = std::chrono::steady_clock::now();
    instr.total_ms += ms_between(start, end);
    // Like PostgreSQL: time inside the node (and its children), to the first row and in all.
    if (batch && !instr.loop_has_row) {
      instr.loop_has_row = true;
      instr.startup_ms += instr.total_ms - instr.loop_start_total_ms;
    }
  }
  instr.buffers += bufmgr::thread_buffer_usage() - before;
  if (batch) instr.rows += batch->count;
  return batch;
}

void ExecNode::shutdown() {
  for (ExecNode* c : mutable_children()) c->shutdown();
}

std::vector<ExecNode*> ExecNode::mutable_children() {
  std::vector<ExecNode*> out;
  // children() is const only so that EXPLAIN can walk a const tree; the nodes are ours.
  for (const ExecNode* c : children()) out.push_back(const_cast<ExecNode*>(c));
  return out;
}

void NodeInstrumentation::add(const NodeInstrumentation& o) {
  loops += o.loops;
  rows += o.rows;
  startup_ms += o.startup_ms;
  total_ms += o.total_ms;
  rows_filtered += o.rows_filtered;
  rows_rechecked_out += o.rows_rechecked_out;
  heap_fetches += o.heap_fetches;
  exact_pages += o.exact_pages;
  lossy_pages += o.lossy_pages;
  buffers += o.buffers;
  worker_streams += o.worker_streams;
}

std::string rows_removed_line(const char* what, uint64_t removed, uint64_t loops) {
  return std::string("Rows Removed by ") + what + ": " +
         std::to_string((removed + loops / 2) / std::max<uint64_t>(loops, 1));
}

}  // namespace tp::scans
