// The logic of the batches queued ahead of the frame (BasicBatchQueue), on the host: fake
// events that finish when the test says, a fake snapshot taker, and a real CPU simulation
// for the steps. At most two batches wait behind the running one; batches finish oldest
// first with their steps, the step their snapshot shows and their own staging slot; a slot
// is never shared by two queued batches; drain returns them all and empties the queue.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "batch_queue.hpp"
#include "sim/core/error.hpp"

using namespace ss;
using namespace ss::app;

namespace {

/// The fake GPU's timeline: events are recorded in order and finish in that order.
struct Timeline {
  int recorded = 0;
  int finished = 0;
};
Timeline timeline;

struct FakeEvent {
  int at = -1;  // position on the timeline; -1: never recorded
  void record(void*) { at = timeline.recorded++; }
  bool done() const { return at < timeline.finished; }
  void synchronize() const {
    if (!done()) timeline.finished = at + 1;
  }
};
double elapsed_ms(const FakeEvent& a, const FakeEvent& b) { return b.at - a.at; }

struct FakeSnapshots {
  struct Taken {
    int slot;
    long step;
  };
  std::vector<Taken> taken;
  std::array<FakeEvent, 8> event;  // more than any queue's slots
  void snapshot(Simulation& sim, const ViewPlacement&, int slot) {
    taken.push_back({slot, sim.steps_done()});
    event.at(static_cast<std::size_t>(slot)).record(nullptr);
  }
  bool snapshot_done(int slot) const { return event.at(static_cast<std::size_t>(slot)).done(); }
};

using Queue = BasicBatchQueue<FakeEvent, FakeSnapshots>;

class BatchQueueLogic : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline = {};
    const Model& heat = find_model("heat2d");
    sim_ = heat.create(make_config(heat, {24, 20, 1}, 4, {}), Backend::cpu, "cpu");
  }
  /// Lets the fake GPU finish everything recorded so far.
  static void finish_all() { timeline.finished = timeline.recorded; }
  std::unique_ptr<Simulation> sim_;
  FakeSnapshots snapshots_;
  Queue queue_;
};

}  // namespace

TEST_F(BatchQueueLogic, AtMostTwoBatchesWaitBehindTheRunningOne) {
  static_assert(Queue::kMaxBatches == 3);
  queue_.push(*sim_, snapshots_, {}, 3);
  queue_.push(*sim_, snapshots_, {}, 5);
  EXPECT_FALSE(queue_.full());
  queue_.push(*sim_, snapshots_, {}, 2);
  EXPECT_TRUE(queue_.full());
  EXPECT_EQ(queue_.size(), Queue::kMaxBatches);
  EXPECT_THROW(queue_.push(*sim_, snapshots_, {}, 7), Error);
  EXPECT_EQ(queue_.size(), 3);
  EXPECT_EQ(sim_->steps_done(), 10) << "the refused batch was not started";
  EXPECT_EQ(queue_.queued_steps(), 10);
  const auto& t = snapshots_.taken;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_TRUE(t[0].slot != t[1].slot && t[1].slot != t[2].slot && t[0].slot != t[2].slot) << "one slot each";
}

TEST_F(BatchQueueLogic, NothingIsShownBeforeItsSnapshotHasFinished) {
  queue_.push(*sim_, snapshots_, {}, 3);
  queue_.push(*sim_, snapshots_, {}, 5);
  EXPECT_FALSE(queue_.poll(snapshots_).has_value());
  timeline.finished = 2;  // the first batch's steps, not yet its snapshot
  EXPECT_FALSE(queue_.poll(snapshots_).has_value());
  timeline.finished = 3;  // and its snapshot
  const auto first = queue_.poll(snapshots_);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->steps, 3);
  EXPECT_EQ(first->step, 3) << "its snapshot shows the state after it, not after the batch behind it";
  EXPECT_EQ(first->ms, 1.0);
  EXPECT_TRUE(queue_.poll(snapshots_).has_value()) << "polling does not forget it: pop does";
  queue_.pop();
  EXPECT_FALSE(queue_.poll(snapshots_).has_value()) << "the second batch still runs";
  finish_all();
  const auto second = queue_.poll(snapshots_);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->steps, 5);
  EXPECT_EQ(second->step, 8);
}

TEST_F(BatchQueueLogic, EachSnapshotIsTakenRightAfterItsBatchIntoASlotNoQueuedBatchUses) {
  for (int round = 0; round < 12; ++round) {
    while (!queue_.full()) queue_.push(*sim_, snapshots_, {}, 1 + round % 3);
    finish_all();
    const auto done = queue_.poll(snapshots_);
    ASSERT_TRUE(done.has_value());
    queue_.pop();
    // The slot just shown is free again; the batches still queued keep theirs.
    queue_.push(*sim_, snapshots_, {}, 2);
    const auto& t = snapshots_.taken;
    ASSERT_GE(t.size(), 3u);
    EXPECT_NE(t[t.size() - 1].slot, t[t.size() - 2].slot) << "round " << round;
    EXPECT_NE(t[t.size() - 1].slot, t[t.size() - 3].slot) << "round " << round;
    EXPECT_EQ(t.back().slot, done->slot) << "round " << round;
    finish_all();
    for (const auto& f : queue_.drain(*sim_)) EXPECT_GT(f.steps, 0);
  }
  long last = 0;
  for (const auto& t : snapshots_.taken) {
    EXPECT_GT(t.step, last) << "one snapshot per batch, after its steps";
    last = t.step;
  }
}

TEST_F(BatchQueueLogic, DrainReturnsEveryBatchOldestFirstAndEmptiesTheQueue) {
  queue_.push(*sim_, snapshots_, {}, 4);
  queue_.push(*sim_, snapshots_, {}, 6);
  const auto all = queue_.drain(*sim_);  // the fake events finish as it waits
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].steps, 4);
  EXPECT_EQ(all[0].step, 4);
  EXPECT_EQ(all[1].steps, 6);
  EXPECT_EQ(all[1].step, 10);
  EXPECT_TRUE(queue_.empty());
  EXPECT_EQ(queue_.queued_steps(), 0);
  EXPECT_TRUE(queue_.drain(*sim_).empty());
}

// The window shows a finished batch's snapshot after the frame's drawing (show_due):
// until then its slot is reserved, and the batches queued meanwhile take the others.
TEST_F(BatchQueueLogic, AReservedSlotIsLeftForTheSnapshotStillToBeShown) {
  for (int round = 0; round < 9; ++round) {
    while (!queue_.full()) queue_.push(*sim_, snapshots_, {}, 2);
    finish_all();
    // One batch finished (round even) or two (round odd); the newest is to be shown.
    std::optional<Queue::Finished> newest;
    for (int k = 0; k <= round % 2; ++k) {
      newest = queue_.poll(snapshots_);
      ASSERT_TRUE(newest.has_value());
      queue_.pop();
    }
    const int reserved = newest->slot;
    if (round % 2 == 1) {  // two slots were freed: one batch may go in now
      EXPECT_FALSE(queue_.full(reserved)) << "round " << round;
      queue_.push(*sim_, snapshots_, {}, 1, reserved);
      EXPECT_NE(snapshots_.taken.back().slot, reserved) << "round " << round;
    }
    EXPECT_TRUE(queue_.full(reserved)) << "round " << round << ": the reserved slot is the only one left";
    EXPECT_FALSE(queue_.full()) << "round " << round;
    EXPECT_THROW(queue_.push(*sim_, snapshots_, {}, 1, reserved), Error) << "round " << round;
    // Shown: the slot is free again, and the batch that waited for it takes it.
    queue_.push(*sim_, snapshots_, {}, 1);
    EXPECT_EQ(snapshots_.taken.back().slot, reserved) << "round " << round;
    EXPECT_TRUE(queue_.full());
    finish_all();
    queue_.drain(*sim_);
  }
}

// The shared path: the views draw a slot in place, so it stays untouched until another
// slot replaces it; the batches queued meanwhile take the other slots, the extra one
// included, and never the displayed one.
TEST_F(BatchQueueLogic, TheDisplayedSlotIsNeverWrittenWhileShown) {
  int displayed = -1;
  std::vector<int> used(Queue::kSlots, 0);
  for (int round = 0; round < 24; ++round) {
    while (!queue_.full()) queue_.push(*sim_, snapshots_, {}, 1 + round % 2, -1, displayed);
    ASSERT_NE(snapshots_.taken.back().slot, displayed) << "round " << round;
    finish_all();
    const auto done = queue_.poll(snapshots_);
    ASSERT_TRUE(done.has_value());
    queue_.pop();
    // Due to be shown (reserved) while the display still shows the old slot.
    const int reserved = done->slot;
    EXPECT_NE(reserved, displayed) << "round " << round;
    if (!queue_.full(reserved)) {
      queue_.push(*sim_, snapshots_, {}, 1, reserved, displayed);
      EXPECT_NE(snapshots_.taken.back().slot, reserved) << "round " << round;
      EXPECT_NE(snapshots_.taken.back().slot, displayed) << "round " << round;
    }
    displayed = reserved;  // shown: the old displayed slot is free again
    ++used[static_cast<std::size_t>(displayed)];
    for (const auto& t : snapshots_.taken) EXPECT_LT(t.slot, Queue::kSlots);
  }
  for (int k = 0; k < Queue::kSlots; ++k) EXPECT_GT(used[static_cast<std::size_t>(k)], 0) << "slot " << k << " never shown";
  finish_all();
  queue_.drain(*sim_);
}
