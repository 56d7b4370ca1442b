// The window's loop on a CUDA device (issue 20): batches are queued ahead of the frame,
// each followed by a snapshot of the views. The snapshot a frame shows is the state after
// its batch (not after the batch queued behind it), for 2D fields and for 3D slices
// (the YZ slice is the strided gather), through interop and the host copy; the step count
// follows; at most one batch waits behind the running one; a paint after queued batches
// lands on the state they lead to; recording and A/B take the simple path. Skips without
// a device or a headless GL context.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "live_simulation.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/staging.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "view_upload.hpp"

using namespace ss;
using namespace ss::app;

namespace {

class QueuedFramesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    try {
      context_ = std::make_unique<render::HeadlessContext>();
    } catch (const Error& e) {
      GTEST_SKIP() << "no headless GL context: " << e.what();
    }
    settings_.model = "heat2d";
    settings_.nx = 300;  // not a multiple of the 32x8 tiles
    settings_.ny = 200;
    settings_.variant = "stream";
    settings_.adaptive_steps = false;
    settings_.steps_per_frame = 7;
  }
  std::unique_ptr<render::HeadlessContext> context_;
  SimSettings settings_;
};

/// A second simulation of the same configuration and variant, on the GPU: the reference.
std::unique_ptr<Simulation> twin(const LiveSimulation& live) {
  return find_model(live.model().name).create(live.config(), Backend::gpu, live.simulation().variant());
}

std::vector<float> view_of(Simulation& sim, int v, const ViewPlacement& where) {
  const auto [nu, nv] = sim.view_size(v);
  std::vector<float> out(static_cast<std::size_t>(nu) * nv);
  sim.copy_view(v, where, out.data());
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Snapshot after `first` steps with `second` more queued behind it, shown into fresh
/// textures: each must equal copy_view of the state after `first` steps.
void expect_snapshot_is_the_state_after_its_batch(const std::string& model, std::array<int, 3> size,
                                                  const std::string& variant, bool allow_interop) {
  ModelConfig config = make_config(find_model(model), size, 4, {});
  std::unique_ptr<Simulation> sim = find_model(model).create(config, Backend::gpu, variant);
  std::unique_ptr<Simulation> ref = find_model(model).create(config, Backend::gpu, variant);
  ViewPlacement where;
  if (model != "heat2d") where.slices = {size[2] / 3, size[1] / 2, size[0] - 2};
  std::vector<std::unique_ptr<render::FieldTexture>> textures;
  std::vector<render::FieldTexture*> targets;
  for (int v = 0; v < sim->views(); ++v) {
    const auto [nu, nv] = sim->view_size(v);
    textures.push_back(std::make_unique<render::FieldTexture>(nu, nv));
    targets.push_back(textures.back().get());
  }
  ViewUploader uploader;
  sim->start_steps(9);
  uploader.snapshot(*sim, where, 1);
  sim->start_steps(13);  // queued right behind the snapshot: must not show in it
  while (!uploader.snapshot_done(1)) std::this_thread::yield();
  const UploadPath path = uploader.show(1, targets, allow_interop);
  if (!allow_interop) {
    EXPECT_EQ(path, UploadPath::host_copy);
  } else {  // the shared path wherever the GL context and CUDA can take it, else map
    const bool shared = render::use_shared_slots(render::query_interop_support(), render::interop_override());
    EXPECT_EQ(path, shared ? UploadPath::shared : UploadPath::interop) << to_string(path);
    EXPECT_EQ(uploader.displayed_slot(), shared ? 1 : -1);
  }
  ref->start_steps(9);
  ref->wait();
  for (int v = 0; v < sim->views(); ++v)
    EXPECT_TRUE(same_bits(textures[static_cast<std::size_t>(v)]->download(), view_of(*ref, v, where)))
        << model << " view " << v << " (" << to_string(path) << ")";
  sim->wait();
  EXPECT_EQ(sim->steps_done(), 22);
  std::optional<render::FieldStats> stats;  // interop: known once the uploader's stream has passed the copy
  for (int k = 0; k < 2000 && !(stats = uploader.stats(*sim)); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(stats.has_value());
  EXPECT_TRUE(stats->finite);
}

}  // namespace

TEST(Staging, AGatheredViewIsCopyViewOfTheState) {
  std::string why;
  if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const std::array<int, 3> size{67, 45, 38};  // the YZ slice is strided
  std::unique_ptr<Simulation> sim =
      find_model("heat3d").create(make_config(find_model("heat3d"), size, 4, {}), Backend::gpu, "stream25d");
  sim->start_steps(5);
  const ViewPlacement where{{11, 20, 60}, ""};
  for (int v = 0; v < 3; ++v) {
    const FieldView f = sim->view(v, where);
    DeviceFloats d;
    d.reserve(static_cast<std::size_t>(f.nu) * f.nv);
    gather_view_async(f, d.data(), f.stream);
    PinnedFloats h;
    h.reserve(d.size());
    copy_to_host_async(h.data(), d.data(), d.size(), f.stream);
    sim->wait();
    const std::vector<float> got(h.data(), h.data() + d.size());
    EXPECT_TRUE(same_bits(got, view_of(*sim, v, where))) << "view " << v;
  }
}

TEST_F(QueuedFramesTest, TheSnapshotIsTheStateAfterItsBatchNotTheNextOne) {
  for (bool interop : {true, false}) {
    SCOPED_TRACE(interop ? "interop allowed" : "host copy");
    expect_snapshot_is_the_state_after_its_batch("heat2d", {300, 200, 1}, "stream", interop);
    expect_snapshot_is_the_state_after_its_batch("heat3d", {67, 45, 38}, "stream25d", interop);
  }
}

// Each frame shows the newest finished snapshot: the texture is the state at the finished
// step count, never more than one batch waits behind the running one, and the step count
// adds up once the queue is drained.
TEST_F(QueuedFramesTest, FramesShowFinishedBatchesAndTheStepsAddUp) {
  LiveSimulation sim(settings_);
  std::unique_ptr<Simulation> ref = twin(sim);
  const ViewPlacement where;
  long ref_steps = 0;
  int checked = 0;
  for (int frame = 0; frame < 400 && checked < 5; ++frame) {
    const long uploads = sim.status().uploads;
    sim.advance(settings_, false);
    sim.show_due();  // as the window does once it has drawn
    ASSERT_LE(sim.queued_batches(), BatchQueue::kMaxBatches);
    ASSERT_TRUE(sim.status().error.empty()) << sim.status().error;
    EXPECT_EQ(sim.status().steps_done % settings_.steps_per_frame, 0);
    if (sim.status().uploads > uploads && sim.status().steps_done > ref_steps) {
      ref->start_steps(static_cast<int>(sim.status().steps_done - ref_steps));
      ref_steps = sim.status().steps_done;
      ref->wait();
      EXPECT_TRUE(same_bits(sim.texture().download(), view_of(*ref, 0, where))) << "at step " << ref_steps;
      ++checked;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_GE(checked, 5);
  EXPECT_GT(sim.queued_batches(), 0) << "running: the stream holds work between frames";
  const SimState st = sim.copy_state();  // drains
  EXPECT_EQ(sim.queued_batches(), 0);
  long history_steps = 0;
  for (const PerfSample& p : sim.status().history) history_steps += p.steps;
  EXPECT_EQ(st.steps_done, sim.simulation().steps_done());
  EXPECT_EQ(history_steps, st.steps_done) << "every batch's steps are counted once";
}

TEST_F(QueuedFramesTest, APaintAfterQueuedBatchesLandsOnTheStateTheyLeadTo) {
  LiveSimulation sim(settings_);
  for (int frame = 0; frame < 5; ++frame) sim.advance(settings_, false);
  ASSERT_GT(sim.queued_batches(), 0);
  sim.paint(100, 60, 6.0, 3.0);
  EXPECT_EQ(sim.queued_batches(), 0) << "painting drains the queue";
  const long painted_at = sim.simulation().steps_done();
  std::unique_ptr<Simulation> ref = twin(sim);
  ref->start_steps(static_cast<int>(painted_at));
  ref->paint(0, 100, 60, 6.0, 3.0, ViewPlacement{});
  ref->wait();
  EXPECT_TRUE(same_bits(sim.texture().download(), view_of(*ref, 0, {}))) << "the paint shows at once";
  for (int frame = 0; frame < 5; ++frame) sim.advance(settings_, false);
  const SimState st = sim.copy_state();
  ref->start_steps(static_cast<int>(st.steps_done - painted_at));
  EXPECT_TRUE(same_bits(st.fields.at(0), ref->copy_state().fields.at(0))) << "and the steps after it go on from it";
}

TEST_F(QueuedFramesTest, RecordingAndABTakeTheSimplePath) {
  LiveSimulation sim(settings_);
  for (int frame = 1; frame <= 3; ++frame) {
    sim.advance(settings_, true);  // recording: one batch, waited for
    EXPECT_EQ(sim.queued_batches(), 0);
    EXPECT_EQ(sim.status().steps_done, frame * settings_.steps_per_frame);
  }
  sim.advance(settings_, false);
  EXPECT_GT(sim.queued_batches(), 0);
  settings_.ab.enabled = true;
  sim.apply(settings_);
  ASSERT_TRUE(sim.ab_active()) << sim.status().note;
  sim.advance(settings_, false);
  EXPECT_EQ(sim.queued_batches(), 0) << "B steps alongside A on the simple path";
  EXPECT_EQ(sim.simulation().steps_done(), sim.simulation_b().steps_done());
}
