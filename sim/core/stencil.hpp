#pragma once
// Central finite-difference weights, derived in code with Fornberg's algorithm
// (B. Fornberg, "Generation of finite difference formulas on arbitrarily spaced
// grids", Math. Comp. 51, 1988) in double, at compile time. Order 2..8 maps to
// radius 1..4; one table per radius, shared by every model and kernel.
#include <array>
#include <string>

namespace ss {

inline constexpr int kMaxRadius = 4;  ///< order 8
inline constexpr int kMaxOrder = 2 * kMaxRadius;

/// Fornberg weights for derivatives 0..M at x0 from the N points x; result[k][j]
/// weights f(x[j]) in the k-th derivative. Exact for polynomials of degree < N.
template <int N, int M>
constexpr std::array<std::array<double, N>, M + 1> fornberg_weights(double x0, const std::array<double, N>& x) {
  std::array<std::array<double, N>, M + 1> c{};
  double c1 = 1.0;
  double c4 = x[0] - x0;
  c[0][0] = 1.0;
  for (int i = 1; i < N; ++i) {
    const int mn = i < M ? i : M;
    double c2 = 1.0;
    const double c5 = c4;
    c4 = x[i] - x0;
    for (int j = 0; j < i; ++j) {
      const double c3 = x[i] - x[j];
      c2 *= c3;
      if (j == i - 1) {
        for (int k = mn; k >= 1; --k) c[k][i] = c1 * (k * c[k - 1][i - 1] - c5 * c[k][i - 1]) / c2;
        c[0][i] = -c1 * c5 * c[0][i - 1] / c2;
      }
      for (int k = mn; k >= 1; --k) c[k][j] = (c4 * c[k][j] - k * c[k - 1][j]) / c3;
      c[0][j] = c4 * c[0][j] / c3;
    }
    c1 = c2;
  }
  return c;
}

/// The 2R+1 integer offsets -R..R.
template <int R>
constexpr std::array<double, 2 * R + 1> central_offsets() {
  std::array<double, 2 * R + 1> x{};
  for (int j = 0; j < 2 * R + 1; ++j) x[j] = j - R;
  return x;
}

/// Half table of the central second derivative at unit spacing: w[0] weights the
/// centre, w[k] (k = 1..R) each of the two points at distance k. Sum w0 + 2*sum wk = 0.
template <int R>
constexpr std::array<double, R + 1> second_derivative_weights() {
  static_assert(R >= 1 && R <= kMaxRadius, "radius 1..4 (order 2..8)");
  const auto c = fornberg_weights<2 * R + 1, 2>(0.0, central_offsets<R>());
  std::array<double, R + 1> w{};
  for (int k = 0; k <= R; ++k) w[k] = c[2][R + k];
  return w;
}

/// Half table of the central first derivative at unit spacing: w[k] (k = 1..R)
/// weights f(x+k) - f(x-k); w[0] is 0.
template <int R>
constexpr std::array<double, R + 1> first_derivative_weights() {
  static_assert(R >= 1 && R <= kMaxRadius, "radius 1..4 (order 2..8)");
  const auto c = fornberg_weights<2 * R + 1, 1>(0.0, central_offsets<R>());
  std::array<double, R + 1> w{};
  for (int k = 0; k <= R; ++k) w[k] = c[1][R + k];
  return w;
}

/// Throws ss::Error unless order is 2, 4, 6 or 8.
void check_order(int order);

/// Radius (half width) of the central stencil of this order: order / 2.
int radius_of_order(int order);

/// Runtime copy of the second-derivative half table (size radius+1).
std::array<double, kMaxRadius + 1> second_derivative_weights_runtime(int order);

/// Runtime copy of the first-derivative half table (size radius+1, [0] = 0).
std::array<double, kMaxRadius + 1> first_derivative_weights_runtime(int order);

/// Largest |eigenvalue| of the periodic 1D second-derivative operator at unit
/// spacing: max over theta of |w0 + 2 sum_k wk cos(k theta)|. Order 2 gives 4.
double second_derivative_spectral_radius(int order);

/// Calls f.template operator()<R>() with R = order/2 as a compile-time constant:
/// the one place where a runtime order reaches a template instantiation.
template <typename F>
decltype(auto) dispatch_radius(int order, F&& f) {
  switch (order) {
    case 2: return f.template operator()<1>();
    case 4: return f.template operator()<2>();
    case 6: return f.template operator()<3>();
    case 8: return f.template operator()<4>();
    default: check_order(order); return f.template operator()<4>();  // check_order throws first
  }
}

}  // namespace ss
