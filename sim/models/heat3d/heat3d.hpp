#pragma once
// Heat 3D: dT/dt = alpha * laplacian(T) on a box of nx-by-ny-by-nz cells of side
// h = lx / nx (cell centres at ((i + 1/2) h, (j + 1/2) h, (k + 1/2) h)), explicit
// Euler in time, central second-derivative stencils of order 2..8. The 3D
// counterpart of heat2d.hpp: the same boundaries, initial conditions and dt rule;
// ghost faces are written by the explicit boundary step of ghost3d.hpp.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/core/decomposition.hpp"  // Box
#include "sim/core/ghost3d.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/models/heat2d/heat2d.hpp"  // Boundary, InitialCondition, Precision, kDefaultDtFraction
#include "sim/core/hostdevice.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

/// Kernel variants of heat 3D. GPU: global (one point per thread), shared3d (a 3D
/// tile plus halo in shared memory), stream25d (Micikevicius 2009: an xy tile in
/// shared memory, the z column in registers, the block marching along z).
/// CPU: cpu (shared point function) and reference (double, plain loops).
enum class Heat3DVariant { global, shared3d, stream25d, cpu, reference };
inline constexpr std::array kAllHeat3DVariants = {Heat3DVariant::global, Heat3DVariant::shared3d,
                                                  Heat3DVariant::stream25d, Heat3DVariant::cpu,
                                                  Heat3DVariant::reference};
inline constexpr std::array kGpuHeat3DVariants = {Heat3DVariant::global, Heat3DVariant::shared3d,
                                                  Heat3DVariant::stream25d};

std::string_view to_string(Heat3DVariant v);
/// Throws ss::Error naming the bad word and the accepted ones.
Heat3DVariant parse_heat3d_variant(std::string_view s);
bool is_gpu(Heat3DVariant v);

/// One separable mode: amplitude * sin(kx x + px) * sin(ky y + py) * sin(kz z + pz).
struct SineMode3D {
  double amplitude = 0, kx = 0, ky = 0, kz = 0, phase_x = 0, phase_y = 0, phase_z = 0;
};

/// T(x, y, z, t) = offset + sum_m A_m exp(-alpha |k_m|^2 t) prod sin(k x + p): an exact solution.
struct AnalyticHeat3D {
  double offset = 0;
  int modes = 0;
  std::array<SineMode3D, kMaxModes> mode{};

  double value(double x, double y, double z, double t, double alpha) const;
  double amplitude(int m, double t, double alpha) const;
};

/// The default analytic scene for a box lx-by-ly-by-lz: two modes.
AnalyticHeat3D default_analytic_heat3d(double lx, double ly, double lz);

struct Heat3DConfig {
  int nx = 256, ny = 256, nz = 256;  ///< interior cells per axis
  int order = 8;                     ///< 2, 4, 6 or 8
  double alpha = 1.0;                ///< diffusivity
  double lx = 1.0;                   ///< box width; h = lx / nx for every axis
  double dt = 0.0;                   ///< 0 picks kDefaultDtFraction of the stability limit
  Boundary boundary = Boundary::analytic;
  double fixed_value = 0.0;          ///< ghost value for Boundary::fixed
  InitialCondition initial = InitialCondition::analytic;
  std::uint32_t seed = 1;            ///< for hot-spots
};

struct Heat3DSetup {
  Heat3DConfig config;
  Grid3D grid;
  double h = 0, dt = 0, dt_limit = 0;
  AnalyticHeat3D analytic;

  double ly() const { return grid.ny * h; }
  double lz() const { return grid.nz * h; }
  double coord(int i) const { return (i + 0.5) * h; }
  /// alpha * dt / h^2: the weight of the Laplacian in one step.
  double courant() const { return config.alpha * dt / (h * h); }
};

/// Largest stable dt for explicit Euler: 2 / (alpha * rho * 3 / h^2), rho the
/// spectral radius of the 1D second-derivative stencil of this order.
double heat3d_dt_limit(int order, double alpha, double h);

/// How many planes each block of stream25d marches (a slab): `columns` xy tiles,
/// `resident` blocks at once on the device. Picks the slab count with the least
/// waves x (slab planes + kStream25SlabStart), as few slabs as that allows and
/// slabs of at least 16 planes (or nz): one slab when the tiles fill the device;
/// at 384 x 384 x 512 on an H100 (72 tiles, 132 SMs) 9 slabs instead of one wave
/// with 60 SMs idle.
int stream25d_slab_planes(long long columns, int nz, long long resident);
/// Whether stream25d's default shape runs its lean kernel on a device of this peak DRAM
/// bandwidth per SM (cuda_peak_gbps_per_sm): where the SM binds (above kSmBoundPeakGbpsPerSm,
/// the H200) fewer instructions a plane are worth 13-19% at 512^3; where DRAM binds (the
/// H100) the classic kernel is 1-10% faster (docs/perf.md, session 23).
bool heat3d_stream25d_lean(double peak_gbps_per_sm);
/// Whether stream25d's blocks take the tile columns from the middle one on (block x plus
/// half the columns, modulo them) on a device of this peak DRAM bandwidth per SM: where the
/// kernel is bound in the SM (the H200), as measured there in session 27. Under the
/// insulated rule at 512^3 the slowest blocks were x-face tiles on the two SMs whose TPC
/// partners the one wave of 128 tiles leaves idle, in every call; starting from the middle
/// puts interior tiles there: 6.471-6.482 ms for 20 steps against 6.553-6.562, the other
/// rules unchanged. Unmeasured on the H100, which keeps the left-first order.
bool heat3d_stream25d_tiles_from_middle(double peak_gbps_per_sm);
/// Who writes the face ghosts of the next step that stream25d copies under the analytic
/// rule (STENCILSCOPE_FACES): producer blocks on the SMs the tiles leave idle, or a kernel
/// of their own before each step, or (automatic, the default) the producers where
/// stream25d_face_producers says they keep up with the tiles.
enum class Heat3DFaceWriters { automatic, producers, kernel };
/// "auto", "producers" or "kernel"; anything else: nullopt.
std::optional<Heat3DFaceWriters> parse_heat3d_face_writers(std::string_view s);
/// Producer blocks for a stream25d step under Heat3DFaceWriters::automatic: the `idle` ones
/// (resident blocks the `tile_blocks` leave free, capped) where each producer's face cells
/// are at most 1.5 times a tile block's points, else none (the face kernel). At 512^3 the
/// ratio is 1 (4 producers, 128 tiles) and producers win or tie (H200: 0.82-0.83 of copy
/// against 0.81 for the face kernel); at 256^3 it is 2 and the face kernel wins (H200
/// 0.68-0.71 against 0.61-0.62, H100 1.31 ms against 1.49 for 20 steps; docs/perf.md,
/// session 24).
int stream25d_face_producers(long long face_cells, long long points, long long tile_blocks, long long idle);
/// The cost of starting a slab, in planes: it reads 2R planes around it again and
/// waits for its first planes (session 5's slab measurements at 512^3 give 4-10).
inline constexpr int kStream25SlabStart = 8;

/// Validates (order, sizes, alpha, dt against the limit) and derives the rest;
/// throws ss::Error with the offending value in the message.
Heat3DSetup make_heat3d_setup(const Heat3DConfig& config);

/// The heat 3D point update every variant computes:
///   T' = T + c (D2x(T) + D2y(T) + D2z(T)), each second difference accumulated on its own
/// row[m] = T(i + m - R, j, k), col[m] = T(i, j + m - R, k), dep[m] = T(i, j, k + m - R);
/// col[R] and dep[R] are not read. Fixed summation order, explicit FMAs.
template <typename T, int R>
SS_HD SS_FORCEINLINE T heat3d_point(const T (&row)[2 * R + 1], const T (&col)[2 * R + 1], const T (&dep)[2 * R + 1],
                                    T c) {
  constexpr auto w = second_derivative_weights<R>();
  const T centre = row[R];
  T sx = static_cast<T>(w[0]) * centre;
  T sy = sx, sz = sx;
SS_UNROLL
  for (int k = 1; k <= R; ++k) {
    sx = fma_t(static_cast<T>(w[k]), row[R - k] + row[R + k], sx);
    sy = fma_t(static_cast<T>(w[k]), col[R - k] + col[R + k], sy);
    sz = fma_t(static_cast<T>(w[k]), dep[R - k] + dep[R + k], sz);
  }
  return fma_t(c, sz, fma_t(c, sy, fma_t(c, sx, centre)));
}

/// Per-mode sine tables for the analytic ghosts, rounded to T: x tables, then y, then z.
template <typename T>
std::vector<T> analytic_tables3d(const Heat3DSetup& s);

/// The rule for writing a field at time t with tables laid out by analytic_tables3d at `tables`.
template <typename T>
GhostRule3D<T> make_ghost_rule3d(const Heat3DSetup& s, double t, const T* tables);

/// Writes the initial condition into the interior of `box` (cells of the global grid of
/// `s`) held in f with the box's layout `g`; ghosts are left as they are.
template <typename T>
void heat3d_initial_box(const Heat3DSetup& s, const Box& box, const Grid3D& g, T* f);

/// The initial field (grid.elements() values, ghost faces filled, the rest zero).
template <typename T>
std::vector<T> heat3d_initial_field(const Heat3DSetup& s);

}  // namespace ss
