// Heat 3D: setup, the analytic solution, ghost rules and initial fields.
#include "sim/models/heat3d/heat3d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parse_word.hpp"

namespace ss {

std::string_view to_string(Heat3DVariant v) {
  switch (v) {
    case Heat3DVariant::global: return "global";
    case Heat3DVariant::shared3d: return "shared3d";
    case Heat3DVariant::stream25d: return "stream25d";
    case Heat3DVariant::cpu: return "cpu";
    case Heat3DVariant::reference: return "reference";
  }
  return "?";
}

Heat3DVariant parse_heat3d_variant(std::string_view s) { return parse_word(s, kAllHeat3DVariants, "variant"); }

bool is_gpu(Heat3DVariant v) { return v != Heat3DVariant::cpu && v != Heat3DVariant::reference; }

double AnalyticHeat3D::amplitude(int m, double t, double alpha) const {
  const SineMode3D& s = mode[m];
  return s.amplitude * std::exp(-alpha * (s.kx * s.kx + s.ky * s.ky + s.kz * s.kz) * t);
}

double AnalyticHeat3D::value(double x, double y, double z, double t, double alpha) const {
  double v = offset;
  for (int m = 0; m < modes; ++m)
    v += amplitude(m, t, alpha) * std::sin(mode[m].kx * x + mode[m].phase_x) * std::sin(mode[m].ky * y + mode[m].phase_y) *
         std::sin(mode[m].kz * z + mode[m].phase_z);
  return v;
}

AnalyticHeat3D default_analytic_heat3d(double lx, double ly, double lz) {
  constexpr double pi = std::numbers::pi;
  AnalyticHeat3D a;
  a.modes = 2;
  a.mode[0] = {1.0, 2 * pi / lx, 2 * pi / ly, 2 * pi / lz, 0.3, 0.7, 0.5};
  a.mode[1] = {0.5, 6 * pi / lx, 4 * pi / ly, 2 * pi / lz, 1.1, 0.2, 0.9};
  return a;
}

double heat3d_dt_limit(int order, double alpha, double h) {
  const double rho = second_derivative_spectral_radius(order);
  return 2.0 * h * h / (alpha * rho * 3.0);
}

std::optional<Heat3DFaceWriters> parse_heat3d_face_writers(std::string_view s) {
  if (s == "auto") return Heat3DFaceWriters::automatic;
  if (s == "producers") return Heat3DFaceWriters::producers;
  if (s == "kernel") return Heat3DFaceWriters::kernel;
  return std::nullopt;
}

int stream25d_face_producers(long long face_cells, long long points, long long tile_blocks, long long idle) {
  if (idle <= 0 || tile_blocks <= 0) return 0;
  // face_cells / idle <= 1.5 points / tile_blocks, in integers (at most ~1e12 x ~1e6)
  return 2.0L * face_cells * tile_blocks <= 3.0L * points * idle ? static_cast<int>(idle) : 0;
}

bool heat3d_stream25d_lean(double peak_gbps_per_sm) { return peak_gbps_per_sm > kSmBoundPeakGbpsPerSm; }

bool heat3d_stream25d_tiles_from_middle(double peak_gbps_per_sm) { return peak_gbps_per_sm > kSmBoundPeakGbpsPerSm; }

int stream25d_slab_planes(long long columns, int nz, long long resident) {
  columns = std::max<long long>(columns, 1);
  resident = std::max<long long>(resident, 1);
  const int shortest = std::min(nz, 16);
  int best = nz;
  long long best_cost = std::numeric_limits<long long>::max();
  for (long long slabs = 1; slabs <= nz; ++slabs) {
    const long long len = (nz + slabs - 1) / slabs;
    if (len < shortest || (slabs > 1 && columns * slabs > 64 * resident)) break;  // past 64 waves: no gain
    const long long blocks = columns * ((nz + len - 1) / len);
    const long long waves = (blocks + resident - 1) / resident;
    const long long cost = waves * (len + kStream25SlabStart);
    if (cost < best_cost) best_cost = cost, best = static_cast<int>(len);
  }
  return best;
}

Heat3DSetup make_heat3d_setup(const Heat3DConfig& c) {
  check_order(c.order);
  if (!(std::isfinite(c.alpha) && c.alpha > 0)) throw Error(fmt::format("alpha must be positive (got {})", c.alpha));
  if (!(std::isfinite(c.lx) && c.lx > 0)) throw Error(fmt::format("domain width must be positive (got {})", c.lx));
  if (!std::isfinite(c.fixed_value)) throw Error("the fixed boundary value must be finite");
  Heat3DSetup s;
  s.config = c;
  s.grid = Grid3D::make(c.nx, c.ny, c.nz);
  s.h = c.lx / c.nx;
  s.dt_limit = heat3d_dt_limit(c.order, c.alpha, s.h);
  if (c.dt == 0) {
    s.dt = kDefaultDtFraction * s.dt_limit;
  } else if (!(std::isfinite(c.dt) && c.dt > 0)) {
    throw Error(fmt::format("dt must be positive (got {})", c.dt));
  } else if (c.dt > s.dt_limit) {
    throw Error(fmt::format("dt {:.6g} is above the stability limit {:.6g} of order {} (alpha {:g}, h {:.6g})", c.dt,
                            s.dt_limit, c.order, c.alpha, s.h));
  } else {
    s.dt = c.dt;
  }
  s.analytic = default_analytic_heat3d(c.lx, s.ly(), s.lz());
  return s;
}

template <typename T>
std::vector<T> analytic_tables3d(const Heat3DSetup& s) {
  const Grid3D& g = s.grid;
  const AnalyticHeat3D& a = s.analytic;
  const int w[3] = {g.nx + 2 * kGhost, g.ny + 2 * kGhost, g.nz + 2 * kGhost};
  std::vector<T> t(static_cast<std::size_t>(a.modes) * (w[0] + w[1] + w[2]));
  std::size_t o = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (int m = 0; m < a.modes; ++m) {
      const SineMode3D& md = a.mode[m];
      const double kk = axis == 0 ? md.kx : axis == 1 ? md.ky : md.kz;
      const double ph = axis == 0 ? md.phase_x : axis == 1 ? md.phase_y : md.phase_z;
      for (int i = -kGhost; i < w[axis] - kGhost; ++i) t[o++] = static_cast<T>(std::sin(kk * s.coord(i) + ph));
    }
  return t;
}

template <typename T>
GhostRule3D<T> make_ghost_rule3d(const Heat3DSetup& s, double t, const T* tables) {
  GhostRule3D<T> r;
  r.boundary = s.config.boundary;
  r.fixed_value = static_cast<T>(s.config.fixed_value);
  if (r.boundary != Boundary::analytic) return r;
  const AnalyticHeat3D& a = s.analytic;
  const Grid3D& g = s.grid;
  const std::size_t wx = g.nx + 2 * kGhost, wy = g.ny + 2 * kGhost, wz = g.nz + 2 * kGhost;
  r.modes = a.modes;
  r.offset = static_cast<T>(a.offset);
  for (int m = 0; m < a.modes; ++m) {
    r.amplitude[m] = static_cast<T>(a.amplitude(m, t, s.config.alpha));
    r.table_x[m] = tables + m * wx;
    r.table_y[m] = tables + a.modes * wx + m * wy;
    r.table_z[m] = tables + a.modes * (wx + wy) + m * wz;
  }
  return r;
}

template <typename T>
void heat3d_initial_box(const Heat3DSetup& s, const Box& box, const Grid3D& g, T* f) {
  const double lx = s.config.lx, ly = s.ly(), lz = s.lz();
  const double lmin = std::min({lx, ly, lz});
  auto set = [&](auto&& value_of) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < box.n[2]; ++k)
      for (int j = 0; j < box.n[1]; ++j)
        for (int i = 0; i < box.n[0]; ++i)
          f[g.index(i, j, k)] =
              static_cast<T>(value_of(s.coord(box.lo[0] + i), s.coord(box.lo[1] + j), s.coord(box.lo[2] + k)));
  };
  auto dist = [](double x, double y, double z) { return std::sqrt(x * x + y * y + z * z); };
  switch (s.config.initial) {
    case InitialCondition::analytic:
      set([&](double x, double y, double z) { return s.analytic.value(x, y, z, 0.0, s.config.alpha); });
      break;
    case InitialCondition::hot_disc: {  // a ball in 3D
      const double r = 0.2 * lmin;
      set([&](double x, double y, double z) { return dist(x - lx / 2, y - ly / 2, z - lz / 2) < r ? 1.0 : 0.0; });
      break;
    }
    case InitialCondition::hot_spots: {
      std::mt19937 rng(s.config.seed);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      struct Spot { double x, y, z, r, v; };
      std::vector<Spot> spots(16);
      for (auto& sp : spots) sp = {u(rng) * lx, u(rng) * ly, u(rng) * lz, (0.04 + 0.08 * u(rng)) * lmin, 0.5 + 0.5 * u(rng)};
      set([&](double x, double y, double z) {
        double v = 0;
        for (const auto& sp : spots)
          if (dist(x - sp.x, y - sp.y, z - sp.z) < sp.r) v = std::max(v, sp.v);
        return v;
      });
      break;
    }
    case InitialCondition::checkerboard: {
      const double cell = lmin / 8;
      set([&](double x, double y, double z) {
        const long sum = static_cast<long>(std::floor(x / cell)) + static_cast<long>(std::floor(y / cell)) +
                         static_cast<long>(std::floor(z / cell));
        return sum % 2 == 0 ? 1.0 : 0.0;
      });
      break;
    }
  }
}

template <typename T>
std::vector<T> heat3d_initial_field(const Heat3DSetup& s) {
  const Grid3D& g = s.grid;
  std::vector<T> f(g.elements(), T(0));
  heat3d_initial_box(s, Box{{0, 0, 0}, {g.nx, g.ny, g.nz}}, g, f.data());
  const std::vector<T> tables = analytic_tables3d<T>(s);
  fill_ghosts3d_host(f.data(), g, make_ghost_rule3d<T>(s, 0.0, tables.data()));
  return f;
}

#define SS_INSTANTIATE(T)                                                                 \
  template std::vector<T> analytic_tables3d<T>(const Heat3DSetup&);                       \
  template GhostRule3D<T> make_ghost_rule3d<T>(const Heat3DSetup&, double, const T*);     \
  template std::vector<T> heat3d_initial_field<T>(const Heat3DSetup&);                    \
  template void heat3d_initial_box<T>(const Heat3DSetup&, const Box&, const Grid3D&, T*);
SS_INSTANTIATE(float)
SS_INSTANTIATE(double)
#undef SS_INSTANTIATE

}  // namespace ss
