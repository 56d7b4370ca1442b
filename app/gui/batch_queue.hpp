#pragma once
// The GPU batches queued ahead of the frame (issue 20: no throughput lost to the window).
// Each batch is followed on the simulation's stream by a snapshot of the views into a
// staging slot of the ViewUploader, and the next batch is queued right behind it, so
// the stream always holds work while the frame draws. At most two batches are in
// flight: the one running and the next. The frame polls the oldest; once its snapshot
// has finished it shows that snapshot and queues another batch; it never waits for one.
#include <deque>
#include <optional>
#include <vector>

#include "sim/core/model.hpp"
#include "sim/core/staging.hpp"
#include "view_upload.hpp"

namespace ss::app {

class BatchQueue {
 public:
  /// The running batch and the one queued behind it.
  static constexpr int kMaxBatches = ViewUploader::kSlots;

  /// A batch whose steps and snapshot have finished.
  struct Finished {
    int steps = 0;
    double ms = 0;   ///< GPU time of its steps (CUDA events around them)
    long step = 0;   ///< the simulation's step count after it: what its snapshot shows
    int slot = 0;    ///< the staging slot holding its snapshot
  };

  /// Queues `steps` steps of `sim` (GPU) then the snapshot of its views at `where` into a
  /// free staging slot of `uploader`. Never waits. Throws ss::Error when full().
  void push(Simulation& sim, ViewUploader& uploader, const ViewPlacement& where, int steps);
  /// The oldest batch once it and its snapshot have finished (never blocks); it stays
  /// queued until pop(), so its slot is not reused before the caller has shown it.
  std::optional<Finished> poll(const ViewUploader& uploader) const;
  /// Forgets the oldest batch (after poll() returned it).
  void pop();
  /// Waits for `sim`'s queued work and forgets every batch; returns them, oldest first,
  /// for the performance history (their snapshots are not shown: the caller uploads the
  /// state itself).
  std::vector<Finished> drain(Simulation& sim);

  bool empty() const { return batches_.empty(); }
  bool full() const { return static_cast<int>(batches_.size()) >= kMaxBatches; }
  int size() const { return static_cast<int>(batches_.size()); }
  /// Steps queued and not yet finished (by poll or drain).
  long queued_steps() const;

 private:
  struct Batch {
    int steps = 0;
    long step_after = 0;
    int slot = 0;
    GpuEvent begin, end;  // around the steps, on the simulation's stream
  };
  static Finished finished(const Batch& b);
  std::deque<Batch> batches_;
  int next_slot_ = 0;
};

}  // namespace ss::app
