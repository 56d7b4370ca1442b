#include "sim/core/stencil.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "sim/core/error.hpp"

namespace ss {

void check_order(int order) {
  if (order != 2 && order != 4 && order != 6 && order != 8)
    throw Error("unknown stencil order " + std::to_string(order) + " (choose 2, 4, 6 or 8)");
}

int radius_of_order(int order) {
  check_order(order);
  return order / 2;
}

namespace {
template <int R>
std::array<double, kMaxRadius + 1> widen(const std::array<double, R + 1>& w) {
  std::array<double, kMaxRadius + 1> out{};
  std::copy(w.begin(), w.end(), out.begin());
  return out;
}
}  // namespace

std::array<double, kMaxRadius + 1> second_derivative_weights_runtime(int order) {
  return dispatch_radius(order, []<int R>() { return widen<R>(second_derivative_weights<R>()); });
}

std::array<double, kMaxRadius + 1> first_derivative_weights_runtime(int order) {
  return dispatch_radius(order, []<int R>() { return widen<R>(first_derivative_weights<R>()); });
}

double second_derivative_spectral_radius(int order) {
  const int r = radius_of_order(order);
  const auto w = second_derivative_weights_runtime(order);
  // The symbol is a trigonometric polynomial of degree r; a fine sweep plus the
  // Nyquist point (where it peaks for these stencils) finds its extreme.
  double rho = 0;
  constexpr int kSamples = 4096;
  for (int s = 0; s <= kSamples; ++s) {
    const double theta = std::numbers::pi * s / kSamples;
    double symbol = w[0];
    for (int k = 1; k <= r; ++k) symbol += 2 * w[k] * std::cos(k * theta);
    rho = std::max(rho, std::abs(symbol));
  }
  return rho;
}

}  // namespace ss
