#include "batch_queue.hpp"

#include "sim/core/error.hpp"

namespace ss::app {

void BatchQueue::push(Simulation& sim, ViewUploader& uploader, const ViewPlacement& where, int steps) {
  if (full()) throw Error("internal: a third batch queued ahead of the frame");
  Batch b;
  b.steps = steps;
  b.slot = next_slot_;
  void* stream = sim.view(0, where).stream;
  b.begin.record(stream);
  sim.start_steps(steps);
  b.end.record(stream);
  b.step_after = sim.steps_done();
  uploader.snapshot(sim, where, b.slot);  // the state after these steps, before the next batch's
  next_slot_ = (next_slot_ + 1) % ViewUploader::kSlots;
  batches_.push_back(std::move(b));
}

BatchQueue::Finished BatchQueue::finished(const Batch& b) {
  return Finished{b.steps, elapsed_ms(b.begin, b.end), b.step_after, b.slot};
}

std::optional<BatchQueue::Finished> BatchQueue::poll(const ViewUploader& uploader) const {
  if (batches_.empty()) return std::nullopt;
  const Batch& b = batches_.front();
  if (!uploader.snapshot_done(b.slot) || !b.end.done()) return std::nullopt;
  return finished(b);
}

void BatchQueue::pop() {
  if (!batches_.empty()) batches_.pop_front();
}

std::vector<BatchQueue::Finished> BatchQueue::drain(Simulation& sim) {
  std::vector<Finished> out;
  if (batches_.empty()) return out;
  sim.wait();
  for (const Batch& b : batches_) {
    b.end.synchronize();  // recorded on sim's stream: done; a cheap guard all the same
    out.push_back(finished(b));
  }
  batches_.clear();
  return out;
}

long BatchQueue::queued_steps() const {
  long n = 0;
  for (const Batch& b : batches_) n += b.steps;
  return n;
}

}  // namespace ss::app
