// GPU variants against the double reference and against each other, on sizes that
// are not multiples of any tile, with the output buffer poisoned before each run.
// Without a CUDA device every test skips and says so.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                                  \
  do {                                                         \
    std::string why_;                                          \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_;          \
  } while (0)

Heat2DSetup setup_of(int nx, int ny, int order, Boundary b, InitialCondition ic) {
  Heat2DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.order = order;
  c.boundary = b;
  c.initial = ic;
  c.fixed_value = -0.5;
  return make_heat2d_setup(c);
}

template <typename T>
void check_case(const Heat2DSetup& s, int steps, double tolerance) {
  const std::vector<double> ref = heat2d_reference(s, steps);
  HostHeat2D<T> host(s);
  host.poison_scratch();
  host.step(steps);
  const std::vector<T> cpu = extract_interior(host.field(), s.grid);
  DeviceHeat2D<T> gpu(s);
  for (Heat2DVariant v : kGpuHeat2DVariants) {
    gpu.reset();
    gpu.poison_scratch();
    gpu.step(v, steps);
    const std::vector<T> field = gpu.download();
    const std::vector<T> out = extract_interior(field, s.grid);
    const ErrorNorms e = compare_to_reference(out, ref);
    EXPECT_TRUE(e.finite) << to_string(v);
    EXPECT_LT(e.rel_l2, tolerance) << to_string(v);
    // Bitwise: every GPU variant equals the CPU `cpu` variant, hence each other.
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(T)), 0)
        << to_string(v) << " differs from cpu, order " << s.config.order << ", " << s.grid.nx << "x" << s.grid.ny;
    // The ghost frame was written too (it held NaN before the last step).
    const Grid2D& g = s.grid;
    for (int k = 1; k <= kGhost; ++k) {
      EXPECT_EQ(field[g.index(-k, g.ny / 2)], host.field()[g.index(-k, g.ny / 2)]) << to_string(v);
      EXPECT_EQ(field[g.index(g.nx / 3, g.ny - 1 + k)], host.field()[g.index(g.nx / 3, g.ny - 1 + k)]) << to_string(v);
    }
  }
}

class GpuVariants : public ::testing::TestWithParam<std::tuple<int, std::pair<int, int>>> {};

TEST_P(GpuVariants, FloatMatchesReferenceAndCpuBitwise) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, size] = GetParam();
  check_case<float>(setup_of(size.first, size.second, order, Boundary::analytic, InitialCondition::analytic), 6, 1e-6);
}

TEST_P(GpuVariants, DoubleMatchesReferenceAndCpuBitwise) {
  SKIP_WITHOUT_DEVICE();
  const auto [order, size] = GetParam();
  check_case<double>(setup_of(size.first, size.second, order, Boundary::analytic, InitialCondition::hot_spots), 6,
                     1e-13);
}

INSTANTIATE_TEST_SUITE_P(OrdersAndOddSizes, GpuVariants,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8),
                                            ::testing::Values(std::pair{1000, 333}, std::pair{4097, 129},
                                                              std::pair{67, 45}, std::pair{8, 300})),
                         [](const auto& info) {
                           const auto size = std::get<1>(info.param);
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::to_string(size.first) + "x" + std::to_string(size.second);
                         });

class GpuBoundaries : public ::testing::TestWithParam<Boundary> {};

TEST_P(GpuBoundaries, EveryBoundaryMatches) {
  SKIP_WITHOUT_DEVICE();
  for (int order : {2, 8}) {
    check_case<float>(setup_of(301, 77, order, GetParam(), InitialCondition::hot_spots), 20, 1e-6);
    check_case<double>(setup_of(130, 259, order, GetParam(), InitialCondition::checkerboard), 20, 1e-13);
  }
}

INSTANTIATE_TEST_SUITE_P(All, GpuBoundaries,
                         ::testing::Values(Boundary::analytic, Boundary::periodic, Boundary::fixed, Boundary::insulated),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(GpuHeat2D, TallGridLoopsOverBlockRows) {
  SKIP_WITHOUT_DEVICE();
  // 800000 rows need more than 65535 blocks along y for every variant (stream: 66667 strips of 12 rows).
  check_case<float>(setup_of(8, 800000, 8, Boundary::periodic, InitialCondition::hot_spots), 2, 1e-6);
}

TEST(GpuHeat2D, PaintAndFiniteCheckMatchTheHost) {
  SKIP_WITHOUT_DEVICE();
  const Heat2DSetup s = setup_of(97, 61, 6, Boundary::periodic, InitialCondition::hot_disc);
  HostHeat2D<float> host(s);
  DeviceHeat2D<float> gpu(s);
  const Brush b{2.0, 30.0, 5.5, 3.0};
  host.paint(b);
  gpu.paint(b);
  host.step(4);
  gpu.step(Heat2DVariant::stream, 4);
  const auto d = gpu.download();
  EXPECT_EQ(std::memcmp(extract_interior(d, s.grid).data(), extract_interior(host.field(), s.grid).data(),
                        s.grid.points() * sizeof(float)),
            0);
  std::vector<float> interior(s.grid.points());
  gpu.copy_interior_to_host(interior.data());
  EXPECT_EQ(interior, extract_interior(d, s.grid));
  EXPECT_TRUE(gpu.all_finite());
  gpu.paint({40.0, 40.0, 2.0, std::nan("")});
  EXPECT_FALSE(gpu.all_finite());
}

TEST(GpuHeat2D, AsyncBatchTimingReportsOnceFinished) {
  SKIP_WITHOUT_DEVICE();
  DeviceHeat2D<float> gpu(setup_of(512, 512, 8, Boundary::analytic, InitialCondition::analytic));
  EXPECT_FALSE(gpu.finished_batch_ms().has_value());
  gpu.step_timed_async(Heat2DVariant::shared, 20);
  gpu.synchronize();
  EXPECT_TRUE(gpu.idle());
  const auto ms = gpu.finished_batch_ms();
  ASSERT_TRUE(ms.has_value());
  EXPECT_GT(*ms, 0.0);
  EXPECT_FALSE(gpu.finished_batch_ms().has_value());  // reported once
}

TEST(GpuHeat2D, OrderChangesOnTheLiveField) {
  SKIP_WITHOUT_DEVICE();
  const Heat2DSetup s8 = setup_of(200, 120, 8, Boundary::insulated, InitialCondition::hot_spots);
  HostHeat2D<float> host(s8);
  DeviceHeat2D<float> gpu(s8);
  host.step(3);
  gpu.step(Heat2DVariant::global, 3);
  host.set_order(2);
  gpu.set_order(2);
  host.step(3);
  gpu.step(Heat2DVariant::block, 3);
  EXPECT_EQ(extract_interior(gpu.download(), s8.grid), extract_interior(host.field(), s8.grid));
}

// The default dt moves with the order, and the field's time (steps x dt) with
// it: after set_order the analytic ghosts must be those of the new time.
TEST(GpuHeat2D, OrderChangeUnderTheAnalyticRuleMatchesAFreshStart) {
  SKIP_WITHOUT_DEVICE();
  const Heat2DSetup s8 = setup_of(133, 70, 8, Boundary::analytic, InitialCondition::hot_spots);
  for (const Heat2DVariant v : {Heat2DVariant::global, Heat2DVariant::block, Heat2DVariant::shared, Heat2DVariant::stream}) {
    DeviceHeat2D<float> gpu(s8);
    gpu.step(v, 3);
    gpu.set_order(4);
    ASSERT_NE(gpu.setup().dt, s8.dt);
    HostHeat2D<float> fresh(gpu.setup());
    fresh.load_interior(extract_interior(gpu.download(), s8.grid).data(), gpu.steps_done());
    gpu.step(v, 2);
    fresh.step(2);
    EXPECT_EQ(extract_interior(gpu.download(), s8.grid), extract_interior(fresh.field(), s8.grid)) << to_string(v);
  }
}

TEST(GpuHeat2D, FieldCarriesOverBetweenBackends) {
  SKIP_WITHOUT_DEVICE();
  const Heat2DSetup s = setup_of(301, 77, 8, Boundary::analytic, InitialCondition::hot_spots);
  HostHeat2D<float> host(s);
  DeviceHeat2D<float> gpu(s);
  host.step(4);  // CPU -> GPU
  gpu.load_interior(extract_interior(host.field(), s.grid).data(), host.steps_done());
  EXPECT_EQ(gpu.steps_done(), 4);
  host.step(3);
  gpu.step(Heat2DVariant::stream, 3);
  std::vector<float> interior(s.grid.points());
  gpu.copy_interior_to_host(interior.data());
  EXPECT_EQ(interior, extract_interior(host.field(), s.grid));
  HostHeat2D<float> back(s);  // GPU -> CPU
  back.load_interior(interior.data(), gpu.steps_done());
  back.step(2);
  gpu.step(Heat2DVariant::global, 2);
  EXPECT_EQ(extract_interior(gpu.download(), s.grid), extract_interior(back.field(), s.grid));
}

TEST(GpuDevice, CopyBandwidthIsMeasured) {
  SKIP_WITHOUT_DEVICE();
  const double gbps = measure_copy_gbps(std::size_t(64) << 20, 5);
  EXPECT_GT(gbps, 50.0);
  RecordProperty("copy_gbps", std::to_string(gbps));
}

TEST(GpuDevice, GridsThatDoNotFitAreRefusedClearly) {
  SKIP_WITHOUT_DEVICE();
  Heat2DConfig c;
  c.nx = c.ny = 200000;  // 320 GB for two float buffers
  const Heat2DSetup s = make_heat2d_setup(c);
  try {
    DeviceHeat2D<float> gpu(s);
    FAIL() << "a 200000^2 grid was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ss
