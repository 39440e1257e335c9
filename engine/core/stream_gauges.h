// Read streams' look-ahead, published for whoever watches a session (the live page,
// tools/live). A session points its thread's slot at its gauges (a Session member its
// registry entry points to) for one statement, and its parallel workers at the same
// gauges. Each read stream made on such a thread claims one gauge and stores its
// distance, pins and reads in flight there as they change: relaxed stores to a cache
// line no other thread writes, read by the watcher a few times a second. A thread with
// no slot (an I/O worker, a test without a session) pays one thread-local load when a
// stream is made and a null test per block after.
#pragma once

#include <atomic>
#include <cstdint>

namespace tp {

// One stream's figures. A gauge is claimed by one stream at a time; what the watcher
// reads of a gauge being claimed or given back may mix two streams for one frame.
struct alignas(64) StreamGauge {
  std::atomic<bool> claimed{false};
  std::atomic<const char*> label{nullptr};  // ReadStreamConfig::label (a string literal)
  std::atomic<int32_t> worker{0};           // 0: the session's own thread; k: worker k
  std::atomic<int32_t> distance{0};         // the look-ahead distance, in blocks
  std::atomic<int32_t> max_pinned{0};       // the most it may pin (the bar's full length)
  std::atomic<int32_t> pinned{0};           // buffers pinned ahead of the consumer
  std::atomic<int32_t> ios{0};              // reads in flight

  void publish(int32_t d, int32_t p, int32_t i) {
    distance.store(d, std::memory_order_relaxed);
    pinned.store(p, std::memory_order_relaxed);
    ios.store(i, std::memory_order_relaxed);
  }
};

// A session's gauges: the streams it and its workers have open at once, up to kSize
// (a plan with more streams shows the first kSize).
class StreamGauges {
 public:
  static constexpr int kSize = 16;

  // A free gauge, claimed and labelled, or nullptr when every one is taken.
  StreamGauge* claim(const char* label, int worker, int max_pinned) {
    for (StreamGauge& g : gauges_) {
      bool expected = false;
      if (!g.claimed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) continue;
      g.label.store(label, std::memory_order_relaxed);
      g.worker.store(worker, std::memory_order_relaxed);
      g.max_pinned.store(max_pinned, std::memory_order_relaxed);
      g.publish(0, 0, 0);
      return &g;
    }
    return nullptr;
  }
  static void release(StreamGauge& g) {
    g.publish(0, 0, 0);
    g.claimed.store(false, std::memory_order_release);
  }
  const StreamGauge& operator[](int i) const { return gauges_[i]; }

 private:
  StreamGauge gauges_[kSize];
};

// The gauges this thread's streams publish to, and which of the session's threads it is.
struct StreamGaugeSlot {
  StreamGauges* gauges = nullptr;
  int worker = 0;
};

inline StreamGaugeSlot& stream_gauge_slot() {
  thread_local StreamGaugeSlot slot;
  return slot;
}

// Points this thread's slot at `slot` for a scope (a statement, a parallel worker's run).
class StreamGaugeScope {
 public:
  explicit StreamGaugeScope(StreamGaugeSlot slot) : saved_(stream_gauge_slot()) {
    stream_gauge_slot() = slot;
  }
  ~StreamGaugeScope() { stream_gauge_slot() = saved_; }
  StreamGaugeScope(const StreamGaugeScope&) = delete;
  StreamGaugeScope& operator=(const StreamGaugeScope&) = delete;

 private:
  StreamGaugeSlot saved_;
};

}  // namespace tp
