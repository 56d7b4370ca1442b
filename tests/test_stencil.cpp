// Coefficients: derived weights against the published tables, their identities,
// the measured truncation order of the Laplacian, and the stability limit.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d.hpp"
#include "sim/core/stencil.hpp"

namespace ss {
namespace {

// Known central second-derivative tables (Fornberg 1988, table 1), half tables w0..wR.
TEST(SecondDerivativeWeights, MatchKnownTables) {
  const double o2[] = {-2.0, 1.0};
  const double o4[] = {-5.0 / 2, 4.0 / 3, -1.0 / 12};
  const double o6[] = {-49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90};
  const double o8[] = {-14350.0 / 5040, 8064.0 / 5040, -1008.0 / 5040, 128.0 / 5040, -9.0 / 5040};
  const double* tables[] = {o2, o4, o6, o8};
  for (int order = 2; order <= 8; order += 2) {
    const auto w = second_derivative_weights_runtime(order);
    for (int k = 0; k <= order / 2; ++k)
      EXPECT_NEAR(w[k], tables[order / 2 - 1][k], 1e-14) << "order " << order << " k " << k;
  }
}

TEST(FirstDerivativeWeights, MatchKnownTables) {
  const double o2[] = {0, 1.0 / 2};
  const double o4[] = {0, 2.0 / 3, -1.0 / 12};
  const double o6[] = {0, 3.0 / 4, -3.0 / 20, 1.0 / 60};
  const double o8[] = {0, 4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280};  // the NVIDIA posts' ax..dx
  const double* tables[] = {o2, o4, o6, o8};
  for (int order = 2; order <= 8; order += 2) {
    const auto w = first_derivative_weights_runtime(order);
    for (int k = 0; k <= order / 2; ++k)
      EXPECT_NEAR(w[k], tables[order / 2 - 1][k], 1e-14) << "order " << order << " k " << k;
  }
}

// Sum over the full stencil of w(k) k^m: the second derivative of x^m at 0 is 2 for
// m = 2 and 0 for every other m up to 2R + 1 (odd m vanish by symmetry).
TEST(SecondDerivativeWeights, ExactOnPolynomialsUpToDegree2R) {
  for (int order = 2; order <= 8; order += 2) {
    const int r = order / 2;
    const auto w = second_derivative_weights_runtime(order);
    for (int m = 0; m <= 2 * r + 1; ++m) {
      double sum = 0;
      for (int k = -r; k <= r; ++k) sum += w[std::abs(k)] * std::pow(double(k), m);
      EXPECT_NEAR(sum, m == 2 ? 2.0 : 0.0, 1e-11) << "order " << order << " degree " << m;
    }
    // and not exact one degree further: that is what makes it order 2R, not more
    double sum = 0;
    for (int k = -r; k <= r; ++k) sum += w[std::abs(k)] * std::pow(double(k), 2 * r + 2);
    EXPECT_GT(std::abs(sum), 1e-6) << "order " << order;
  }
}

TEST(FirstDerivativeWeights, ExactOnPolynomialsUpToDegree2R) {
  for (int order = 2; order <= 8; order += 2) {
    const int r = order / 2;
    const auto w = first_derivative_weights_runtime(order);
    for (int m = 0; m <= 2 * r; ++m) {
      double sum = 0;
      for (int k = 1; k <= r; ++k) sum += w[k] * (std::pow(double(k), m) - std::pow(double(-k), m));
      EXPECT_NEAR(sum, m == 1 ? 1.0 : 0.0, 1e-11) << "order " << order << " degree " << m;
    }
  }
}

TEST(Stencil, RejectsUnknownOrders) {
  for (int bad : {0, 1, 3, 10, -2}) {
    EXPECT_THROW(check_order(bad), Error) << bad;
    try {
      check_order(bad);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos);
    }
  }
}

// The Laplacian through the shared point function, as every kernel computes it:
// with cx = cy = 1/h^2, heat2d_point returns T + h^2-scaled sums = T + lap(T).
template <int R>
double laplacian_error(double h) {
  // f = sin(1.3 x + 0.2) cos(0.7 y - 0.4), lap f = -(1.69 + 0.49) f, at a few points
  auto f = [](double x, double y) { return std::sin(1.3 * x + 0.2) * std::cos(0.7 * y - 0.4); };
  double err = 0;
  for (double x0 : {0.3, 1.1, 2.0})
    for (double y0 : {0.5, 1.7}) {
      double row[2 * R + 1], col[2 * R + 1];
      for (int k = 0; k <= 2 * R; ++k) {
        row[k] = f(x0 + (k - R) * h, y0);
        col[k] = f(x0, y0 + (k - R) * h);
      }
      const double c = 1.0 / (h * h);
      const double lap = heat2d_point<double, R>(row, col, c, c) - row[R];
      err = std::max(err, std::abs(lap - (-(1.69 + 0.49) * f(x0, y0))));
    }
  return err;
}

TEST(Laplacian, TruncationErrorFallsAtTheStencilOrder) {
  // h chosen per order so that truncation dominates round-off at both resolutions.
  const double h2 = 0.1, h4 = 0.2, h6 = 0.3, h8 = 0.4;
  const double p2 = std::log2(laplacian_error<1>(h2) / laplacian_error<1>(h2 / 2));
  const double p4 = std::log2(laplacian_error<2>(h4) / laplacian_error<2>(h4 / 2));
  const double p6 = std::log2(laplacian_error<3>(h6) / laplacian_error<3>(h6 / 2));
  const double p8 = std::log2(laplacian_error<4>(h8) / laplacian_error<4>(h8 / 2));
  EXPECT_NEAR(p2, 2.0, 0.3);
  EXPECT_NEAR(p4, 4.0, 0.3);
  EXPECT_NEAR(p6, 6.0, 0.3);
  EXPECT_NEAR(p8, 8.0, 0.3);
}

TEST(Stability, SpectralRadiusIsTheNyquistSymbol) {
  EXPECT_NEAR(second_derivative_spectral_radius(2), 4.0, 1e-12);
  EXPECT_NEAR(second_derivative_spectral_radius(4), 16.0 / 3, 1e-12);
  EXPECT_NEAR(second_derivative_spectral_radius(6), 272.0 / 45, 1e-12);
  EXPECT_NEAR(second_derivative_spectral_radius(8), 32768.0 / 5040, 1e-12);
}

TEST(Stability, LimitOfOrder2IsTheTextbookOne) {
  // dt <= h^2 / (4 alpha) in 2D with equal spacing
  EXPECT_NEAR(heat2d_dt_limit(2, 0.5, 0.01, 0.01), 0.01 * 0.01 / (4 * 0.5), 1e-15);
}

}  // namespace
}  // namespace ss
