// heat3d GPU variants against the double reference and bit for bit against the
// `cpu` variant, for every order and boundary, on sizes that are not multiples
// of any tile, with the output buffer poisoned first. Skips without a device.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/core/device.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                         \
  do {                                                \
    std::string why_;                                 \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

Heat3DSetup setup_of(int nx, int ny, int nz, int order, Boundary b, InitialCondition ic) {
  Heat3DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  c.order = order;
  c.boundary = b;
  c.initial = ic;
  c.fixed_value = -0.5;
  return make_heat3d_setup(c);
}

template <typename T>
void check_case(const Heat3DSetup& s, int steps, double tolerance, bool with_reference = true) {
  const std::vector<double> ref = with_reference ? heat3d_reference(s, steps) : std::vector<double>();
  HostHeat3D<T> host(s);
  host.poison_scratch();
  host.step(steps);
  const std::vector<T> cpu = extract_interior3d(host.field(), s.grid);
  DeviceHeat3D<T> gpu(s);
  const Grid3D& g = s.grid;
  for (Heat3DVariant v : kGpuHeat3DVariants) {
    gpu.reset();
    gpu.poison_scratch();
    gpu.step(v, steps);
    const std::vector<T> field = gpu.download();
    const std::vector<T> out = extract_interior3d(field, g);
    const std::string what = std::string(to_string(v)) + ", order " + std::to_string(s.config.order) + ", " +
                             std::string(to_string(s.config.boundary)) + ", " + std::to_string(g.nx) + "x" +
                             std::to_string(g.ny) + "x" + std::to_string(g.nz);
    if (with_reference) {
      const ErrorNorms e = compare_to_reference(out, ref);
      EXPECT_TRUE(e.finite) << what;
      EXPECT_LT(e.rel_l2, tolerance) << what;
    }
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(T)), 0) << what << " differs from cpu";
    // The boundary step ran after the last step (the buffer held NaN before it).
    for (int m = 1; m <= kGhost; ++m) {
      EXPECT_EQ(field[g.index(-m, g.ny / 2, g.nz / 3)], host.field()[g.index(-m, g.ny / 2, g.nz / 3)]) << what;
      EXPECT_EQ(field[g.index(g.nx / 3, g.ny - 1 + m, 1)], host.field()[g.index(g.nx / 3, g.ny - 1 + m, 1)]) << what;
      EXPECT_EQ(field[g.index(2, g.ny / 2, g.nz - 1 + m)], host.field()[g.index(2, g.ny / 2, g.nz - 1 + m)]) << what;
    }
  }
}

class Heat3DGpu : public ::testing::TestWithParam<std::tuple<int, Boundary>> {};

TEST_P(Heat3DGpu, OddSizeFloatBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, b] = GetParam();
  check_case<float>(setup_of(67, 45, 38, order, b, InitialCondition::analytic), 5, 1e-6);
}

TEST_P(Heat3DGpu, OddSizeDoubleBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, b] = GetParam();
  check_case<double>(setup_of(33, 17, 40, order, b, InitialCondition::hot_spots), 4, 1e-13);
}

// Widths whose last pack is cut by the grid's end at every position a thread's packs
// take (stream25d's two-pack shapes, STENCILSCOPE_STREAM25=2pack: 8 floats or 4
// doubles a thread): 45 = 5 x 8 + 5 ends in a thread's second float pack, 43 =
// 10 x 4 + 3 in its second double pack.
TEST_P(Heat3DGpu, TailPacksBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, b] = GetParam();
  check_case<float>(setup_of(45, 37, 29, order, b, InitialCondition::analytic), 3, 1e-6);
  check_case<double>(setup_of(43, 19, 21, order, b, InitialCondition::hot_spots), 3, 1e-13);
}

// Widths that are whole packs but not whole stream25d tiles (128 floats or 64 doubles a
// tile row): the last tile's core rows end in packs of ghosts only, which under the
// insulated rule are mirrored packs in the same duties as interior packs (and under
// periodic, wrapped ones), not only in the x-halo duties.
TEST_P(Heat3DGpu, WholePacksPastTheLastTileBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, b] = GetParam();
  check_case<float>(setup_of(132, 21, 13, order, b, InitialCondition::analytic), 3, 1e-6);
  check_case<double>(setup_of(66, 19, 11, order, b, InitialCondition::hot_spots), 3, 1e-13);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndBoundaries, Heat3DGpu,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8),
                                            ::testing::Values(Boundary::analytic, Boundary::periodic, Boundary::fixed,
                                                              Boundary::insulated)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

// Under the analytic rule stream25d reads face ghosts precomputed for its
// input's time, written by the previous stream25d step or, when that was another
// variant, a reset or the first step, by a kernel of their own: runs split
// across calls and variants must still match the cpu variant bit for bit.
TEST(Heat3DGpuAnalytic, FaceGhostsFollowSplitRunsSwitchesAndResets) {
  SKIP_WITHOUT_DEVICE();
  const Heat3DSetup s = setup_of(67, 45, 38, 8, Boundary::analytic, InitialCondition::analytic);
  HostHeat3D<float> host(s);
  host.step(7);
  const std::vector<float> cpu = extract_interior3d(host.field(), s.grid);
  DeviceHeat3D<float> gpu(s);
  auto expect_cpu = [&](const std::string& what) {
    const std::vector<float> out = extract_interior3d(gpu.download(), s.grid);
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(float)), 0) << what;
  };
  gpu.step(Heat3DVariant::stream25d, 2);
  gpu.step(Heat3DVariant::global, 1);
  gpu.step(Heat3DVariant::stream25d, 1);
  gpu.step(Heat3DVariant::stream25d, 1);
  gpu.step(Heat3DVariant::shared3d, 1);
  gpu.step(Heat3DVariant::stream25d, 1);
  expect_cpu("stream25d 2, global 1, stream25d 1 + 1, shared3d 1, stream25d 1");
  gpu.reset();
  gpu.poison_scratch();
  gpu.step(Heat3DVariant::stream25d, 7);
  expect_cpu("after a reset, stream25d 7");
  gpu.reset();
  for (int k = 0; k < 7; ++k) gpu.step(Heat3DVariant::stream25d, 1);
  expect_cpu("after a reset, stream25d 1 at a time");
}

// stream25d's face ghosts are laid out for one radius (in double, 2 packs per row
// and side at orders 6 and 8, 1 below) and computed for the times of one dt, and
// both change with the order: after a change the step must write them again, and
// every solver's ghosts must follow the new dt's time.
TEST(Heat3DGpuAnalytic, FaceGhostsFollowOrderChanges) {
  SKIP_WITHOUT_DEVICE();
  const Heat3DSetup s = setup_of(67, 45, 38, 8, Boundary::analytic, InitialCondition::analytic);
  HostHeat3D<double> host(s);
  DeviceHeat3D<double> gpu(s);
  for (int order : {8, 4, 2, 6}) {
    host.set_order(order);
    gpu.set_order(order);
    host.step(3);
    gpu.step(Heat3DVariant::stream25d, 3);
    const std::vector<double> cpu = extract_interior3d(host.field(), s.grid);
    const std::vector<double> out = extract_interior3d(gpu.download(), s.grid);
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(double)), 0) << "after 3 steps at order " << order;
  }
}

TEST(Heat3DGpuLarge, Cube256Order8Float) {
  SKIP_WITHOUT_DEVICE();
  // Bitwise against cpu only: the double reference at 256^3 would dominate the runtime.
  check_case<float>(setup_of(256, 256, 256, 8, Boundary::analytic, InitialCondition::analytic), 3, 0, false);
}

TEST(Heat3DGpuLarge, TallThinGrids) {
  SKIP_WITHOUT_DEVICE();
  check_case<float>(setup_of(8, 9, 300, 8, Boundary::periodic, InitialCondition::hot_spots), 3, 1e-6);
  check_case<float>(setup_of(130, 8, 8, 4, Boundary::insulated, InitialCondition::checkerboard), 3, 1e-6);
}

}  // namespace
}  // namespace ss
