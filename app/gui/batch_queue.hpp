#pragma once
// The GPU batches queued ahead of the frame (issue 20: no throughput lost to the window).
// Each batch is followed on the simulation's stream by a snapshot of the views into a
// staging slot of the ViewUploader, and the next batches are queued right behind it, so
// the stream always holds work while the frame draws. At most three batches are in
// flight: the one running and two behind it, so that a frame paced by the display
// (16.7 ms at 60 Hz) finds work queued even with batches of 10 ms. The frame polls the
// oldest; once its snapshot has finished it shows that snapshot and queues another
// batch; it never waits for one.
//
// A template on the event and the snapshot taker only so that host tests can drive its
// logic with fakes; the app uses BatchQueue (CUDA events, the ViewUploader).
#include <algorithm>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/staging.hpp"
#include "view_upload.hpp"

namespace ss::app {

/// Event: record(stream), done(), synchronize(), and elapsed_ms(a, b) found by ADL.
/// Snapshots: snapshot(Simulation&, const ViewPlacement&, int slot), snapshot_done(int slot).
template <class Event, class Snapshots>
class BasicBatchQueue {
 public:
  /// The running batch and the ones queued behind it; each has its own staging slot.
  static constexpr int kMaxBatches = 3;
  /// Staging slots: one per batch in flight, and one more for the snapshot the views
  /// show in place (the shared path: a slot GL draws from is not written again until
  /// another replaces it). The extra slot is taken only when the others are all in use.
  static constexpr int kSlots = kMaxBatches + 1;

  /// A batch whose steps and snapshot have finished.
  struct Finished {
    int steps = 0;
    double ms = 0;   ///< GPU time of its steps (events around them)
    long step = 0;   ///< the simulation's step count after it: what its snapshot shows
    int slot = 0;    ///< the staging slot holding its snapshot
  };

  /// Queues `steps` steps of `sim` then the snapshot of its views at `where` into the
  /// slot no queued batch uses. Never waits. Throws ss::Error when full().
  /// `reserved`: a slot whose snapshot is still to be shown (-1: none), left alone;
  /// `displayed`: the slot the views show in place (-1: none), left alone too.
  void push(Simulation& sim, Snapshots& snapshots, const ViewPlacement& where, int steps, int reserved = -1,
            int displayed = -1) {
    if (full(reserved)) throw Error("internal: more batches queued ahead of the frame than staging slots");
    Batch b;
    b.steps = steps;
    b.slot = free_slot(reserved, displayed);
    void* stream = sim.view(0, where).stream;
    b.begin.record(stream);
    sim.start_steps(steps);
    b.end.record(stream);
    b.step_after = sim.steps_done();
    snapshots.snapshot(sim, where, b.slot);  // the state after these steps, before the next batch's
    batches_.push_back(std::move(b));
  }
  /// The oldest batch once it and its snapshot have finished (never blocks); it stays
  /// queued until pop(), so its slot is not reused before the caller has shown it.
  std::optional<Finished> poll(const Snapshots& snapshots) const {
    if (batches_.empty()) return std::nullopt;
    const Batch& b = batches_.front();
    if (!snapshots.snapshot_done(b.slot) || !b.end.done()) return std::nullopt;
    return finished(b);
  }
  /// Forgets the oldest batch (after poll() returned it).
  void pop() {
    if (!batches_.empty()) batches_.pop_front();
  }
  /// Waits for `sim`'s queued work and forgets every batch; returns them, oldest first,
  /// for the performance history (their snapshots are not shown: the caller uploads the
  /// state itself).
  std::vector<Finished> drain(Simulation& sim) {
    std::vector<Finished> out;
    if (batches_.empty()) return out;
    sim.wait();
    for (const Batch& b : batches_) {
      b.end.synchronize();  // recorded on sim's stream: already done
      out.push_back(finished(b));
    }
    batches_.clear();
    return out;
  }

  bool empty() const { return batches_.empty(); }
  /// No slot is free for another batch (`reserved`, when >= 0, is not free).
  bool full(int reserved = -1) const { return static_cast<int>(batches_.size()) >= kMaxBatches - (reserved >= 0); }
  int size() const { return static_cast<int>(batches_.size()); }
  /// Steps queued and not yet forgotten (by pop or drain).
  long queued_steps() const {
    long n = 0;
    for (const Batch& b : batches_) n += b.steps;
    return n;
  }

 private:
  struct Batch {
    int steps = 0;
    long step_after = 0;
    int slot = 0;
    Event begin, end;  // around the steps, on the simulation's stream
  };
  static Finished finished(const Batch& b) { return Finished{b.steps, elapsed_ms(b.begin, b.end), b.step_after, b.slot}; }
  /// The lowest slot no queued batch uses, other than `reserved` and `displayed` (there is
  /// one unless full(reserved): kSlots covers the batches, the reserved and the displayed).
  int free_slot(int reserved, int displayed) const {
    for (int slot = 0; slot < kSlots; ++slot)
      if (slot != reserved && slot != displayed &&
          std::none_of(batches_.begin(), batches_.end(), [&](const Batch& b) { return b.slot == slot; }))
        return slot;
    throw Error("internal: no free staging slot");
  }

  std::deque<Batch> batches_;
};

using BatchQueue = BasicBatchQueue<GpuEvent, ViewUploader>;
static_assert(BatchQueue::kSlots == ViewUploader::kSlots, "a staging slot per batch in flight, and the one shown");

}  // namespace ss::app
