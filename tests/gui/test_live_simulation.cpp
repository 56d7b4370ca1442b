// LiveSimulation on the CPU backend, in a headless EGL context: live order changes keep
// the field, resizing restarts it, refused edits leave the running scene alone, a field
// that turns non-finite pauses stepping with a message instead of ending the app.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "live_simulation.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/render/headless_context.hpp"

using namespace ss;
using namespace ss::app;

namespace {

class LiveSimulationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = std::make_unique<render::HeadlessContext>();
    } catch (const Error& e) {
      GTEST_SKIP() << "no headless GL context: " << e.what();
    }
    settings_.nx = 48;
    settings_.ny = 40;
    settings_.variant = Heat2DVariant::cpu;
    settings_.adaptive_steps = false;
    settings_.steps_per_frame = 4;
  }
  std::unique_ptr<render::HeadlessContext> context_;
  SimSettings settings_;
};

}  // namespace

TEST_F(LiveSimulationTest, FramesAdvanceByTheFixedStepsAndOrderChangesKeepTheField) {
  LiveSimulation sim(settings_);
  for (int k = 0; k < 3; ++k) sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 12);
  EXPECT_EQ(sim.status().upload_path, UploadPath::cpu_backend);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_TRUE(sim.field_stats()->finite);
  settings_.order = 4;
  sim.apply(settings_);
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 16) << "an order change must not restart the field";
  EXPECT_EQ(sim.setup().config.order, 4);
}

TEST_F(LiveSimulationTest, ResizingRestartsTheFieldWithANewTexture) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 4);
  settings_.nx = 64;
  sim.apply(settings_);
  EXPECT_EQ(sim.status().steps_done, 0);
  EXPECT_EQ(sim.texture().nx(), 64);
  EXPECT_EQ(sim.setup().grid.nx, 64);
}

TEST_F(LiveSimulationTest, RefusedEditsAreUndoneAndTheSceneKeepsRunning) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  SimSettings bad = settings_;
  bad.dt = 1.0;  // far above the stability limit
  sim.apply(bad);
  EXPECT_EQ(bad.dt, settings_.dt) << "the refused dt is put back";
  EXPECT_NE(sim.status().note.find("stability limit"), std::string::npos) << sim.status().note;
  EXPECT_TRUE(sim.status().error.empty());
  sim.advance(bad, false);
  EXPECT_EQ(sim.status().steps_done, 8);

  bad.variant = Heat2DVariant::reference;
  sim.apply(bad);
  EXPECT_EQ(bad.variant, Heat2DVariant::cpu);
}

TEST_F(LiveSimulationTest, NonFiniteFieldPausesWithAMessageAndResetRecovers) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  sim.paint(20, 20, 3, std::numeric_limits<double>::infinity());
  sim.advance(settings_, false);  // uploads the painted field and sees Inf
  const long steps = sim.status().steps_done;
  EXPECT_FALSE(sim.status().error.empty());
  EXPECT_NE(sim.status().error.find("NaN or Inf"), std::string::npos) << sim.status().error;
  for (int k = 0; k < 3; ++k) sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, steps) << "stepping stays paused";
  sim.reset();
  EXPECT_TRUE(sim.status().error.empty());
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 4);
  EXPECT_TRUE(sim.field_stats()->finite);
}

TEST_F(LiveSimulationTest, AdaptiveBatchesGrowTowardsTheBudget) {
  settings_.adaptive_steps = true;
  settings_.frame_budget_ms = 200.0;  // far above what a 48x40 batch takes, even on a loaded machine
  LiveSimulation sim(settings_);
  for (int k = 0; k < 8; ++k) sim.advance(settings_, false);
  // A 48x40 step takes microseconds: batches double each frame from 1 (growth is capped at 2x a frame).
  EXPECT_GT(sim.status().batch_steps, 16);
  EXPECT_GT(sim.status().steps_done, 8);
}

TEST_F(LiveSimulationTest, ValidationAgainstTheAnalyticSolutionIsSmall) {
  LiveSimulation sim(settings_);
  sim.request_validation();
  sim.advance(settings_, false);
  sim.advance(settings_, false);
  const Validation& v = sim.status().validation;
  ASSERT_TRUE(v.available) << v.why_not;
  EXPECT_LT(v.rel_l2, 1e-4);
  EXPECT_LT(v.rel_linf, 1e-4);
  EXPECT_GT(v.rel_l2, 0.0);  // float rounding and truncation error are never exactly zero
}

TEST_F(LiveSimulationTest, GpuVariantWithoutADeviceFallsBackToTheCpuAndSaysSo) {
  if (cuda_available()) GTEST_SKIP() << "there is a CUDA device";
  settings_.variant = Heat2DVariant::stream;
  LiveSimulation sim(settings_);
  EXPECT_EQ(settings_.variant, Heat2DVariant::cpu);
  EXPECT_EQ(sim.status().backend, "CPU");
  EXPECT_NE(sim.status().note.find("CPU backend"), std::string::npos) << sim.status().note;
}

TEST_F(LiveSimulationTest, PaintedHeatAndColdReachTheTexture) {
  settings_.paused = true;  // nothing diffuses between the paint and the upload
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_LT(sim.field_stats()->range.hi, 5.0);
  sim.paint(10, 10, 2.5, 5.0);   // left drag: hot
  sim.paint(30, 25, 2.5, -4.0);  // right drag: cold
  sim.advance(settings_, false);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_EQ(sim.field_stats()->range.hi, 5.0);
  EXPECT_EQ(sim.field_stats()->range.lo, -4.0);
  EXPECT_EQ(sim.status().steps_done, 0) << "painting does not step";
}
