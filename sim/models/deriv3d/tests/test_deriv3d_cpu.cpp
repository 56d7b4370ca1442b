// deriv3d on the host: the stencil's order measured from errors at two
// resolutions (double), the posts' error lines at 64^3 order 8 (float), and the
// `cpu` variant against the independent reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/core/error.hpp"

namespace ss {
namespace {

Deriv3DSetup setup_of(int nx, int ny, int nz, int order) {
  Deriv3DConfig c;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  c.order = order;
  return make_deriv3d_setup(c);
}

template <typename T>
std::vector<T> cpu_derivative(const Deriv3DSetup& s, Axis a) {
  const std::vector<T> in = deriv3d_input<T>(s);
  std::vector<T> out(s.grid.elements(), std::numeric_limits<T>::quiet_NaN());
  deriv3d_cpu(s, a, in.data(), out.data());
  return extract_interior3d(out, s.grid);
}

// Grid with n points along a and 8 along the others.
Deriv3DSetup along(Axis a, int n, int order) {
  return setup_of(a == Axis::x ? n : 8, a == Axis::y ? n : 8, a == Axis::z ? n : 8, order);
}

class Convergence : public ::testing::TestWithParam<std::tuple<int, Axis>> {};

TEST_P(Convergence, ErrorFallsAtTheStencilOrder) {
  const auto [order, axis] = GetParam();
  // Coarse enough that order 8 stays far above double round-off at the fine grid.
  const int n0 = order == 8 ? 12 : 16;
  double rms[2];
  for (int r = 0; r < 2; ++r) {
    const Deriv3DSetup s = along(axis, n0 << r, order);
    rms[r] = deriv_errors(cpu_derivative<double>(s, axis), deriv3d_exact_interior(s, axis)).rms;
  }
  const double slope = std::log2(rms[0] / rms[1]);
  EXPECT_NEAR(slope, order, 0.3) << "errors " << rms[0] << " -> " << rms[1];
}

INSTANTIATE_TEST_SUITE_P(OrdersAndAxes, Convergence,
                         ::testing::Combine(::testing::Values(2, 4, 6, 8),
                                            ::testing::Values(Axis::x, Axis::y, Axis::z)),
                         [](const auto& info) {
                           return "order" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

TEST(Deriv3DCpu, FloatErrorsAt64CubedOrder8AreNotAboveThePosts) {
  const Deriv3DSetup s = setup_of(64, 64, 64, 8);
  for (Axis a : kAllAxes) {
    const DerivErrors e = deriv_errors(cpu_derivative<float>(s, a), deriv3d_exact_interior(s, a));
    EXPECT_TRUE(e.finite);
    EXPECT_LE(e.rms, 7.3e-6) << to_string(a);
    EXPECT_LE(e.max, 2.9e-5) << to_string(a);
  }
}

TEST(Deriv3DCpu, MatchesTheReferenceOnAnOddGrid) {
  for (int order : {2, 4, 6, 8}) {
    const Deriv3DSetup s = setup_of(21, 13, 10, order);
    for (Axis a : kAllAxes) {
      const std::vector<double> ref = deriv3d_reference(s, a);
      const std::vector<double> out = cpu_derivative<double>(s, a);
      double worst = 0;
      for (std::size_t p = 0; p < ref.size(); ++p) worst = std::max(worst, std::abs(out[p] - ref[p]));
      EXPECT_LT(worst, 1e-11) << "order " << order << " axis " << to_string(a);
    }
  }
}

TEST(Deriv3DCpu, CoefficientsAreTheFornbergWeightsOverH) {
  const DerivCoeffs<double> c = deriv_coeffs<double>(8, 1.0 / 64);
  EXPECT_NEAR(c.c[0], 4.0 / 5.0 * 64, 1e-12);
  EXPECT_NEAR(c.c[1], -1.0 / 5.0 * 64, 1e-12);
  EXPECT_NEAR(c.c[2], 4.0 / 105.0 * 64, 1e-12);
  EXPECT_NEAR(c.c[3], -1.0 / 280.0 * 64, 1e-12);
}

TEST(Deriv3DCpu, PostsVariantsParseAndSayWhereTheyRun) {
  EXPECT_EQ(parse_deriv3d_variant("posts-spencil"), Deriv3DVariant::posts_spencil);
  EXPECT_EQ(parse_deriv3d_variant("posts-lpencil"), Deriv3DVariant::posts_lpencil);
  for (Deriv3DVariant v : kPostsDeriv3DVariants) {
    EXPECT_EQ(parse_deriv3d_variant(to_string(v)), v);
    EXPECT_TRUE(is_gpu(v)) << to_string(v);
    EXPECT_TRUE(is_posts_kernel(v)) << to_string(v);
    EXPECT_FALSE(uses_deriv_point(v)) << to_string(v);  // their own summation order
  }
  for (Deriv3DVariant v : kGpuDeriv3DVariants) EXPECT_TRUE(uses_deriv_point(v)) << to_string(v);
  EXPECT_TRUE(uses_deriv_point(Deriv3DVariant::cpu));
  EXPECT_FALSE(uses_deriv_point(Deriv3DVariant::reference));

  // The sides they are compiled for, order 8, float: they run.
  EXPECT_EQ(posts_kernels_unsupported<float>(setup_of(64, 64, 64, 8)), "");
  EXPECT_EQ(posts_kernels_unsupported<float>(setup_of(256, 256, 256, 8)), "");
  // Anything else: the reason, naming what was asked.
  const std::string reason = "the posts' kernels are compiled for 64^3 and 256^3, order 8, float";
  struct Case {
    std::string why;
    std::string names;
  };
  for (const Case& c : {Case{posts_kernels_unsupported<float>(setup_of(128, 128, 128, 8)), "128x128x128, order 8, float"},
                        Case{posts_kernels_unsupported<float>(setup_of(512, 512, 512, 8)), "512x512x512"},
                        Case{posts_kernels_unsupported<float>(setup_of(64, 64, 32, 8)), "64x64x32"},
                        Case{posts_kernels_unsupported<float>(setup_of(64, 64, 64, 6)), "order 6, float"},
                        Case{posts_kernels_unsupported<double>(setup_of(64, 64, 64, 8)), "order 8, double"}}) {
    EXPECT_EQ(c.why.rfind(reason, 0), 0u) << c.why;
    EXPECT_NE(c.why.find(c.names), std::string::npos) << c.why;
  }
}

TEST(Deriv3DCpu, BadInputIsAnError) {
  EXPECT_THROW(setup_of(64, 64, 64, 5), Error);
  EXPECT_THROW(setup_of(4, 64, 64, 8), Error);
  EXPECT_THROW(parse_axis("w"), Error);
  EXPECT_THROW(parse_deriv3d_variant("fastest"), Error);
  EXPECT_EQ(parse_deriv3d_variant("lpencil"), Deriv3DVariant::lpencil);
}

}  // namespace
}  // namespace ss
