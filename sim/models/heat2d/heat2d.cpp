#include "sim/models/heat2d/heat2d.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parse_word.hpp"

namespace ss {

namespace {

constexpr std::array kBoundaries = {Boundary::analytic, Boundary::periodic, Boundary::fixed, Boundary::insulated};
constexpr std::array kInitials = {InitialCondition::analytic, InitialCondition::hot_disc, InitialCondition::hot_spots,
                                  InitialCondition::checkerboard};

}  // namespace

std::string_view to_string(Boundary b) {
  switch (b) {
    case Boundary::analytic: return "analytic";
    case Boundary::periodic: return "periodic";
    case Boundary::fixed: return "fixed";
    case Boundary::insulated: return "insulated";
  }
  return "?";
}
std::string_view to_string(InitialCondition ic) {
  switch (ic) {
    case InitialCondition::analytic: return "analytic";
    case InitialCondition::hot_disc: return "hot-disc";
    case InitialCondition::hot_spots: return "hot-spots";
    case InitialCondition::checkerboard: return "checkerboard";
  }
  return "?";
}
std::string_view to_string(Heat2DVariant v) {
  switch (v) {
    case Heat2DVariant::global: return "global";
    case Heat2DVariant::block: return "block";
    case Heat2DVariant::shared: return "shared";
    case Heat2DVariant::stream: return "stream";
    case Heat2DVariant::cpu: return "cpu";
    case Heat2DVariant::reference: return "reference";
  }
  return "?";
}

Boundary parse_boundary(std::string_view s) { return parse_word(s, kBoundaries, "boundary"); }
InitialCondition parse_initial_condition(std::string_view s) {
  return parse_word(s, kInitials, "initial condition");
}
Heat2DVariant parse_heat2d_variant(std::string_view s) { return parse_word(s, kAllHeat2DVariants, "variant"); }

bool is_gpu(Heat2DVariant v) { return v != Heat2DVariant::cpu && v != Heat2DVariant::reference; }

int heat2d_stream_strip_rows(double peak_gbps_per_sm) {
  return peak_gbps_per_sm > kSmBoundPeakGbpsPerSm ? kStreamStripRowsSmBound : kStreamStripRows;
}

double AnalyticHeat2D::amplitude(int m, double t, double alpha) const {
  const SineMode& s = mode[m];
  return s.amplitude * std::exp(-alpha * (s.kx * s.kx + s.ky * s.ky) * t);
}

double AnalyticHeat2D::value(double x, double y, double t, double alpha) const {
  double v = offset;
  for (int m = 0; m < modes; ++m)
    v += amplitude(m, t, alpha) * std::sin(mode[m].kx * x + mode[m].phase_x) * std::sin(mode[m].ky * y + mode[m].phase_y);
  return v;
}

AnalyticHeat2D default_analytic_heat2d(double lx, double ly) {
  constexpr double pi = std::numbers::pi;
  AnalyticHeat2D a;
  a.offset = 0.0;
  a.modes = 2;
  a.mode[0] = {1.0, 2 * pi / lx, 2 * pi / ly, 0.3, 0.7};
  a.mode[1] = {0.5, 6 * pi / lx, 4 * pi / ly, 1.1, 0.2};
  return a;
}

double heat2d_dt_limit(int order, double alpha, double hx, double hy) {
  const double rho = second_derivative_spectral_radius(order);
  return 2.0 / (alpha * rho * (1.0 / (hx * hx) + 1.0 / (hy * hy)));
}

Heat2DSetup make_heat2d_setup(const Heat2DConfig& c) {
  check_order(c.order);
  if (!(std::isfinite(c.alpha) && c.alpha > 0)) throw Error(fmt::format("alpha must be positive (got {})", c.alpha));
  if (!(std::isfinite(c.lx) && c.lx > 0)) throw Error(fmt::format("domain width must be positive (got {})", c.lx));
  if (!std::isfinite(c.fixed_value)) throw Error("the fixed boundary value must be finite");
  Heat2DSetup s;
  s.config = c;
  s.grid = Grid2D::make(c.nx, c.ny);
  s.h = c.lx / c.nx;
  s.dt_limit = heat2d_dt_limit(c.order, c.alpha, s.h, s.h);
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
  s.analytic = default_analytic_heat2d(c.lx, s.ly());
  return s;
}

Grid2D Grid2D::make(int nx, int ny) {
  constexpr int kMaxSide = 1 << 28;
  if (nx < kMinSide || ny < kMinSide)
    throw Error(fmt::format("grid {}x{} is too small: each side needs at least {} cells", nx, ny, kMinSide));
  if (nx > kMaxSide || ny > kMaxSide) throw Error(fmt::format("grid {}x{} is too large", nx, ny));
  Grid2D g;
  g.nx = nx;
  g.ny = ny;
  g.x0 = kRowAlign;
  g.pitch = (g.x0 + nx + kGhost + kRowAlign - 1) / kRowAlign * kRowAlign;
  return g;
}

template <typename T>
std::vector<T> analytic_tables(const Heat2DSetup& s) {
  const Grid2D& g = s.grid;
  const int wx = g.nx + 2 * kGhost, wy = g.ny + 2 * kGhost;
  const AnalyticHeat2D& a = s.analytic;
  std::vector<T> t(static_cast<std::size_t>(a.modes) * (wx + wy));
  for (int m = 0; m < a.modes; ++m) {
    for (int i = -kGhost; i < g.nx + kGhost; ++i)
      t[m * wx + i + kGhost] = static_cast<T>(std::sin(a.mode[m].kx * s.x_of(i) + a.mode[m].phase_x));
    for (int j = -kGhost; j < g.ny + kGhost; ++j)
      t[a.modes * wx + m * wy + j + kGhost] = static_cast<T>(std::sin(a.mode[m].ky * s.y_of(j) + a.mode[m].phase_y));
  }
  return t;
}

template <typename T>
GhostRule<T> make_ghost_rule(const Heat2DSetup& s, double t, const T* tables) {
  GhostRule<T> r;
  r.boundary = s.config.boundary;
  r.fixed_value = static_cast<T>(s.config.fixed_value);
  if (r.boundary != Boundary::analytic) return r;
  const AnalyticHeat2D& a = s.analytic;
  const int wx = s.grid.nx + 2 * kGhost, wy = s.grid.ny + 2 * kGhost;
  r.modes = a.modes;
  r.offset = static_cast<T>(a.offset);
  for (int m = 0; m < a.modes; ++m) {
    r.amplitude[m] = static_cast<T>(a.amplitude(m, t, s.config.alpha));
    r.table_x[m] = tables + m * wx;
    r.table_y[m] = tables + a.modes * wx + m * wy;
  }
  return r;
}

template <typename T>
void fill_ghosts_host(T* f, const Grid2D& g, const GhostRule<T>& r) {
  const long long n = ghost_frame_cells(g);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (long long e = 0; e < n; ++e) write_ghost_frame_cell(f, g, e, r);
}

template <typename T>
std::vector<T> heat2d_initial_field(const Heat2DSetup& s) {
  const Grid2D& g = s.grid;
  std::vector<T> f(g.elements(), T(0));
  const double lx = s.config.lx, ly = s.ly();
  auto set = [&](auto&& value_of) {
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j)] = static_cast<T>(value_of(s.x_of(i), s.y_of(j)));
  };
  switch (s.config.initial) {
    case InitialCondition::analytic:
      set([&](double x, double y) { return s.analytic.value(x, y, 0.0, s.config.alpha); });
      break;
    case InitialCondition::hot_disc: {
      const double r = 0.2 * std::min(lx, ly);
      set([&](double x, double y) { return std::hypot(x - lx / 2, y - ly / 2) < r ? 1.0 : 0.0; });
      break;
    }
    case InitialCondition::hot_spots: {
      std::mt19937 rng(s.config.seed);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      struct Spot { double x, y, r, v; };
      std::vector<Spot> spots(16);
      for (auto& sp : spots) sp = {u(rng) * lx, u(rng) * ly, (0.02 + 0.06 * u(rng)) * std::min(lx, ly), 0.5 + 0.5 * u(rng)};
      set([&](double x, double y) {
        double v = 0;
        for (const auto& sp : spots)
          if (std::hypot(x - sp.x, y - sp.y) < sp.r) v = std::max(v, sp.v);
        return v;
      });
      break;
    }
    case InitialCondition::checkerboard: {
      const double cell = std::min(lx, ly) / 8;
      set([&](double x, double y) {
        return (static_cast<long>(std::floor(x / cell)) + static_cast<long>(std::floor(y / cell))) % 2 == 0 ? 1.0 : 0.0;
      });
      break;
    }
  }
  const std::vector<T> tables = analytic_tables<T>(s);
  fill_ghosts_host(f.data(), g, make_ghost_rule<T>(s, 0.0, tables.data()));
  return f;
}

template <typename T>
std::vector<T> extract_interior(const std::vector<T>& field, const Grid2D& g) {
  std::vector<T> out(g.points());
  for (int j = 0; j < g.ny; ++j)
    std::copy_n(field.begin() + g.index(0, j), g.nx, out.begin() + static_cast<std::size_t>(j) * g.nx);
  return out;
}

#define SS_INSTANTIATE(T)                                                                   \
  template std::vector<T> analytic_tables<T>(const Heat2DSetup&);                            \
  template GhostRule<T> make_ghost_rule<T>(const Heat2DSetup&, double, const T*);            \
  template void fill_ghosts_host<T>(T*, const Grid2D&, const GhostRule<T>&);                 \
  template std::vector<T> heat2d_initial_field<T>(const Heat2DSetup&);                       \
  template std::vector<T> extract_interior<T>(const std::vector<T>&, const Grid2D&);
SS_INSTANTIATE(float)
SS_INSTANTIATE(double)
#undef SS_INSTANTIATE

}  // namespace ss
