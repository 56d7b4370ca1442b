// deriv3d GPU variants against the double reference and bit for bit against the
// `cpu` variant, per axis and order, on sizes that are not multiples of any tile,
// with the output poisoned before each run. Skips without a device.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "stencilscope/deriv3d.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"
#include "stencilscope/heat2d_solver.hpp"  // ErrorNorms, compare_to_reference

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                         \
  do {                                                \
    std::string why_;                                 \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

Deriv3DSetup setup_of(int nx, int ny, int nz, int order) {
  Deriv3DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  c.order = order;
  return make_deriv3d_setup(c);
}

// Every GPU variant that can run this grid, along every axis: bitwise equal to
// `cpu` on the field given (the test function, or noise when `noise`).
template <typename T>
void check_case(const Deriv3DSetup& s, bool noise, double rel_tolerance) {
  std::vector<T> in = deriv3d_input<T>(s);
  if (noise) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int k = 0; k < s.grid.nz; ++k)
      for (int j = 0; j < s.grid.ny; ++j)
        for (int i = 0; i < s.grid.nx; ++i) in[s.grid.index(i, j, k)] = static_cast<T>(u(rng));
    fill_ghosts3d_host(in.data(), s.grid, simple_ghost_rule3d<T>(Boundary::periodic));
  }
  DeviceDeriv3D<T> gpu(s);
  gpu.set_input(in);
  for (Axis a : kAllAxes) {
    std::vector<T> cpu_out(s.grid.elements(), std::numeric_limits<T>::quiet_NaN());
    deriv3d_cpu(s, a, in.data(), cpu_out.data());
    const std::vector<T> cpu = extract_interior3d(cpu_out, s.grid);
    const std::vector<double> ref = noise ? std::vector<double>() : deriv3d_reference(s, a);
    for (Deriv3DVariant v : kGpuDeriv3DVariants) {
      if (!gpu.unsupported(v, a).empty()) continue;
      gpu.poison_output();
      gpu.run(v, a);
      const std::vector<T> out = gpu.output_interior();
      const std::string what = std::string(to_string(v)) + " along " + std::string(to_string(a)) + ", order " +
                               std::to_string(s.config.order) + ", " + std::to_string(s.grid.nx) + "x" +
                               std::to_string(s.grid.ny) + "x" + std::to_string(s.grid.nz);
      EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(T)), 0) << what << " differs from cpu";
      if (!noise) {
        const ErrorNorms e = compare_to_reference(out, ref);
        EXPECT_TRUE(e.finite) << what;
        EXPECT_LT(e.rel_l2, rel_tolerance) << what;
      }
    }
  }
}

class Deriv3DGpu : public ::testing::TestWithParam<int> {};

TEST_P(Deriv3DGpu, OddSizeFloatAndDoubleBitwiseEqualToCpu) {
  SKIP_WITHOUT_DEVICE();
  const Deriv3DSetup s = setup_of(67, 45, 38, GetParam());
  check_case<float>(s, false, 1e-5);
  check_case<double>(s, false, 1e-12);
}

TEST_P(Deriv3DGpu, NoiseFieldCatchesAxisMixUps) {
  SKIP_WITHOUT_DEVICE();
  check_case<float>(setup_of(64, 64, 64, GetParam()), true, 0);
  check_case<double>(setup_of(33, 9, 70, GetParam()), true, 0);
}

INSTANTIATE_TEST_SUITE_P(Orders, Deriv3DGpu, ::testing::Values(2, 4, 6, 8),
                         [](const auto& info) { return "order" + std::to_string(info.param); });

TEST(Deriv3DGpuLarge, Cube256Order8Float) {
  SKIP_WITHOUT_DEVICE();
  check_case<float>(setup_of(256, 256, 256, 8), false, 1e-5);
}

TEST(Deriv3DGpuLarge, PostsErrorLinesAt64CubedOrder8Float) {
  SKIP_WITHOUT_DEVICE();
  const Deriv3DSetup s = setup_of(64, 64, 64, 8);
  DeviceDeriv3D<float> gpu(s);
  for (Axis a : kAllAxes) {
    const std::vector<double> exact = deriv3d_exact_interior(s, a);
    for (Deriv3DVariant v : kGpuDeriv3DVariants) {
      ASSERT_EQ(gpu.unsupported(v, a), "") << to_string(v);  // 64^3: every variant runs
      gpu.poison_output();
      gpu.run(v, a);
      const DerivErrors e = deriv_errors(gpu.output_interior(), exact);
      EXPECT_LE(e.rms, 7.3e-6) << to_string(v) << " " << to_string(a);
      EXPECT_LE(e.max, 2.9e-5) << to_string(v) << " " << to_string(a);
    }
  }
}

TEST(Deriv3DGpuLarge, PencilsSayWhyTheyCannotRun512) {
  SKIP_WITHOUT_DEVICE();
  DeviceDeriv3D<float> gpu(setup_of(512, 16, 16, 8));
  EXPECT_NE(gpu.unsupported(Deriv3DVariant::spencil, Axis::x), "");
  EXPECT_THROW(gpu.run(Deriv3DVariant::spencil, Axis::x), Error);
  EXPECT_EQ(gpu.unsupported(Deriv3DVariant::stream, Axis::x), "");
}

TEST(Deriv3DGpuLarge, DeviceBoundaryStepMatchesTheHost) {
  SKIP_WITHOUT_DEVICE();
  const Deriv3DSetup s = setup_of(37, 11, 9, 4);
  std::vector<float> in = deriv3d_input<float>(s);
  // x ghost faces poisoned: set_input's boundary step must rewrite them.
  std::vector<float> poisoned = in;
  for (int k = 0; k < s.grid.nz; ++k)
    for (int j = 0; j < s.grid.ny; ++j)
      for (int m = 1; m <= kGhost; ++m) {
        poisoned[s.grid.index(-m, j, k)] = std::numeric_limits<float>::quiet_NaN();
        poisoned[s.grid.index(s.grid.nx - 1 + m, j, k)] = std::numeric_limits<float>::quiet_NaN();
      }
  DeviceDeriv3D<float> gpu(s);
  gpu.set_input(poisoned);
  const std::vector<float> back = gpu.download_input();
  EXPECT_EQ(std::memcmp(back.data(), in.data(), in.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace ss
