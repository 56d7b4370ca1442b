// Hydro 3D set-up: checks, the time step, the initial fields, the forcing's draws.
#include "sim/models/hydro3d/hydro3d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss {

std::string_view to_string(HydroInit i) {
  switch (i) {
    case HydroInit::decay: return "decay";
    case HydroInit::explosion: return "explosion";
    case HydroInit::turbulence: return "turbulence";
  }
  return "?";
}

HydroInit parse_hydro_init(std::string_view s) {
  for (HydroInit i : {HydroInit::decay, HydroInit::explosion, HydroInit::turbulence})
    if (s == to_string(i)) return i;
  throw Error(fmt::format("unknown initial field '{}' (decay, explosion or turbulence)", s));
}

namespace {

double initial_umax(const Hydro3DConfig& c) {
  switch (c.init) {
    case HydroInit::decay: return std::abs(c.u0);
    case HydroInit::explosion: return std::abs(c.u_ampl);
    case HydroInit::turbulence: return 0.0;
  }
  return 0.0;
}

/// The wave vectors of the forcing: k_a = 2 pi m_a / L_a with integer m_a (periodic on
/// each axis of a box of any shape, L_a = n_a h), |k| in [kf - 1/2, kf + 1/2) in units of
/// 2 pi / box, |m_a| below half the cells of its axis. Held as the integers m_a.
std::vector<std::array<int, 3>> forcing_shell(const Hydro3DConfig& c) {
  std::vector<std::array<int, 3>> out;
  const int n[3] = {c.nx, c.ny, c.nz};
  int m[3];
  for (int a = 0; a < 3; ++a)  // the loops stay small for any kf
    m[a] = static_cast<int>(std::min<double>((n[a] - 1) / 2, std::ceil((c.kf + 0.5) * n[a] / c.nx)));
  for (int kz = -m[2]; kz <= m[2]; ++kz)
    for (int ky = -m[1]; ky <= m[1]; ++ky)
      for (int kx = -m[0]; kx <= m[0]; ++kx) {
        const double ux = kx, uy = static_cast<double>(ky) * c.nx / c.ny, uz = static_cast<double>(kz) * c.nx / c.nz;
        const double k = std::sqrt(ux * ux + uy * uy + uz * uz);
        if (k < c.kf - 0.5 || k >= c.kf + 0.5 || k == 0) continue;
        out.push_back({kx, ky, kz});
      }
  return out;
}

}  // namespace

Hydro3DSetup make_hydro3d_setup(const Hydro3DConfig& c) {
  for (int n : {c.nx, c.ny, c.nz})
    if (n < kHydroMinSide)
      throw Error(fmt::format("grid {} x {} x {}: hydro3d needs at least {} cells per axis (the 7-point stencil)", c.nx,
                              c.ny, c.nz, kHydroMinSide));
  if (!(c.cs > 0)) throw Error(fmt::format("cs = {}: the sound speed must be positive", c.cs));
  if (!(c.nu >= 0)) throw Error(fmt::format("nu = {}: the viscosity cannot be negative", c.nu));
  if (!(c.box > 0)) throw Error(fmt::format("box = {}: the box width must be positive", c.box));
  if (!(c.safety > 0 && c.safety <= 1)) throw Error(fmt::format("safety = {}: must be in (0, 1]", c.safety));
  if (!(c.dt >= 0)) throw Error(fmt::format("dt = {}: must be positive (or 0 for auto)", c.dt));
  if (c.dt_every < 0)
    throw Error(fmt::format("dt_every = {}: a number of steps (or 0: keep the auto dt of t = 0)", c.dt_every));
  Hydro3DSetup s;
  s.config = c;
  s.grid = Grid3D::make(c.nx, c.ny, c.nz);
  s.h = c.box / c.nx;
  s.umax0 = initial_umax(c);
  s.dt_limit = hydro3d_dt_limit(s.h, c.cs, c.nu, s.umax0);
  if (c.dt > s.dt_limit)
    throw Error(fmt::format("dt = {:.6g} is above the Courant limit {:.6g} (advection + sound: {:.4g} h / (|u|max {:.4g} + "
                            "cs {:.4g}); viscous: {:.4g} h^2 / nu {:.4g}; h = {:.4g})",
                            c.dt, s.dt_limit, kCourantAdvection, s.umax0, c.cs, kCourantViscous, c.nu, s.h));
  s.dt = c.dt > 0 ? c.dt : c.safety * s.dt_limit;
  if (c.init == HydroInit::decay && 2 * c.k >= c.nx)
    throw Error(fmt::format("k = {}: the shear wave needs k below nx / 2 = {} (two cells per wavelength)", c.k, c.nx / 2.0));
  if (c.init == HydroInit::turbulence) {
    s.forcing_k = forcing_shell(c);
    if (s.forcing_k.empty())
      throw Error(fmt::format("kf = {}: no wave vector of the forcing shell fits a {} x {} x {} grid", c.kf, c.nx, c.ny, c.nz));
  }
  return s;
}

template <typename T>
std::array<std::vector<T>, kHydroFields> hydro3d_initial_fields(const Hydro3DSetup& s) {
  const Grid3D& g = s.grid;
  std::array<std::vector<T>, kHydroFields> f;
  for (auto& v : f) v.assign(g.elements(), T(0));
  const Hydro3DConfig& c = s.config;
  const double kx = 2 * M_PI / c.box * c.k;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t n = g.index(i, j, k);
        double u[3] = {0, 0, 0};
        if (c.init == HydroInit::decay) {
          u[1] = c.u0 * std::sin(kx * s.x(i));
        } else if (c.init == HydroInit::explosion) {
          const double x = s.x(i), y = s.y(j), z = s.z(k);
          const double r = std::sqrt(x * x + y * y + z * z);
          if (r > 0) {
            const double d = r - c.r_shell;
            const double a = c.u_ampl * std::exp(-d * d / (2 * c.d_shell * c.d_shell)) / r;
            u[0] = a * x, u[1] = a * y, u[2] = a * z;
          }
        }
        for (int a = 0; a < 3; ++a) f[a + 1][n] = static_cast<T>(u[a]);
      }
  for (auto& v : f)
    for (long long e = 0; e < hydro_ghost_cells(g); ++e) {
      std::size_t dst, src;
      hydro_ghost_cell(g, e, dst, src);
      v[dst] = v[src];
    }
  return f;
}

template std::array<std::vector<float>, kHydroFields> hydro3d_initial_fields<float>(const Hydro3DSetup&);
template std::array<std::vector<double>, kHydroFields> hydro3d_initial_fields<double>(const Hydro3DSetup&);

namespace {

/// splitmix64: a well-mixed 64-bit value from any 64-bit input.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
double unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

}  // namespace

HydroForcingStep hydro_forcing_step(const Hydro3DSetup& s, long step) {
  HydroForcingStep f;
  if (s.forcing_k.empty()) return f;
  std::uint64_t state = mix64((static_cast<std::uint64_t>(s.config.seed) << 32) ^ static_cast<std::uint64_t>(step));
  auto next = [&] { return unit(state = mix64(state)); };
  f.index = static_cast<int>(next() * static_cast<double>(s.forcing_k.size())) % static_cast<int>(s.forcing_k.size());
  const auto& ki = s.forcing_k[static_cast<std::size_t>(f.index)];
  const double k[3] = {2 * M_PI * ki[0] / (s.grid.nx * s.h), 2 * M_PI * ki[1] / (s.grid.ny * s.h),
                       2 * M_PI * ki[2] / (s.grid.nz * s.h)};
  const double kk = std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  // e: a random unit vector not parallel to k (eq 25)
  double e[3], ke = 0;
  for (int tries = 0;; ++tries) {
    const double z = 2 * next() - 1, phi = 2 * M_PI * next(), r = std::sqrt(1 - z * z);
    e[0] = r * std::cos(phi), e[1] = r * std::sin(phi), e[2] = z;
    ke = k[0] * e[0] + k[1] * e[1] + k[2] * e[2];
    if (kk * kk - ke * ke > 1e-6 * kk * kk || tries > 16) break;
  }
  const double cross[3] = {k[1] * e[2] - k[2] * e[1], k[2] * e[0] - k[0] * e[2], k[0] * e[1] - k[1] * e[0]};
  const double norm = std::sqrt(kk * kk - ke * ke);
  const double cs = s.config.cs;
  f.f0cs = s.config.f0 * cs;
  f.kcs = kk * cs;
  for (int a = 0; a < 3; ++a) f.cross[a] = cross[a];
  f.norm = norm;
  const double phase = 2 * M_PI * next() - M_PI;
  f.cos_phase = std::cos(phase);
  f.sin_phase = std::sin(phase);
  return f;
}

template <typename T>
std::vector<T> hydro_forcing_tables(const Hydro3DSetup& s) {
  const Grid3D& g = s.grid;
  const std::size_t stride = hydro_forcing_stride(g);
  std::vector<T> t(stride * s.forcing_k.size());
  for (std::size_t n = 0; n < s.forcing_k.size(); ++n) {
    T* p = t.data() + n * stride;
    const int sides[3] = {g.nx, g.ny, g.nz};
    for (int a = 0; a < 3; ++a) {
      const double k = 2 * M_PI * s.forcing_k[n][static_cast<std::size_t>(a)] / (sides[a] * s.h);
      for (int i = 0; i < sides[a]; ++i) {
        const double x = a == 0 ? s.x(i) : a == 1 ? s.y(i) : s.z(i);
        p[i] = static_cast<T>(std::cos(k * x));
        p[sides[a] + i] = static_cast<T>(std::sin(k * x));
      }
      p += 2 * sides[a];
    }
  }
  return t;
}

template std::vector<float> hydro_forcing_tables<float>(const Hydro3DSetup&);
template std::vector<double> hydro_forcing_tables<double>(const Hydro3DSetup&);

std::array<double, 3> hydro_kick_at(const HydroKick& kick, const Grid3D& g, int i, int j, int k) {
  auto nearest = [](double d, int n) {
    while (d > 0.5 * n) d -= n;
    while (d < -0.5 * n) d += n;
    return d;
  };
  const double dx = nearest(i - kick.cx, g.nx), dy = nearest(j - kick.cy, g.ny), dz = nearest(k - kick.cz, g.nz);
  const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
  if (r == 0 || r > 4 * kick.sigma) return {0, 0, 0};
  const double a = kick.amp * std::exp(-r * r / (2 * kick.sigma * kick.sigma)) / r;
  return {a * dx, a * dy, a * dz};
}

}  // namespace ss
