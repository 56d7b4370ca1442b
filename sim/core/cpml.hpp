#pragma once
// The convolutional PML (CPML) shared by the wave models: the complex frequency-shifted
// stretching s = kappa + d / (alpha + i omega) of Kuzuoglu & Mittra (1996) with kappa = 1,
// applied to first derivatives by recursive convolution (Roden & Gedney 2000; Komatitsch
// & Martin 2007):
//   d~_a f = d_a f + psi,   psi^n = b psi^{n-1} + c (d_a f)^n,
//   b = exp(-(d + alpha) dt),   c = d / (d + alpha) (b - 1),
// with memory variables only inside the layers (slabs) along the absorbing faces.
// Profiles per Komatitsch & Martin (2007): a node `d` nodes in from the outermost of a
// layer W nodes wide sits at xi = (W - d) / W into it (1 the outermost, 0 the inner edge);
//   d(xi) = d0 xi^N,   d0 = -(N + 1) vmax ln(R) / (2 L),   L = W h,   N = kCpmlPower,
//   alpha(xi) = alpha_max (1 - xi),   alpha_max = pi f0 (the source's dominant frequency).
// acoustic3d and elastic3d use it (docs/acoustic3d.md, docs/elastic3d.md derive how).
#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"

namespace ss {

/// The CPML's default width in nodes (10-20 is the usual range; see the docs' measured
/// reflection per width).
inline constexpr int kDefaultCpmlWidth = 16;
/// The theoretical reflection coefficient at normal incidence that sets d0.
inline constexpr double kDefaultCpmlReflection = 1e-4;
/// The polynomial grading of d.
inline constexpr int kCpmlPower = 2;

/// The recursive-convolution coefficients of one node (b, c above).
struct CpmlCoefficients {
  double b = 1, c = 0;
};

/// Coefficients of a node `d` nodes in from the outermost of a layer `width` nodes wide
/// (d >= width: outside the layer, b = 1 and c = 0), for the fastest velocity `vmax`,
/// spacing h, step dt, source frequency f0 and reflection coefficient r.
inline CpmlCoefficients cpml_coefficients(int d, int width, double vmax, double h, double dt, double f0, double r) {
  if (d >= width || width <= 0) return {};
  const double xi = static_cast<double>(width - d) / width;
  const double d0 = -(kCpmlPower + 1) * vmax * std::log(r) / (2.0 * width * h);
  const double damping = d0 * std::pow(xi, kCpmlPower);
  const double alpha = std::numbers::pi * f0 * (1.0 - xi);
  CpmlCoefficients k;
  k.b = std::exp(-(damping + alpha) * dt);
  k.c = damping > 0 ? damping / (damping + alpha) * (k.b - 1.0) : 0.0;
  return k;
}

/// Where the layers are: lo[a] nodes at the low face of axis a and hi[a] at its high face
/// (0: no layer there, e.g. under a free top). A node belongs to the slab of axis a when
/// its index along a is in one of them; slab a's memory variables are stored compactly,
/// lo[a] + hi[a] "slots" along a times the other two axes' whole extent.
struct CpmlLayout {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};

  SS_HD bool any() const { return lo[0] + hi[0] + lo[1] + hi[1] + lo[2] + hi[2] > 0; }
  SS_HD int slots(int a) const { return lo[a] + hi[a]; }
  /// The slot of index i (of n along axis a), or -1 outside the slab.
  SS_HD int slot(int a, int i, int n) const {
    if (i < 0 || i >= n) return -1;
    if (i < lo[a]) return i;
    if (i >= n - hi[a]) return lo[a] + i - (n - hi[a]);
    return -1;
  }
  /// Values of one memory variable of slab a.
  SS_HD std::size_t slab_cells(int a, const Grid3D& g) const {
    const std::size_t s = static_cast<std::size_t>(slots(a));
    return a == 0 ? s * g.ny * g.nz : a == 1 ? s * g.nx * g.nz : s * g.nx * g.ny;
  }
  /// Offset within one memory variable of slab a of slot s at the node (i, j, k).
  SS_HD std::size_t slab_index(int a, int s, int i, int j, int k, const Grid3D& g) const {
    const std::size_t S = static_cast<std::size_t>(slots(a));
    if (a == 0) return (static_cast<std::size_t>(k) * g.ny + j) * S + s;
    if (a == 1) return (static_cast<std::size_t>(k) * S + s) * g.nx + i;
    return (static_cast<std::size_t>(s) * g.ny + j) * g.nx + i;
  }
  /// Start of slab a's block in one buffer holding `vars` memory variables per slab
  /// (slab 0's, then slab 1's, then slab 2's; variable v of slab a at base + v slab_cells).
  SS_HD std::size_t slab_base(int a, int vars, const Grid3D& g) const {
    std::size_t b = 0;
    for (int x = 0; x < a; ++x) b += static_cast<std::size_t>(vars) * slab_cells(x, g);
    return b;
  }
  SS_HD std::size_t memory_values(int vars, const Grid3D& g) const { return slab_base(3, vars, g); }
  /// Start of axis a's coefficients in the table of cpml_tables: b for its slots, then c.
  SS_HD int table_base(int a) const {
    int b = 0;
    for (int x = 0; x < a; ++x) b += 2 * slots(x);
    return b;
  }
  /// The index along axis a (of n nodes) of slot s.
  SS_HD int index_of_slot(int a, int s, int n) const { return s < lo[a] ? s : n - hi[a] + (s - lo[a]); }
  /// Nodes in the union of the slabs: those of slab x, then those of slab y not in slab x,
  /// then those of slab z in neither.
  SS_HD long long nodes(const Grid3D& g) const {
    const long long ix = g.nx - slots(0), iy = g.ny - slots(1);
    return static_cast<long long>(slots(0)) * g.ny * g.nz + ix * slots(1) * g.nz + ix * iy * slots(2);
  }
  /// Node e of that enumeration.
  SS_HD void node(const Grid3D& g, long long e, int& i, int& j, int& k) const {
    const long long xs = static_cast<long long>(slots(0)) * g.ny * g.nz;
    if (e < xs) {
      const int s = static_cast<int>(e % slots(0));
      const long long r = e / slots(0);
      i = index_of_slot(0, s, g.nx), j = static_cast<int>(r % g.ny), k = static_cast<int>(r / g.ny);
      return;
    }
    e -= xs;
    const int ix = g.nx - slots(0);
    const long long ys = static_cast<long long>(ix) * slots(1) * g.nz;
    if (e < ys) {
      const long long r = e / ix;
      i = lo[0] + static_cast<int>(e % ix);
      j = index_of_slot(1, static_cast<int>(r % slots(1)), g.ny), k = static_cast<int>(r / slots(1));
      return;
    }
    e -= ys;
    const int iy = g.ny - slots(1);
    const long long r = e / ix;
    i = lo[0] + static_cast<int>(e % ix);
    j = lo[1] + static_cast<int>(r % iy);
    k = index_of_slot(2, static_cast<int>(r / iy), g.nz);
  }
};

/// The layers of a CPML `width` nodes wide (0: kDefaultCpmlWidth, or a third of the
/// smallest side when that is less) on every face of an nx x ny x nz grid, none along the
/// top (k = 0) under a free surface; throws ss::Error when the width is negative or wider
/// than a third of the smallest side, or the reflection lies outside (0, 1).
CpmlLayout make_cpml_layout(int width, double reflection, int nx, int ny, int nz, bool free_top);

/// The coefficient table of a layout, in double: per axis a (in order), b of its slots,
/// then c of its slots (CpmlLayout::table_base). n: nodes per axis.
inline std::vector<double> cpml_table(const CpmlLayout& l, const int (&n)[3], double vmax, double h, double dt,
                                      double f0, double r) {
  std::vector<double> t;
  for (int a = 0; a < 3; ++a) {
    std::vector<double> b, c;
    for (int s = 0; s < l.slots(a); ++s) {
      const int i = l.index_of_slot(a, s, n[a]);
      const bool low = s < l.lo[a];
      const CpmlCoefficients k = cpml_coefficients(low ? i : n[a] - 1 - i, low ? l.lo[a] : l.hi[a], vmax, h, dt, f0, r);
      b.push_back(k.b);
      c.push_back(k.c);
    }
    t.insert(t.end(), b.begin(), b.end());
    t.insert(t.end(), c.begin(), c.end());
  }
  return t;
}

/// sum_k w_k (f[R + k] - f[R - k]) over a line of 2R + 1 values (explicit FMAs, fixed
/// order): the unit-spacing first derivative the CPML corrections use.
template <typename T, int R, typename W>
SS_HD SS_FORCEINLINE T cpml_first_derivative(const T* f, const W& w) {
  T d = static_cast<T>(w[1]) * (f[R + 1] - f[R - 1]);
SS_UNROLL
  for (int k = 2; k <= R; ++k) d = fma_t(static_cast<T>(w[k]), f[R + k] - f[R - k], d);
  return d;
}

}  // namespace ss
