// A session's memory figure: parts, total and peak add up; a TrackedMemory
// publishes only changes and withdraws its share when it goes; the gauge a
// holder takes is the one of the thread that makes it, whichever thread then
// updates it.
#include "engine/core/session_memory.h"

#include <gtest/gtest.h>

#include <thread>

namespace tp {
namespace {

TEST(SessionMemory, PartsTotalAndPeakAddUp) {
  SessionMemory m;
  m.add(MemoryPart::kMessages, 100);
  m.add(MemoryPart::kExecutor, 1000);
  m.add(MemoryPart::kExecutor, -400);
  EXPECT_EQ(m.bytes(MemoryPart::kMessages), 100);
  EXPECT_EQ(m.bytes(MemoryPart::kStatement), 0);
  EXPECT_EQ(m.bytes(MemoryPart::kExecutor), 600);
  EXPECT_EQ(m.total(), 700);
  EXPECT_EQ(m.peak(), 1100);
}

TEST(SessionMemory, ATrackedHolderPublishesItsSizeAndWithdrawsIt) {
  SessionMemory m;
  {
    TrackedMemory a(MemoryPart::kStatement, &m);
    TrackedMemory b(MemoryPart::kStatement, &m);
    a.set(300);
    b.set(50);
    a.set(200);  // shrinks: the part follows
    EXPECT_EQ(m.bytes(MemoryPart::kStatement), 250);
    EXPECT_EQ(a.held(), 200u);
  }
  EXPECT_EQ(m.bytes(MemoryPart::kStatement), 0);
  EXPECT_EQ(m.total(), 0);
  EXPECT_EQ(m.peak(), 350);
}

TEST(SessionMemory, AHolderTakesTheGaugeOfTheThreadThatMakesIt) {
  SessionMemory m;
  EXPECT_EQ(session_memory(), nullptr);
  TrackedMemory untracked(MemoryPart::kExecutor);  // no session: counts nowhere
  untracked.set(1 << 20);
  EXPECT_EQ(m.total(), 0);
  {
    SessionMemoryScope scope(m);
    TrackedMemory held(MemoryPart::kExecutor);
    // A parallel worker updates a node its leader built.
    std::thread worker([&] { held.set(4096); });
    worker.join();
    EXPECT_EQ(m.bytes(MemoryPart::kExecutor), 4096);
  }
  EXPECT_EQ(session_memory(), nullptr);
  EXPECT_EQ(m.total(), 0);
  EXPECT_EQ(m.peak(), 4096);
}

}  // namespace
}  // namespace tp
