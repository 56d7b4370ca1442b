#pragma once
// Hydro 3D: isothermal compressible viscous flow in ln rho and u (Pekkilä et al. 2017,
// "Astaroth", eqs 1-3), on a periodic box of nx-by-ny-by-nz cubic cells of side
// h = box / nx (cell i at x = -box/2 + i h, so the box is centred on the origin):
//
//   d ln rho / dt = -u . grad ln rho - div u
//   d u / dt      = -(u . grad) u - cs^2 grad ln rho + f
//                   + nu (lap u + 1/3 grad div u + 2 S . grad ln rho),
//   S_ij = 1/2 (d_j u_i + d_i u_j) - 1/3 delta_ij div u   (traceless rate of strain).
//
// Space: sixth-order central first, second and mixed derivatives (eqs 6-8; mixed by
// the bidiagonal scheme of eq 8), ghost zones of width 3 (the layout of Grid3D pads
// to kGhost = 4; the boundary step writes 3). Time: 2N-storage RK3 (eq 10,
// Algorithm 1) with Williamson's coefficients.
//
// Two discretisations of grad div u ("methods"):
//   single pass (55pt, global, stream25d, cpu): d_i d_j u_j by eq 8 in one 55-point stencil;
//   two passes (19pt, cpu19pt): div u first (eq 14), then its gradient by eq 6 (eqs 15-18).
// The point functions below are the only arithmetic either method does: every variant
// of one method gathers the same values and calls them, so variants of one method
// agree bit for bit (fixed summation order, explicit FMAs, no contraction).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"

namespace ss {

/// Stencil radius of the sixth-order scheme: the ghost width written.
inline constexpr int kHydroRadius = 3;
/// Fields stepped: ln rho, u_x, u_y, u_z.
inline constexpr int kHydroFields = 4;
/// Smallest side: the stencil (2R + 1), and Grid3D's own minimum.
inline constexpr int kHydroMinSide = 8;

/// Williamson's 2N-storage RK3 (Algorithm 1): w = alpha_s w + dt rhs; f = f + beta_s w.
inline constexpr double kRk3Alpha[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0};
inline constexpr double kRk3Beta[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};

/// Courant constants of the time step: dt <= kCourantAdvection h / (|u|max + cs) and
/// dt <= kCourantViscous h^2 / nu. The sixth-order first derivative's largest modified
/// wavenumber is 1.586 / h and RK3 is stable up to |lambda dt| = sqrt(3) on the
/// imaginary axis: 1.732 / (sqrt(3) 1.586) = 0.63 for a wave along a diagonal; the
/// second derivative's largest eigenvalue is 6.04 / h^2 per axis and RK3's real-axis
/// limit 2.51: with the 4/3 of the longitudinal viscous term, 2.51 / (3 6.04 4/3) = 0.104.
/// Both are taken with margin, as the Pencil Code does (its cdt = 0.4).
inline constexpr double kCourantAdvection = 0.4;
inline constexpr double kCourantViscous = 0.08;

/// Largest mesh Reynolds number |u| h / nu a sixth-order grid holds without wiggles (the
/// Pencil Code's rule of thumb); above it the status line warns.
inline constexpr double kMaxMeshReynolds = 5.0;

/// What the initial field is, and whether the turbulence forcing runs.
enum class HydroInit { decay, explosion, turbulence };
std::string_view to_string(HydroInit i);
HydroInit parse_hydro_init(std::string_view s);

/// The discretisation of grad div u (see the top of this file).
enum class HydroMethod { single_pass, two_pass };

struct Hydro3DConfig {
  int nx = 64, ny = 64, nz = 64;
  double box = 6.283185307179586;  ///< box width along x (2 pi: k = 1 is the box)
  double cs = 1.0;                  ///< sound speed
  double nu = 5e-3;                 ///< kinematic viscosity
  double dt = 0.0;                  ///< > 0: fixed; 0: safety x the Courant limit (see dt_every)
  double safety = 0.8;              ///< of the auto dt
  /// Auto dt only: recompute it from |u|max every this many steps (1: before every step);
  /// 0: keep the value of t = 0 (the physics tests and the benches step that fixed dt).
  int dt_every = 0;
  HydroInit init = HydroInit::explosion;
  // decay (eq 22): u = u0 sin(k x) e_y, rho = 1
  double u0 = 0.1;
  int k = 13;
  // explosion (eq 23): u = u_ampl exp(-(r - r_shell)^2 / (2 d_shell^2)) e_r, rho = 1
  double u_ampl = 1.0, r_shell = 0.8, d_shell = 0.2;
  // turbulence (eqs 24-25): forcing wave vectors with |k| in [kf - 0.5, kf + 0.5)
  double kf = 1.5;
  double f0 = 0.02;
  std::uint32_t seed = 1;
};

struct Hydro3DSetup {
  Hydro3DConfig config;
  Grid3D grid;
  double h = 0;
  double dt = 0, dt_limit = 0;  ///< at t = 0 (an adaptive run's first dt and its limit)
  double umax0 = 0;  ///< |u|max of the initial field (what dt_limit was taken with)
  /// The forcing's wave vectors (integer components, |k| in the shell), turbulence only.
  std::vector<std::array<int, 3>> forcing_k;

  /// True when dt follows the flow (dt = 0 and dt_every > 0).
  bool adaptive() const { return config.dt == 0 && config.dt_every > 0; }
  /// Whether an adaptive run recomputes dt before step `step`.
  bool recomputes_dt_at(long step) const { return adaptive() && step % config.dt_every == 0; }

  double x(int i) const { return -0.5 * config.box + i * h; }
  double y(int j) const { return -0.5 * grid.ny * h + j * h; }
  double z(int k) const { return -0.5 * grid.nz * h + k * h; }
};

/// The Courant limit for |u|max = umax (the smaller of the advection + sound and the
/// viscous limit). The same double arithmetic on the host and the device.
SS_HD inline double hydro3d_dt_limit(double h, double cs, double nu, double umax) {
  const double adv = kCourantAdvection * h / (umax + cs);
  if (!(nu > 0)) return adv;
  const double visc = kCourantViscous * h * h / nu;
  return visc < adv ? visc : adv;
}

/// What an adaptive dt is computed from, on either backend: dt = safety x the Courant
/// limit of |u|max, where |u|max^2 is the largest float |u|^2 = u_x^2 + u_y^2 + u_z^2 over
/// the interior (hydro_max_speed on the host, hydro_max_speed2 on the device: a max,
/// exact in any order, so both backends take the same dt from the same state).
struct HydroDtRule {
  double h = 0, cs = 1, nu = 0, safety = 0.8;
  SS_HD double dt_for(float u2max) const {
    return safety * hydro3d_dt_limit(h, cs, nu, sqrt(static_cast<double>(u2max)));
  }
};
inline HydroDtRule hydro_dt_rule(const Hydro3DSetup& s) { return {s.h, s.config.cs, s.config.nu, s.config.safety}; }

/// The simulated time of a run whose dt may change: time_base at step `anchor`, then dt a
/// step. With a fixed dt (anchor 0, time_base 0) time(n) is n dt exactly, as before.
struct HydroClock {
  double dt = 0, time_base = 0;
  long anchor = 0;
  SS_HD double time(long steps) const { return time_base + dt * static_cast<double>(steps - anchor); }
  /// dt from step `steps` on.
  SS_HD void set_dt(double new_dt, long steps) {
    time_base = time(steps);
    anchor = steps;
    dt = new_dt;
  }
};

/// Validates sizes, cs > 0, nu >= 0, dt against the limit; throws ss::Error naming the value.
Hydro3DSetup make_hydro3d_setup(const Hydro3DConfig& config);

/// The initial state: the four fields on the padded grid, ghosts filled.
template <typename T>
std::array<std::vector<T>, kHydroFields> hydro3d_initial_fields(const Hydro3DSetup& s);

/// Writes the periodic ghost zone (width 3, faces, edges and corners) of one field:
/// ghost cell (i, j, k) takes interior cell (i mod nx, j mod ny, k mod nz). Cells of the
/// extended box [-3, n + 3)^3 outside the interior, numbered e = 0 .. count - 1 in the
/// order x fastest then y then z; one call per cell, any order.
SS_HD inline long long hydro_ghost_cells(const Grid3D& g) {
  constexpr int R = kHydroRadius;
  return static_cast<long long>(g.nx + 2 * R) * (g.ny + 2 * R) * (g.nz + 2 * R) -
         static_cast<long long>(g.nx) * g.ny * g.nz;
}
/// The e-th ghost cell's (destination, source) offsets.
SS_HD inline void hydro_ghost_cell(const Grid3D& g, long long e, std::size_t& dst, std::size_t& src) {
  constexpr int R = kHydroRadius;
  const long long ex = g.nx + 2 * R, ey = g.ny + 2 * R;
  const long long face_z = ex * ey * R;  // the R planes below the interior, then above
  int i, j, k;
  if (e < face_z) {
    k = static_cast<int>(e / (ex * ey)) - R;
    const long long r = e % (ex * ey);
    j = static_cast<int>(r / ex) - R;
    i = static_cast<int>(r % ex) - R;
  } else if (e < 2 * face_z) {
    e -= face_z;
    k = g.nz + static_cast<int>(e / (ex * ey));
    const long long r = e % (ex * ey);
    j = static_cast<int>(r / ex) - R;
    i = static_cast<int>(r % ex) - R;
  } else {  // the interior planes: rows outside [0, ny) whole, rows inside only their x ghosts
    e -= 2 * face_z;
    const long long per_plane = ex * ey - static_cast<long long>(g.nx) * g.ny;
    k = static_cast<int>(e / per_plane);
    long long r = e % per_plane;
    const long long below = ex * R;  // the R rows below
    if (r < below) {
      j = static_cast<int>(r / ex) - R;
      i = static_cast<int>(r % ex) - R;
    } else if (r < below + static_cast<long long>(g.ny) * 2 * R) {
      r -= below;
      j = static_cast<int>(r / (2 * R));
      const int m = static_cast<int>(r % (2 * R));
      i = m < R ? m - R : g.nx + m - R;
    } else {
      r -= below + static_cast<long long>(g.ny) * 2 * R;
      j = g.ny + static_cast<int>(r / ex);
      i = static_cast<int>(r % ex) - R;
    }
  }
  const int si = i < 0 ? i + g.nx : (i >= g.nx ? i - g.nx : i);
  const int sj = j < 0 ? j + g.ny : (j >= g.ny ? j - g.ny : j);
  const int sk = k < 0 ? k + g.nz : (k >= g.nz ? k - g.nz : k);
  dst = g.index(i, j, k);
  src = g.index(si, sj, sk);
}

// ---- the point functions --------------------------------------------------------

/// The stencil weights, divided by h, h^2 and h^2, rounded to T once.
template <typename T>
struct HydroWeights {
  T d1[3];     ///< first derivative: d1[m-1] (f(+m) - f(-m)), m = 1..3
  T d2[4];     ///< second: d2[0] f(0) + d2[m] (f(+m) + f(-m))
  T cross[3];  ///< mixed (eq 8): cross[m-1] (f(+m,+m) - f(-m,+m) + f(-m,-m) - f(+m,-m))
};

template <typename T>
HydroWeights<T> hydro_weights(double h) {
  HydroWeights<T> w;
  const double a = 1.0 / (60.0 * h), b = 1.0 / (180.0 * h * h), c = 1.0 / (720.0 * h * h);
  w.d1[0] = static_cast<T>(45 * a);
  w.d1[1] = static_cast<T>(-9 * a);
  w.d1[2] = static_cast<T>(1 * a);
  w.d2[0] = static_cast<T>(-490 * b);
  w.d2[1] = static_cast<T>(270 * b);
  w.d2[2] = static_cast<T>(-27 * b);
  w.d2[3] = static_cast<T>(2 * b);
  w.cross[0] = static_cast<T>(270 * c);
  w.cross[1] = static_cast<T>(-27 * c);
  w.cross[2] = static_cast<T>(2 * c);
  return w;
}

/// First derivative from f(-3) .. f(+3) (index m + 3; the centre is not read).
template <typename T>
SS_HD SS_FORCEINLINE T hydro_d1(const HydroWeights<T>& w, T m3, T m2, T m1, T p1, T p2, T p3) {
  return fma_t(w.d1[0], p1 - m1, fma_t(w.d1[1], p2 - m2, w.d1[2] * (p3 - m3)));
}
/// Second derivative from f(-3) .. f(+3).
template <typename T>
SS_HD SS_FORCEINLINE T hydro_d2(const HydroWeights<T>& w, T m3, T m2, T m1, T c, T p1, T p2, T p3) {
  return fma_t(w.d2[1], p1 + m1, fma_t(w.d2[2], p2 + m2, fma_t(w.d2[3], p3 + m3, w.d2[0] * c)));
}
/// Mixed derivative (eq 8) from the diagonal sums a_m = f(+m,+m) - f(-m,+m) + f(-m,-m) - f(+m,-m).
template <typename T>
SS_HD SS_FORCEINLINE T hydro_cross(const HydroWeights<T>& w, T a1, T a2, T a3) {
  return fma_t(w.cross[0], a1, fma_t(w.cross[1], a2, w.cross[2] * a3));
}
/// a_m of eq 8 from its four corners, in one fixed order.
template <typename T>
SS_HD SS_FORCEINLINE T hydro_diag(T pp, T mp, T mm, T pm) {
  return (pp - mp) + (mm - pm);
}

/// What the right-hand side needs at one point, gathered by a variant.
template <typename T>
struct HydroPoint {
  T u[3];        ///< velocity
  T glnrho[3];   ///< grad ln rho
  T du[3][3];    ///< du[i][j] = d_j u_i
  T lapu[3];     ///< lap u_i (the three second derivatives summed x, y, z)
  T graddiv[3];  ///< d_i div u (single pass: d_i d_i u_i + mixed; two pass: unused)
};

/// Physical constants as the kernels read them.
template <typename T>
struct HydroConstants {
  T cs2 = 1, nu = 0, nu3 = 0, two_nu = 0, dt = 0;
};

template <typename T>
HydroConstants<T> hydro_constants(const Hydro3DSetup& s) {
  HydroConstants<T> c;
  c.cs2 = static_cast<T>(s.config.cs * s.config.cs);
  c.nu = static_cast<T>(s.config.nu);
  c.nu3 = static_cast<T>(s.config.nu / 3.0);
  c.two_nu = static_cast<T>(2.0 * s.config.nu);
  c.dt = static_cast<T>(s.dt);
  return c;
}

/// Sums the three second derivatives (x, then y, then z).
template <typename T>
SS_HD SS_FORCEINLINE T hydro_sum3(T a, T b, T c) {
  return (a + b) + c;
}

/// The time derivatives at one point. with_graddiv: the single-pass method adds
/// nu/3 grad div u here; the two-pass method leaves it out (eq 15) and adds it later.
template <typename T, bool with_graddiv>
SS_HD SS_FORCEINLINE void hydro_rhs(const HydroPoint<T>& p, const HydroConstants<T>& c, T& rhs_lnrho, T (&rhs_u)[3]) {
  const T div = hydro_sum3(p.du[0][0], p.du[1][1], p.du[2][2]);
  const T adv_lnrho = fma_t(p.u[2], p.glnrho[2], fma_t(p.u[1], p.glnrho[1], p.u[0] * p.glnrho[0]));
  rhs_lnrho = -adv_lnrho - div;
  const T third_div = div * static_cast<T>(1.0 / 3.0);
SS_UNROLL
  for (int i = 0; i < 3; ++i) {
    const T adv = fma_t(p.u[2], p.du[i][2], fma_t(p.u[1], p.du[i][1], p.u[0] * p.du[i][0]));
    // 2 S_ij d_j ln rho = sum_j (d_j u_i + d_i u_j) g_j - 2/3 div g_i
    T strain = -(third_div + third_div) * p.glnrho[i];
SS_UNROLL
    for (int j = 0; j < 3; ++j) strain = fma_t(p.du[i][j] + p.du[j][i], p.glnrho[j], strain);
    T visc = p.lapu[i] + strain;
    if constexpr (with_graddiv) visc = fma_t(static_cast<T>(1.0 / 3.0), p.graddiv[i], visc);
    rhs_u[i] = fma_t(c.nu, visc, fma_t(-c.cs2, p.glnrho[i], -adv));
  }
}

/// One RK3 substep at one point for one field: w <- alpha w + dt rhs (substep 0:
/// w <- dt rhs, so the buffer's old value is never read), out <- f + beta w.
template <typename T>
SS_HD SS_FORCEINLINE void hydro_rk3(int substep, T alpha, T beta, T dt, T rhs, T f, T& w, T& out) {
  const T wn = substep == 0 ? dt * rhs : fma_t(alpha, w, dt * rhs);
  w = wn;
  out = fma_t(beta, wn, f);
}

/// The RK3 coefficients rounded to T.
template <typename T>
struct HydroRk {
  T alpha[3], beta[3];
};
template <typename T>
inline HydroRk<T> hydro_rk() {
  HydroRk<T> r;
  for (int s = 0; s < 3; ++s) {
    r.alpha[s] = static_cast<T>(kRk3Alpha[s]);
    r.beta[s] = static_cast<T>(kRk3Beta[s]);
  }
  return r;
}

/// Single-pass point update from an accessor: at(f, di, dj, dk) is field f (0 ln rho,
/// 1..3 u) at offset (di, dj, dk) from the point. Every single-pass variant gathers
/// through this function or one that makes the same calls in the same order.
/// mixed = false (the two-pass method's first pass) leaves graddiv unset.
template <typename T, bool mixed, typename At>
SS_HD SS_FORCEINLINE HydroPoint<T> hydro_gather(const HydroWeights<T>& w, At&& at) {
  HydroPoint<T> p;
  p.glnrho[0] = hydro_d1(w, at(0, -3, 0, 0), at(0, -2, 0, 0), at(0, -1, 0, 0), at(0, 1, 0, 0), at(0, 2, 0, 0), at(0, 3, 0, 0));
  p.glnrho[1] = hydro_d1(w, at(0, 0, -3, 0), at(0, 0, -2, 0), at(0, 0, -1, 0), at(0, 0, 1, 0), at(0, 0, 2, 0), at(0, 0, 3, 0));
  p.glnrho[2] = hydro_d1(w, at(0, 0, 0, -3), at(0, 0, 0, -2), at(0, 0, 0, -1), at(0, 0, 0, 1), at(0, 0, 0, 2), at(0, 0, 0, 3));
  T d2[3][3];  // d2[i][j] = d_j d_j u_i
SS_UNROLL
  for (int i = 0; i < 3; ++i) {
    const int f = i + 1;
    const T c = at(f, 0, 0, 0);
    p.u[i] = c;
    p.du[i][0] = hydro_d1(w, at(f, -3, 0, 0), at(f, -2, 0, 0), at(f, -1, 0, 0), at(f, 1, 0, 0), at(f, 2, 0, 0), at(f, 3, 0, 0));
    p.du[i][1] = hydro_d1(w, at(f, 0, -3, 0), at(f, 0, -2, 0), at(f, 0, -1, 0), at(f, 0, 1, 0), at(f, 0, 2, 0), at(f, 0, 3, 0));
    p.du[i][2] = hydro_d1(w, at(f, 0, 0, -3), at(f, 0, 0, -2), at(f, 0, 0, -1), at(f, 0, 0, 1), at(f, 0, 0, 2), at(f, 0, 0, 3));
    d2[i][0] = hydro_d2(w, at(f, -3, 0, 0), at(f, -2, 0, 0), at(f, -1, 0, 0), c, at(f, 1, 0, 0), at(f, 2, 0, 0), at(f, 3, 0, 0));
    d2[i][1] = hydro_d2(w, at(f, 0, -3, 0), at(f, 0, -2, 0), at(f, 0, -1, 0), c, at(f, 0, 1, 0), at(f, 0, 2, 0), at(f, 0, 3, 0));
    d2[i][2] = hydro_d2(w, at(f, 0, 0, -3), at(f, 0, 0, -2), at(f, 0, 0, -1), c, at(f, 0, 0, 1), at(f, 0, 0, 2), at(f, 0, 0, 3));
    p.lapu[i] = hydro_sum3(d2[i][0], d2[i][1], d2[i][2]);
  }
  if constexpr (!mixed) return p;
  // d_i d_j u_j for i != j, by eq 8; the pairs (a, b) are the two axes.
  auto cross = [&](int f, int a, int b) {
    T s[3];
SS_UNROLL
    for (int m = 1; m <= 3; ++m) {
      int pp[3] = {0, 0, 0}, mp[3] = {0, 0, 0}, mm[3] = {0, 0, 0}, pm[3] = {0, 0, 0};
      pp[a] = m, pp[b] = m;
      mp[a] = -m, mp[b] = m;
      mm[a] = -m, mm[b] = -m;
      pm[a] = m, pm[b] = -m;
      s[m - 1] = hydro_diag(at(f, pp[0], pp[1], pp[2]), at(f, mp[0], mp[1], mp[2]), at(f, mm[0], mm[1], mm[2]),
                            at(f, pm[0], pm[1], pm[2]));
    }
    return hydro_cross(w, s[0], s[1], s[2]);
  };
  const T xy_uy = cross(2, 0, 1), xz_uz = cross(3, 0, 2);  // d_x d_y u_y, d_x d_z u_z
  const T xy_ux = cross(1, 0, 1), yz_uz = cross(3, 1, 2);  // d_y d_x u_x, d_y d_z u_z
  const T xz_ux = cross(1, 0, 2), yz_uy = cross(2, 1, 2);  // d_z d_x u_x, d_z d_y u_y
  p.graddiv[0] = hydro_sum3(d2[0][0], xy_uy, xz_uz);
  p.graddiv[1] = hydro_sum3(xy_ux, d2[1][1], yz_uz);
  p.graddiv[2] = hydro_sum3(xz_ux, yz_uy, d2[2][2]);
  return p;
}

/// The divergence at a point (two-pass method, eq 14) from the same accessor.
template <typename T, typename At>
SS_HD SS_FORCEINLINE T hydro_divergence(const HydroWeights<T>& w, At&& at) {
  const T dx = hydro_d1(w, at(1, -3, 0, 0), at(1, -2, 0, 0), at(1, -1, 0, 0), at(1, 1, 0, 0), at(1, 2, 0, 0), at(1, 3, 0, 0));
  const T dy = hydro_d1(w, at(2, 0, -3, 0), at(2, 0, -2, 0), at(2, 0, -1, 0), at(2, 0, 1, 0), at(2, 0, 2, 0), at(2, 0, 3, 0));
  const T dz = hydro_d1(w, at(3, 0, 0, -3), at(3, 0, 0, -2), at(3, 0, 0, -1), at(3, 0, 0, 1), at(3, 0, 0, 2), at(3, 0, 0, 3));
  return hydro_sum3(dx, dy, dz);
}

/// Second pass of the two-pass method (eqs 17-18) for component i, with g = d_i div u:
/// w += dt nu/3 g, out += beta dt nu/3 g.
template <typename T>
SS_HD SS_FORCEINLINE void hydro_second_pass(T beta, T dt_nu3, T g, T& w, T& out) {
  const T add = dt_nu3 * g;
  w = w + add;
  out = fma_t(beta, add, out);
}

// ---- forcing (turbulence, eqs 24-25) ---------------------------------------------

/// The forcing of one time step: wave vector forcing_k[index], f = amp cos(k.x + phase)
/// with amp = N f_k, N = f0 cs sqrt(|k| cs / dt) (eq 25), added as u += dt f after the
/// step (the Pencil Code's way: a delta-correlated force). Drawn from the step count and
/// the seed alone, so either backend, and a resumed run, draws the same; the dt of the
/// step enters only through amp_dt (an adaptive run's dt is known on the device alone).
struct HydroForcingStep {
  int index = 0;
  double f0cs = 0, kcs = 0;                  ///< f0 cs and |k| cs
  double cross[3] = {0, 0, 0}, norm = 1;     ///< f_k = cross / norm (eq 25)
  double cos_phase = 1, sin_phase = 0;
  /// dt N f_k along axis a, for a step of dt.
  SS_HD double amp_dt(double dt, int a) const {
    const double n = f0cs * sqrt(kcs / dt);
    return dt * n * cross[a] / norm;
  }
};
HydroForcingStep hydro_forcing_step(const Hydro3DSetup& s, long step);

/// Per wave vector, cos and sin of k_a x_a per axis rounded to T: for forcing_k[n],
/// cos x at [n * stride + i], sin x at [+ nx], then y (cos, sin), then z.
template <typename T>
std::vector<T> hydro_forcing_tables(const Hydro3DSetup& s);
inline std::size_t hydro_forcing_stride(const Grid3D& g) { return 2 * static_cast<std::size_t>(g.nx + g.ny + g.nz); }

/// The forcing at cell (i, j, k) added to u: u_a += amp_dt[a] Re(e^{i k.x} e^{i phase}).
template <typename T>
SS_HD SS_FORCEINLINE void hydro_force_point(const T* tab, const Grid3D& g, int i, int j, int k, const T (&amp)[3],
                                            T cph, T sph, T& ux, T& uy, T& uz) {
  const T cx = tab[i], sx = tab[g.nx + i];
  const T* ty = tab + 2 * g.nx;
  const T cy = ty[j], sy = ty[g.ny + j];
  const T* tz = ty + 2 * g.ny;
  const T cz = tz[k], sz = tz[g.nz + k];
  const T xy_re = fma_t(cx, cy, -(sx * sy)), xy_im = fma_t(cx, sy, sx * cy);
  const T re3 = fma_t(xy_re, cz, -(xy_im * sz)), im3 = fma_t(xy_re, sz, xy_im * cz);
  const T re = fma_t(re3, cph, -(im3 * sph));
  ux = fma_t(amp[0], re, ux);
  uy = fma_t(amp[1], re, uy);
  uz = fma_t(amp[2], re, uz);
}

// ---- the mouse kick ------------------------------------------------------------------

/// A Gaussian radial velocity kick centred at (cx, cy, cz) (cell units): u += amp
/// exp(-r^2 / (2 sigma^2)) r_hat, sigma in cells. The same double arithmetic on either
/// backend (computed on the host).
struct HydroKick {
  double cx = 0, cy = 0, cz = 0, sigma = 3, amp = 0.5;
};
/// The velocity the kick adds at cell (i, j, k), nearest periodic image.
std::array<double, 3> hydro_kick_at(const HydroKick& kick, const Grid3D& g, int i, int j, int k);

}  // namespace ss
