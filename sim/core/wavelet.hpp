#pragma once
// Source wavelets shared by the wave models (acoustic3d, elastic3d).
#include <cmath>
#include <numbers>

namespace ss {

/// The Ricker wavelet of peak frequency f0 (Hz), delayed by 1.5 / f0 so that it starts
/// at rest: ricker(0) is about 1e-8 of its peak value 1 at t = 1.5 / f0.
inline double ricker_wavelet(double t, double f0) {
  const double a = std::numbers::pi * f0 * (t - 1.5 / f0);
  return (1 - 2 * a * a) * std::exp(-a * a);
}

/// Its time derivative (for analytic solutions of explosion sources).
inline double ricker_wavelet_rate(double t, double f0) {
  const double pf = std::numbers::pi * f0, a = pf * (t - 1.5 / f0);
  return pf * (-6 * a + 4 * a * a * a) * std::exp(-a * a);
}

}  // namespace ss
