// deriv3d GPU variants against the double reference and bit for bit against the
// `cpu` variant, per axis and order, on sizes that are not multiples of any tile,
// with the output poisoned before each run; the posts' own kernels at the sizes
// they are compiled for, within a bound of our ports. Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"  // ErrorNorms, compare_to_reference

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

// Uniform noise in [-1, 1) on the interior (seeded), its ghosts periodic.
template <typename T>
std::vector<T> noise_input(const Deriv3DSetup& s, unsigned seed) {
  std::vector<T> in = deriv3d_input<T>(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < s.grid.nz; ++k)
    for (int j = 0; j < s.grid.ny; ++j)
      for (int i = 0; i < s.grid.nx; ++i) in[s.grid.index(i, j, k)] = static_cast<T>(u(rng));
  fill_ghosts3d_host(in.data(), s.grid, simple_ghost_rule3d<T>(Boundary::periodic));
  return in;
}

// Every GPU variant that can run this grid, along every axis: bitwise equal to
// `cpu` on the field given (the test function, or noise when `noise`).
template <typename T>
void check_case(const Deriv3DSetup& s, bool noise, double rel_tolerance) {
  const std::vector<T> in = noise ? noise_input<T>(s, 7) : deriv3d_input<T>(s);
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

// stream's launches follow each other as programmatic dependent launches (sim/core/pdl.cuh):
// twenty of one axis back to back, then the three axes one after another on a new input
// uploaded between them, each output bitwise equal to `cpu` on the input of its time.
TEST(Deriv3DGpuStream, BackToBackLaunchesAndANewInputBetweenThem) {
  SKIP_WITHOUT_DEVICE();
  const Deriv3DSetup s = setup_of(67, 45, 38, 8);
  const std::vector<float> first = deriv3d_input<float>(s), second = noise_input<float>(s, 11);
  auto cpu_of = [&](const std::vector<float>& in, Axis a) {
    std::vector<float> out(s.grid.elements(), std::numeric_limits<float>::quiet_NaN());
    deriv3d_cpu(s, a, in.data(), out.data());
    return extract_interior3d(out, s.grid);
  };
  DeviceDeriv3D<float> gpu(s);
  gpu.set_input(first);
  for (Axis a : kAllAxes) {
    gpu.poison_output();
    gpu.timed(Deriv3DVariant::stream, a, 20);
    const std::vector<float> out = gpu.output_interior(), cpu = cpu_of(first, a);
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(float)), 0) << "20 launches along " << to_string(a);
  }
  gpu.set_input(second);
  for (Axis a : kAllAxes) {
    gpu.run(Deriv3DVariant::stream, a);
    const std::vector<float> out = gpu.output_interior(), cpu = cpu_of(second, a);
    EXPECT_EQ(std::memcmp(out.data(), cpu.data(), out.size() * sizeof(float)), 0) << "after the new input, along " << to_string(a);
  }
}

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

// ---- the posts' kernels as published (posts-spencil, posts-lpencil) ----------

// The posts' kernels at a side they are compiled for, order 8, float, along every
// axis: output poisoned first, then within the posts' published error lines
// against the exact derivative (RMS 7.3e-6, MAX 2.9e-5 at 64^3), close to the
// double reference, and next to our port of the same tile.
//
// They are not bitwise equal to our ports: theirs sum the stencil as written,
// c_ax d1 + c_bx d2 + c_cx d3 + c_dx d4, which nvcc 13 contracts (PTX for sm_90)
// into fma(c_dx, d4, fma(c_cx, d3, fma(c_ax, d1, c_bx * d2))); ours go through
// deriv_point, outermost pair first. Both round the same differences
// d_m = f(+m) - f(-m) and use the same float coefficients; the largest term,
// c_ax d1, reaches 16 pi / 5 ~ 10 at both sides, so each rounding of a partial
// sum is at most half an ulp of [8, 16), 4.8e-7. A host emulation of both orders
// found them at most 4.8e-7 apart at 64^3 and 256^3 (1 ulp of |df| <= 2 pi; 9.5e-7
// without contraction). The bound below is 8 ulps of [4, 8), 3.8e-6 (6e-7 of the
// largest |df|), whatever the contraction, and 8 times tighter than the posts'
// MAX error line.
void check_posts(int n) {
  const Deriv3DSetup s = setup_of(n, n, n, 8);
  DeviceDeriv3D<float> gpu(s);
  const double max_apart = 8 * (4 * static_cast<double>(std::numeric_limits<float>::epsilon()));
  for (Axis a : kAllAxes) {
    const std::vector<double> exact = deriv3d_exact_interior(s, a);
    const std::vector<double> ref = deriv3d_reference(s, a);
    for (Deriv3DVariant v : kPostsDeriv3DVariants) {
      const std::string what = std::string(to_string(v)) + " along " + std::string(to_string(a)) + " at " +
                               std::to_string(n) + "^3";
      ASSERT_EQ(gpu.unsupported(v, a), "") << what;
      const Deriv3DVariant port = v == Deriv3DVariant::posts_spencil ? Deriv3DVariant::spencil : Deriv3DVariant::lpencil;
      gpu.poison_output();
      gpu.run(port, a);
      const std::vector<float> ours = gpu.output_interior();

      gpu.poison_output();
      gpu.run(v, a);
      const std::vector<float> out = gpu.output_interior();
      const DerivErrors e = deriv_errors(out, exact);
      ASSERT_TRUE(e.finite) << what << ": a point was not written";
      EXPECT_LE(e.rms, 7.3e-6) << what;
      EXPECT_LE(e.max, 2.9e-5) << what;
      const ErrorNorms r = compare_to_reference(out, ref);
      EXPECT_LT(r.rel_l2, 1e-5) << what;

      double apart = 0;
      for (std::size_t p = 0; p < out.size(); ++p)
        apart = std::max(apart, std::abs(static_cast<double>(out[p]) - static_cast<double>(ours[p])));
      EXPECT_LE(apart, max_apart) << what << " against " << to_string(port);

      // The timed path leaves the same result in the output (the GUI shows it).
      gpu.poison_output();
      gpu.timed(v, a, 2);
      const std::vector<float> timed = gpu.output_interior();
      EXPECT_EQ(std::memcmp(timed.data(), out.data(), out.size() * sizeof(float)), 0) << what << ", timed";
    }
  }
}

TEST(Deriv3DGpuPosts, Cube64WithinThePostsErrorLinesAndNextToOurPorts) {
  SKIP_WITHOUT_DEVICE();
  check_posts(64);
}

TEST(Deriv3DGpuPosts, Cube256WithinThePostsErrorLinesAndNextToOurPorts) {
  SKIP_WITHOUT_DEVICE();
  check_posts(256);
}

TEST(Deriv3DGpuPosts, OtherSetupsSayWhyAndDoNotRun) {
  SKIP_WITHOUT_DEVICE();
  const std::string reason = "the posts' kernels are compiled for 64^3 and 256^3, order 8, float";
  DeviceDeriv3D<float> small(setup_of(32, 32, 32, 8));
  DeviceDeriv3D<float> order6(setup_of(64, 64, 64, 6));
  DeviceDeriv3D<double> in_double(setup_of(64, 64, 64, 8));
  for (Deriv3DVariant v : kPostsDeriv3DVariants) {
    EXPECT_EQ(small.unsupported(v, Axis::x).rfind(reason, 0), 0u) << small.unsupported(v, Axis::x);
    EXPECT_EQ(order6.unsupported(v, Axis::y).rfind(reason, 0), 0u) << order6.unsupported(v, Axis::y);
    EXPECT_EQ(in_double.unsupported(v, Axis::z).rfind(reason, 0), 0u) << in_double.unsupported(v, Axis::z);
    EXPECT_THROW(small.run(v, Axis::x), Error);
    EXPECT_THROW(in_double.timed(v, Axis::z, 1), Error);
  }
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
