#pragma once
// Heat 2D: dT/dt = alpha * laplacian(T) on a rectangle of nx-by-ny cells of side
// h = lx / nx (cell centres at ((i + 1/2) h, (j + 1/2) h)), explicit Euler in time,
// central second-derivative stencils of order 2..8.
//
// Boundaries are ghost cells (kGhost wide) written by the same step that writes
// the interior ("ghost images"), so one kernel launch is one whole time step:
//   analytic  - ghosts hold the exact solution at the new time (the CME 213 case)
//   periodic  - ghosts hold the interior wrapped around
//   fixed     - ghosts hold a constant (Dirichlet)
//   insulated - ghosts mirror the interior about the cell face (zero flux)
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/grid2d.hpp"
#include "sim/core/hostdevice.hpp"
#include "sim/core/precision.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

enum class Boundary { analytic, periodic, fixed, insulated };
enum class InitialCondition { analytic, hot_disc, hot_spots, checkerboard };
/// Kernel variants of heat 2D. GPU: global, block, shared, stream. CPU: cpu, reference.
enum class Heat2DVariant { global, block, shared, stream, cpu, reference };

inline constexpr std::array kAllHeat2DVariants = {Heat2DVariant::global, Heat2DVariant::block, Heat2DVariant::shared,
                                                  Heat2DVariant::stream, Heat2DVariant::cpu,   Heat2DVariant::reference};
inline constexpr std::array kGpuHeat2DVariants = {Heat2DVariant::global, Heat2DVariant::block, Heat2DVariant::shared,
                                                  Heat2DVariant::stream};

std::string_view to_string(Boundary b);
std::string_view to_string(InitialCondition ic);
std::string_view to_string(Heat2DVariant v);
/// Parsers: throw ss::Error naming the bad word and the accepted ones.
Boundary parse_boundary(std::string_view s);
InitialCondition parse_initial_condition(std::string_view s);
Heat2DVariant parse_heat2d_variant(std::string_view s);
/// True for the variants that run on a CUDA device.
bool is_gpu(Heat2DVariant v);

/// Rows in each strip the GPU `stream` variant's blocks walk, on a device with this peak
/// DRAM bandwidth per SM (cuda_peak_gbps_per_sm): kStreamStripRows where DRAM binds
/// (the H100: 0.96-0.97 of copy at 8192^2, 0.93 with 24 rows), kStreamStripRowsSmBound
/// where the SM binds (above kSmBoundPeakGbpsPerSm: the H200, 0.89-0.91 against 0.85-0.86
/// with 12 rows; docs/perf.md, session 22). Short strips let the block scheduler even out
/// the SMs; each strip reads 2R rows twice.
inline constexpr int kStreamStripRows = 12, kStreamStripRowsSmBound = 20;
int heat2d_stream_strip_rows(double peak_gbps_per_sm);

/// Fraction of the stability limit used when no dt is given: at 1/2 every Fourier
/// mode's amplification factor lies in [0, 1], so the scheme is also monotone.
inline constexpr double kDefaultDtFraction = 0.5;
/// At most this many sine modes in the analytic solution.
inline constexpr int kMaxModes = 4;

/// One separable mode: amplitude * sin(kx x + phase_x) * sin(ky y + phase_y).
struct SineMode {
  double amplitude = 0, kx = 0, ky = 0, phase_x = 0, phase_y = 0;
};

/// T(x, y, t) = offset + sum_m A_m exp(-alpha (kx_m^2 + ky_m^2) t) sin(kx_m x + px_m) sin(ky_m y + py_m):
/// an exact solution of the heat equation.
struct AnalyticHeat2D {
  double offset = 0;
  int modes = 0;
  std::array<SineMode, kMaxModes> mode{};

  /// Exact temperature at (x, y) and time t.
  double value(double x, double y, double t, double alpha) const;
  /// Amplitude of mode m at time t.
  double amplitude(int m, double t, double alpha) const;
};

/// The default analytic scene for a domain of lx-by-ly: two modes on an offset.
AnalyticHeat2D default_analytic_heat2d(double lx, double ly);

struct Heat2DConfig {
  int nx = 2048;                 ///< interior cells along x
  int ny = 2048;                 ///< interior cells along y
  int order = 8;                 ///< 2, 4, 6 or 8
  double alpha = 1.0;            ///< diffusivity
  double lx = 1.0;               ///< domain width; h = lx / nx, height = ny * h
  double dt = 0.0;               ///< time step; 0 picks kDefaultDtFraction of the stability limit
  Boundary boundary = Boundary::analytic;
  double fixed_value = 0.0;      ///< ghost value for Boundary::fixed
  InitialCondition initial = InitialCondition::analytic;
  std::uint32_t seed = 1;        ///< for random initial conditions
};

/// A validated configuration with everything derived from it.
struct Heat2DSetup {
  Heat2DConfig config;
  Grid2D grid;
  double h = 0;         ///< cell size (both axes)
  double dt = 0;        ///< time step in use
  double dt_limit = 0;  ///< explicit Euler stability limit for this order
  AnalyticHeat2D analytic;

  double ly() const { return grid.ny * h; }
  double x_of(int i) const { return (i + 0.5) * h; }
  double y_of(int j) const { return (j + 0.5) * h; }
  /// alpha * dt / h^2: the weight of the Laplacian in one step.
  double courant() const { return config.alpha * dt / (h * h); }
};

/// Largest stable dt for explicit Euler with this order: 2 / (alpha (rho/hx^2 + rho/hy^2)),
/// rho the spectral radius of the 1D second-derivative stencil.
double heat2d_dt_limit(int order, double alpha, double hx, double hy);

/// Validates the configuration (order, sizes, alpha, dt against the limit) and
/// derives the rest; throws ss::Error with the offending value in the message.
Heat2DSetup make_heat2d_setup(const Heat2DConfig& config);

/// How the step writes ghost images, in the value type of the field. For the
/// analytic boundary it holds per-mode sine tables over [-kGhost, n + kGhost)
/// and the mode amplitudes at the time of the field being written.
template <typename T>
struct GhostRule {
  Boundary boundary = Boundary::periodic;
  T fixed_value = 0;
  int modes = 0;
  T offset = 0;
  T amplitude[kMaxModes] = {};
  const T* table_x[kMaxModes] = {};  ///< sin(kx x_i + px), index i + kGhost
  const T* table_y[kMaxModes] = {};  ///< sin(ky y_j + py), index j + kGhost
};

/// Exact solution at cell (i, j) from the rule's tables (same rounding on host and device).
template <typename T>
SS_HD SS_FORCEINLINE T analytic_ghost_value(const GhostRule<T>& r, int i, int j) {
  T v = r.offset;
  for (int m = 0; m < r.modes; ++m) v = fma_t(r.amplitude[m], r.table_x[m][i + kGhost] * r.table_y[m][j + kGhost], v);
  return v;
}

/// Value a ghost cell takes when its image is an interior cell holding v.
template <typename T>
SS_HD SS_FORCEINLINE T ghost_value(const GhostRule<T>& r, int gi, int gj, T v) {
  switch (r.boundary) {
    case Boundary::fixed: return r.fixed_value;
    case Boundary::analytic: return analytic_ghost_value(r, gi, gj);
    default: return v;
  }
}

/// Writes the x ghost image of interior point (i, j), for i < kGhost or
/// i >= nx - kGhost: periodic wraps, the others mirror about the cell face (and
/// fixed/analytic put their own value there). Each ghost cell of the left and
/// right frame has exactly one such image.
template <typename T>
SS_HD SS_FORCEINLINE void write_ghost_x(T* f, const Grid2D& g, int i, int j, const GhostRule<T>& r) {
  const bool wrap = r.boundary == Boundary::periodic;
  const int gi = i < kGhost ? (wrap ? i + g.nx : -1 - i) : (wrap ? i - g.nx : 2 * g.nx - 1 - i);
  f[g.index(gi, j)] = ghost_value(r, gi, j, f[g.index(i, j)]);
}

/// The y counterpart of write_ghost_x, for j < kGhost or j >= ny - kGhost.
template <typename T>
SS_HD SS_FORCEINLINE void write_ghost_y(T* f, const Grid2D& g, int i, int j, const GhostRule<T>& r) {
  const bool wrap = r.boundary == Boundary::periodic;
  const int gj = j < kGhost ? (wrap ? j + g.ny : -1 - j) : (wrap ? j - g.ny : 2 * g.ny - 1 - j);
  f[g.index(i, gj)] = ghost_value(r, i, gj, f[g.index(i, j)]);
}

/// Number of ghost cells the frame step writes: 2 kGhost (nx + ny); corners are
/// never read by a cross-shaped stencil and are left alone.
SS_HD inline long long ghost_frame_cells(const Grid2D& g) { return 2LL * kGhost * (g.nx + g.ny); }

/// Writes frame cell e in [0, ghost_frame_cells): first the left/right frame
/// (row by row), then the bottom/top frame. One call per cell, any order: this
/// is the explicit boundary step that follows every interior update.
template <typename T>
SS_HD SS_FORCEINLINE void write_ghost_frame_cell(T* f, const Grid2D& g, long long e, const GhostRule<T>& r) {
  const long long side_cells = 2LL * kGhost * g.ny;
  if (e < side_cells) {
    const int j = static_cast<int>(e / (2 * kGhost));
    const int k = static_cast<int>(e % (2 * kGhost));
    write_ghost_x(f, g, k < kGhost ? k : g.nx - 2 * kGhost + k, j, r);
  } else {
    e -= side_cells;
    const int k = static_cast<int>(e / g.nx);
    const int i = static_cast<int>(e % g.nx);
    write_ghost_y(f, g, i, k < kGhost ? k : g.ny - 2 * kGhost + k, r);
  }
}

/// The heat 2D point update that every variant, CPU and GPU, computes:
///   T' = T + cx * D2x(T) + cy * D2y(T)
/// row[k] = T(i + k - R, j), col[k] = T(i, j + k - R); col[R] is not read.
/// The summation order and the explicit FMAs are fixed here, which is what makes
/// the variants bitwise identical.
template <typename T, int R>
SS_HD SS_FORCEINLINE T heat2d_point(const T (&row)[2 * R + 1], const T (&col)[2 * R + 1], T cx, T cy) {
  constexpr auto w = second_derivative_weights<R>();
  T sx = static_cast<T>(w[0]) * row[R];
  T sy = static_cast<T>(w[0]) * row[R];
SS_UNROLL
  for (int k = 1; k <= R; ++k) {
    sx = fma_t(static_cast<T>(w[k]), row[R - k] + row[R + k], sx);
    sy = fma_t(static_cast<T>(w[k]), col[R - k] + col[R + k], sy);
  }
  return fma_t(cy, sy, fma_t(cx, sx, row[R]));
}

/// Per-mode sine tables for the analytic ghosts, rounded to T: x tables first
/// (nx + 2 kGhost each), then y tables (ny + 2 kGhost each).
template <typename T>
std::vector<T> analytic_tables(const Heat2DSetup& s);

/// The rule for writing a field at time t, with tables that live at tables_x[m], tables_y[m].
template <typename T>
GhostRule<T> make_ghost_rule(const Heat2DSetup& s, double t, const T* tables);

/// The initial field (grid.elements() values, ghosts filled, corners zero).
template <typename T>
std::vector<T> heat2d_initial_field(const Heat2DSetup& s);

/// Writes every ghost image of field f from its interior (as a step would).
template <typename T>
void fill_ghosts_host(T* f, const Grid2D& g, const GhostRule<T>& r);

/// The interior of a padded field, row-major nx*ny.
template <typename T>
std::vector<T> extract_interior(const std::vector<T>& field, const Grid2D& g);

}  // namespace ss
