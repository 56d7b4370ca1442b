#pragma once
// Ghost faces of a 3D field, written by an explicit boundary step after each
// interior update (never inlined into the stencil kernels; heat 3D's stream25d
// computes the same values with the same rounding while it stages its planes).
// Host and device run the same SS_HD functions below, so both write the same bits.
//   periodic  - ghosts hold the interior wrapped around
//   fixed     - ghosts hold a constant (Dirichlet)
//   insulated - ghosts mirror the interior about the cell face (zero flux)
//   analytic  - ghosts hold an exact separable solution, from per-axis tables
// Only the six faces are written: a cross-shaped stencil never reads edges or
// corners of the ghost frame, and those cells are left as they are.
#include <array>
#include <vector>

#include "sim/core/grid3d.hpp"
#include "sim/models/heat2d/heat2d.hpp"  // Boundary, kMaxModes
#include "sim/core/hostdevice.hpp"

namespace ss {

/// How the boundary step writes ghost faces, in the value type of the field. For
/// Boundary::analytic it holds per-mode sine tables over [-kGhost, n + kGhost) for
/// each axis and the mode amplitudes at the time of the field being written.
/// Kernels read it through a pointer to device memory (its arrays are indexed by
/// a runtime mode count).
template <typename T>
struct GhostRule3D {
  Boundary boundary = Boundary::periodic;
  T fixed_value = 0;
  int modes = 0;
  T offset = 0;
  T amplitude[kMaxModes] = {};
  const T* table_x[kMaxModes] = {};  ///< sin(kx x_i + px), index i + kGhost
  const T* table_y[kMaxModes] = {};  ///< sin(ky y_j + py), index j + kGhost
  const T* table_z[kMaxModes] = {};  ///< sin(kz z_k + pz), index k + kGhost
};

/// Exact solution at cell (i, j, k) from the rule's tables (same rounding on host and device).
template <typename T>
SS_HD SS_FORCEINLINE T analytic_ghost_value3d(const GhostRule3D<T>& r, int i, int j, int k) {
  T v = r.offset;
  for (int m = 0; m < r.modes; ++m)
    v = fma_t(r.amplitude[m], (r.table_x[m][i + kGhost] * r.table_y[m][j + kGhost]) * r.table_z[m][k + kGhost], v);
  return v;
}

/// Value ghost cell (gi, gj, gk) takes when its image is an interior cell holding v.
template <typename T>
SS_HD SS_FORCEINLINE T ghost_value3d(const GhostRule3D<T>& r, int gi, int gj, int gk, T v) {
  switch (r.boundary) {
    case Boundary::fixed: return r.fixed_value;
    case Boundary::analytic: return analytic_ghost_value3d(r, gi, gj, gk);
    default: return v;
  }
}

/// Index of the ghost cell whose image is interior index i (i < kGhost or i >= n - kGhost)
/// along an axis of n cells: periodic wraps, every other rule mirrors about the face.
SS_HD SS_FORCEINLINE int ghost_of(int i, int n, bool wrap) {
  return i < kGhost ? (wrap ? i + n : -1 - i) : (wrap ? i - n : 2 * n - 1 - i);
}

/// Number of ghost cells the boundary step writes: 2 kGhost (ny nz + nx nz + nx ny).
SS_HD inline long long ghost_face_cells(const Grid3D& g) {
  return 2LL * kGhost *
         (static_cast<long long>(g.ny) * g.nz + static_cast<long long>(g.nx) * g.nz + static_cast<long long>(g.nx) * g.ny);
}

/// Writes face cell e in [0, ghost_face_cells): first the x faces (2 kGhost images
/// per interior row), then the y faces and the z faces (x fastest, so consecutive
/// e touch consecutive addresses). One call per cell, any order: this is the whole
/// boundary step.
template <typename T>
SS_HD SS_FORCEINLINE void write_ghost_face_cell(T* f, const Grid3D& g, long long e, const GhostRule3D<T>& r) {
  constexpr int G2 = 2 * kGhost;
  const bool wrap = r.boundary == Boundary::periodic;
  const long long x_cells = static_cast<long long>(G2) * g.ny * g.nz;
  const long long y_cells = static_cast<long long>(G2) * g.nx * g.nz;
  if (e < x_cells) {
    const long long row = e / G2;
    const int m = static_cast<int>(e - row * G2);
    const int j = static_cast<int>(row % g.ny), k = static_cast<int>(row / g.ny);
    const int i = m < kGhost ? m : g.nx - G2 + m;
    const int gi = ghost_of(i, g.nx, wrap);
    f[g.index(gi, j, k)] = ghost_value3d(r, gi, j, k, f[g.index(i, j, k)]);
    return;
  }
  e -= x_cells;
  if (e < y_cells) {
    const long long rest = e / g.nx;
    const int i = static_cast<int>(e - rest * g.nx);
    const int m = static_cast<int>(rest % G2), k = static_cast<int>(rest / G2);
    const int j = m < kGhost ? m : g.ny - G2 + m;
    const int gj = ghost_of(j, g.ny, wrap);
    f[g.index(i, gj, k)] = ghost_value3d(r, i, gj, k, f[g.index(i, j, k)]);
    return;
  }
  e -= y_cells;
  const long long rest = e / g.nx;
  const int i = static_cast<int>(e - rest * g.nx);
  const int j = static_cast<int>(rest % g.ny), m = static_cast<int>(rest / g.ny);
  const int k = m < kGhost ? m : g.nz - G2 + m;
  const int gk = ghost_of(k, g.nz, wrap);
  f[g.index(i, j, gk)] = ghost_value3d(r, i, j, gk, f[g.index(i, j, k)]);
}

/// The boundary step on the host: writes every ghost face cell of f from its interior.
template <typename T>
void fill_ghosts3d_host(T* f, const Grid3D& g, const GhostRule3D<T>& r);

/// The boundary step of one rank's box in a distributed run (decomposition.hpp): writes
/// the `width` ghost layers of the faces marked in `faces` ([axis][0: low, 1: high]), the
/// domain's own faces, with the values the whole grid's boundary step gives those cells.
/// f has the box's layout `g`; `lo` is the box's first cell in the global grid, which is
/// how the analytic rule's tables (the global grid's) are indexed. Periodic wraps within
/// the box, so it may only mark an axis the box spans whole. Faces between ranks are the
/// halo exchange's and are left as they are.
template <typename T>
void fill_box_ghosts3d_host(T* f, const Grid3D& g, const std::array<int, 3>& lo,
                            const std::array<std::array<bool, 2>, 3>& faces, int width, const GhostRule3D<T>& r);

/// A rule for the periodic, fixed and insulated boundaries (the analytic one needs tables).
template <typename T>
GhostRule3D<T> simple_ghost_rule3d(Boundary b, T fixed_value = T(0)) {
  GhostRule3D<T> r;
  r.boundary = b;
  r.fixed_value = fixed_value;
  return r;
}

/// The interior of a padded field, x fastest: nx*ny*nz values.
template <typename T>
std::vector<T> extract_interior3d(const std::vector<T>& field, const Grid3D& g);

}  // namespace ss
