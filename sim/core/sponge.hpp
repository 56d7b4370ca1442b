#pragma once
// The Cerjan et al. (1985) absorbing sponge shared by the wave models: a node d nodes
// into a layer of width W (d = 0 the outermost) is multiplied by exp(-(a (W - d))^2)
// every step, a = kCerjanA. acoustic3d and elastic3d apply it per axis (the damping of
// a node is the product of its three factors).
#include <cmath>

namespace ss {

/// Cerjan's a = 0.015, his value for a 20-node layer.
inline constexpr double kCerjanA = 0.015;
/// The sponge's default width in nodes (Cerjan et al. 1985 used 20).
inline constexpr int kDefaultSpongeWidth = 20;

/// The damping factor of a node `d` nodes in from the outermost of a layer `width` wide
/// (1 from d >= width on), with Cerjan's exponent `a`.
inline double cerjan_damping(int d, int width, double a = kCerjanA) {
  if (d >= width) return 1.0;
  const double x = a * (width - d);
  return std::exp(-x * x);
}

}  // namespace ss
