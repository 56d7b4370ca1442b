#pragma once
// The analytic x- and y-face ghosts of heat 3D under the analytic rule, in the compact
// per-plane array stream25d copies into its ring: the layout (FaceGhosts), the writer
// shared by the face kernel and stream25d's producer blocks, and the face kernel.
#include <cstdint>

#include "sim/core/ghost3d.hpp"
#include "sim/core/pdl.cuh"
#include "sim/models/heat3d/heat3d.hpp"
#include "sim/models/heat3d/heat3d_sync.cuh"

namespace ss {

// The analytic ghosts of the x and y faces, per interior plane z, in one compact
// array that stream25d copies into its ring like image packs, so that no warp
// computes sines between two of its block barriers (computed there, they held
// the face blocks' warps back). The array of a step's input is written either
// by the face kernel (heat3d_face_ghosts_staged, up to four steps a launch) or by
// the previous step's producer blocks, on the SMs its tiles leave idle
// (Heat3DFaceWriters picks). On an H100 at 512^3, order 8, float:
// copy ratio 0.822-0.828 with producers, 0.818 with the face kernel before
// every step (11 us), 0.811 computing every ghost in the step (no array);
// periodic 0.860-0.868 in the same runs. Double 0.855.
// Plane z: the x ghosts of rows 0..ny-1, left then right (H columns each:
// -H..-1 and nx..nx+H-1), then the y ghost rows, below then above (R rows each:
// -R..-1 and ny..ny+R-1, columns 0..nxp-1), with the rounding of
// analytic_ghost_value3d, which stream25d's computed packs have too. Kept in the
// field's own ghost rows and row padding instead (so that they are copied like
// image packs, same code, same plane stride) they were slower in float: 0.80-0.81
// against 0.815-0.826 at 512^3, 0.58 against 0.65 at 256^3 (session 8).
template <typename T, int R>
struct FaceGhosts {
  static constexpr int W = Pack<T>::n;
  static constexpr int H = (R + W - 1) / W * W;  // x-halo columns per side, as Stream25Shape
  SS_HD static int nxp(const Grid3D& g) { return (g.nx + W - 1) / W * W; }
  SS_HD static std::ptrdiff_t plane(const Grid3D& g) { return 2LL * g.ny * H + 2LL * R * nxp(g); }
  SS_HD static std::ptrdiff_t x_ghost(const Grid3D& g, int x, int y) {  // x in [-H, 0) or [nx, nx + H)
    return (x < 0 ? static_cast<std::ptrdiff_t>(y) * H + (x + H) : (static_cast<std::ptrdiff_t>(g.ny) + y) * H + (x - g.nx));
  }
  SS_HD static std::ptrdiff_t y_ghost(const Grid3D& g, int x, int y) {  // y in [-R, 0) or [ny, ny + R)
    const int r = y < 0 ? y + R : R + y - g.ny;
    return 2LL * g.ny * H + static_cast<std::ptrdiff_t>(r) * nxp(g) + x;
  }
  static std::size_t elements_max(const Grid3D& g) {  // any T and R: H, R <= kGhost
    return static_cast<std::size_t>(g.nz) * (2ULL * g.ny * kGhost + 2ULL * kGhost * (g.nx + kGhost));
  }
};

// Writes face cells o = o_begin, o_begin + o_step, ... of planes z = z_begin,
// z_begin + z_step, ...: each thread walks the planes of its cells with the x-y
// product of each mode kept in a register (the (tx ty) tz rounding of
// analytic_ghost_value3d).
template <typename T, int R>
__device__ void write_face_ghosts(T* __restrict__ faces, const Grid3D& g, const GhostRule3D<T>& rule, int o_begin, int o_step,
                                  int z_begin, int z_step) {
  using F = FaceGhosts<T, R>;
  const int per_plane = static_cast<int>(F::plane(g)), xs = 2 * g.ny * F::H, nxp = F::nxp(g);
  const std::uint64_t keep = l2_evict_last_policy();
  const int modes = rule.modes;
  const T offset = rule.offset;
  for (int o = o_begin; o < per_plane; o += o_step) {
    int x, y;
    if (o < xs) {
      const bool right = o >= g.ny * F::H;
      const int r = right ? o - g.ny * F::H : o;
      y = r / F::H;
      x = right ? g.nx + r % F::H : r % F::H - F::H;
    } else {
      const int row = (o - xs) / nxp;
      x = o - xs - row * nxp;
      y = row < R ? row - R : g.ny + row - R;
    }
    T amp[kMaxModes], xy[kMaxModes];
    const T* tz[kMaxModes];
#pragma unroll
    for (int m = 0; m < kMaxModes; ++m)
      if (m < modes) {
        amp[m] = rule.amplitude[m];
        xy[m] = rule.table_x[m][x + kGhost] * rule.table_y[m][y + kGhost];
        tz[m] = rule.table_z[m] + kGhost;
      }
    for (int z = z_begin; z < g.nz; z += z_step) {
      T v = offset;
#pragma unroll
      for (int m = 0; m < kMaxModes; ++m)
        if (m < modes) v = fma_t(amp[m], xy[m] * tz[m][z], v);
      store_l2_hint(faces + static_cast<std::ptrdiff_t>(z) * per_plane + o, v, keep);
    }
  }
}

// The face ghosts of one time in a kernel of their own: cells along x of the grid,
// planes along y, each thread walking its planes. Replaced by heat3d_face_ghosts_staged
// below; kept for A/B runs (STENCILSCOPE_FACE_KERNEL=walk).
template <typename T, int R>
__global__ void heat3d_face_ghosts(T* __restrict__ faces, Grid3D g, const GhostRule3D<T>* __restrict__ rule) {
  write_face_ghosts<T, R>(faces, g, *rule, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x, blockIdx.y,
                          gridDim.y);
}

// The face kernel with each block's z tables staged in shared memory (session 24): block
// (bx, by, j) writes the face ghosts of the time of rules[j] into slot (first_slot + j) %
// slots of `faces` (slot_stride values apart): cells o = bx 256 + thread of planes by kFaceZB
// .. by kFaceZB + kFaceZB - 1 (then further planes by gridDim.y kFaceZB). Its plane loop is
// shared loads, fused multiply-adds and stores, with no global load to wait for (the walking
// kernel above waited for table_z at every plane: 7-8 us of a 256^3 step, 4 MB, on an H100
// under ncu), and one launch writes the faces of several steps ahead (gridDim.z). The rounding
// of write_face_ghosts.
inline constexpr int kFaceZB = 16;
inline constexpr int kFaceThreads = 256;
template <typename T, int R>
__global__ void __launch_bounds__(kFaceThreads)
    heat3d_face_ghosts_staged(T* __restrict__ faces_base, std::ptrdiff_t slot_stride, int first_slot, int slots, Grid3D g,
                              const GhostRule3D<T>* __restrict__ rules) {
  const GhostRule3D<T>* rule = rules + blockIdx.z;
  T* __restrict__ faces = faces_base + static_cast<std::ptrdiff_t>((first_slot + static_cast<int>(blockIdx.z)) % slots) * slot_stride;
  using F = FaceGhosts<T, R>;
  __shared__ T tz[kMaxModes][kFaceZB];
  const int per_plane = static_cast<int>(F::plane(g)), xs = 2 * g.ny * F::H, nxp = F::nxp(g);
  const int o = blockIdx.x * kFaceThreads + threadIdx.x;
  const int modes = rule->modes;
  int x = 0, y = 0;
  if (o < xs) {
    const bool right = o >= g.ny * F::H;
    const int r = right ? o - g.ny * F::H : o;
    y = r / F::H;
    x = right ? g.nx + r % F::H : r % F::H - F::H;
  } else if (o < per_plane) {
    const int row = (o - xs) / nxp;
    x = o - xs - row * nxp;
    y = row < R ? row - R : g.ny + row - R;
  }
  T amp[kMaxModes] = {}, xy[kMaxModes] = {};
#pragma unroll
  for (int m = 0; m < kMaxModes; ++m)
    if (m < modes && o < per_plane) {
      amp[m] = rule->amplitude[m];
      xy[m] = rule->table_x[m][x + kGhost] * rule->table_y[m][y + kGhost];
    }
  const T offset = rule->offset;
  const std::uint64_t keep = l2_evict_last_policy();
  // Under a programmatic dependent launch (sim/core/pdl.cuh): the step after this kernel may be
  // scheduled once every block of it has started; this kernel overwrites the slot the step
  // before it reads, so it waits for that step first (and so the step after it, waiting for
  // this kernel, waits for that one too).
  pdl_trigger();
  pdl_wait();
  for (int z0 = blockIdx.y * kFaceZB; z0 < g.nz; z0 += gridDim.y * kFaceZB) {
    const int zn = min(kFaceZB, g.nz - z0);
    __syncthreads();  // the previous chunk's tables read
    for (int e = threadIdx.x; e < modes * kFaceZB; e += kFaceThreads) {
      const int m = e / kFaceZB, k = e % kFaceZB;
      if (k < zn) tz[m][k] = rule->table_z[m][z0 + k + kGhost];
    }
    __syncthreads();
    if (o >= per_plane) continue;
    T* out = faces + static_cast<std::ptrdiff_t>(z0) * per_plane + o;
#pragma unroll 4
    for (int k = 0; k < zn; ++k) {
      T v = offset;
#pragma unroll
      for (int m = 0; m < kMaxModes; ++m)
        if (m < modes) v = fma_t(amp[m], xy[m] * tz[m][k], v);
      store_l2_hint(out + static_cast<std::ptrdiff_t>(k) * per_plane, v, keep);
    }
  }
}

}  // namespace ss
