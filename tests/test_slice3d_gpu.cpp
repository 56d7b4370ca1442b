// The GPU side of heat 3D's slices against the host: the slicing (gather) kernel
// against extract_slice on every axis of an odd grid, the sphere paint against the
// host's, and the interior round trip. Outputs are poisoned first. Skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"
#include "sim/core/slice3d.hpp"

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                         \
  do {                                                \
    std::string why_;                                 \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

Heat3DSetup odd_setup() {
  Heat3DConfig c;
  c.nx = 67;
  c.ny = 45;
  c.nz = 38;
  c.order = 8;
  c.boundary = Boundary::analytic;
  c.initial = InitialCondition::analytic;
  return make_heat3d_setup(c);
}

TEST(GpuSlice3D, GatheredSlicesEqualTheHostSlicesOnEveryAxis) {
  SKIP_WITHOUT_DEVICE();
  const Heat3DSetup s = odd_setup();
  HostHeat3D<float> host(s);
  DeviceHeat3D<float> gpu(s);
  host.step(5);
  gpu.step(Heat3DVariant::stream25d, 5);
  std::vector<float> want, got;
  for (SliceAxis axis : kAllSliceAxes) {
    const int depth = slice_depth(s.grid, axis);
    for (int pos : {0, depth / 2, depth - 1}) {
      extract_slice(host.field(), s.grid, axis, pos, want);
      got.assign(want.size(), std::numeric_limits<float>::quiet_NaN());
      gpu.copy_slice_to_host(axis, pos, got.data());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
          << to_string(axis) << " at " << pos << ": bitwise equal to the cpu variant's slice";
    }
  }
  EXPECT_THROW(gpu.copy_slice_to_host(SliceAxis::xy, 38, got.data()), Error);
}

TEST(GpuSlice3D, SpherePaintMatchesTheHostAndShowsInTheSlicesThroughItsCentre) {
  SKIP_WITHOUT_DEVICE();
  const Heat3DSetup s = odd_setup();
  HostHeat3D<float> host(s);
  DeviceHeat3D<float> gpu(s);
  const Sphere ball{20.5, 30.5, 10.5, 4.0, 7.0};
  host.paint(ball);
  gpu.paint(ball);
  gpu.paint({66.5, 0.5, 37.5, 2.5, -3.0});  // clipped at a corner
  host.paint({66.5, 0.5, 37.5, 2.5, -3.0});
  EXPECT_EQ(gpu.download(), host.field()) << "paint and ghost refresh equal the host's";
  std::vector<float> slice(67 * 45);
  gpu.copy_slice_to_host(SliceAxis::xy, 10, slice.data());
  EXPECT_EQ(slice[30 * 67 + 20], 7.0f);
  host.step(3);
  gpu.step(Heat3DVariant::global, 3);
  EXPECT_EQ(extract_interior3d(gpu.download(), s.grid), extract_interior3d(host.field(), s.grid))
      << "and step alike afterwards";
}

TEST(GpuSlice3D, InteriorRoundTripsAndAsyncBatchesReportTheirTime) {
  SKIP_WITHOUT_DEVICE();
  const Heat3DSetup s = odd_setup();
  DeviceHeat3D<float> gpu(s);
  gpu.step_timed_async(Heat3DVariant::shared3d, 4);
  gpu.synchronize();
  EXPECT_TRUE(gpu.idle());
  const auto ms = gpu.finished_batch_ms();
  ASSERT_TRUE(ms.has_value());
  EXPECT_GT(*ms, 0.0);
  EXPECT_FALSE(gpu.finished_batch_ms().has_value()) << "reported once";
  std::vector<float> interior(s.grid.points(), std::numeric_limits<float>::quiet_NaN());
  gpu.copy_interior_to_host(interior.data());
  HostHeat3D<float> host(s);
  host.step(4);
  EXPECT_EQ(interior, host.interior());
  DeviceHeat3D<float> other(s);
  other.load_interior(interior.data(), 4);
  EXPECT_EQ(other.steps_done(), 4);
  EXPECT_EQ(other.download(), gpu.download()) << "ghosts refreshed from the loaded interior";
}

TEST(GpuSlice3D, Deriv3DOutputSlicesEqualTheCpuDerivativesSlices) {
  SKIP_WITHOUT_DEVICE();
  Deriv3DConfig c;
  c.nx = 67;
  c.ny = 45;
  c.nz = 38;
  const Deriv3DSetup s = make_deriv3d_setup(c);
  const std::vector<float> in = deriv3d_input<float>(s);
  DeviceDeriv3D<float> gpu(s);
  std::vector<float> out = in, want, got;
  for (Axis a : kAllAxes) {
    deriv3d_cpu(s, a, in.data(), out.data());
    gpu.poison_output();
    gpu.run(Deriv3DVariant::stream, a);
    for (SliceAxis axis : kAllSliceAxes) {
      const int pos = slice_depth(s.grid, axis) / 3;
      extract_slice(out, s.grid, axis, pos, want);
      got.assign(want.size(), 0.0f);
      gpu.copy_output_slice_to_host(axis, pos, got.data());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
          << "d/d" << to_string(a) << ", " << to_string(axis) << " slice";
    }
  }
  gpu.synchronize();
  EXPECT_TRUE(gpu.idle());
}

}  // namespace
}  // namespace ss
