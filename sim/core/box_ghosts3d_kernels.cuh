#pragma once
// The boundary step of one rank's box on the GPU: fill_box_ghosts3d_host's contract
// (ghost3d.hpp) in one launch. It writes the `width` ghost layers of the faces marked as
// the domain's own, each cell with ghost_value3d at its global index (the analytic rule's
// tables are the whole grid's) from the same image cell as the host step, so a box on the
// GPU gets the bits the whole grid's boundary step gives those cells. Faces between ranks
// are the halo exchange's and are left as they are; edges and corners are not written.
#include <algorithm>
#include <array>

#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"

namespace ss {

/// The marked faces as a kernel argument: per face (axis, end) its first cell, extent and
/// the running count of cells before it.
struct BoxGhostFaces {
  int count = 0;
  int axis[6] = {};
  int end[6] = {};
  int from[6][3] = {};
  int n[6][3] = {};
  long long first[7] = {};  ///< first[f]: cells of the faces before f; first[count]: all
};

/// The domain faces of a box of layout `g` marked in `faces`, `width` layers each.
inline BoxGhostFaces box_ghost_faces(const Grid3D& g, const std::array<std::array<bool, 2>, 3>& faces, int width) {
  BoxGhostFaces b;
  const int ext[3] = {g.nx, g.ny, g.nz};
  for (int axis = 0; axis < 3; ++axis)
    for (int end = 0; end < 2; ++end) {
      if (!faces[static_cast<std::size_t>(axis)][static_cast<std::size_t>(end)]) continue;
      const int f = b.count++;
      b.axis[f] = axis;
      b.end[f] = end;
      long long cells = 1;
      for (int a = 0; a < 3; ++a) {
        b.from[f][a] = a != axis ? 0 : end == 0 ? -width : ext[a];
        b.n[f][a] = a != axis ? ext[a] : width;
        cells *= b.n[f][a];
      }
      b.first[f + 1] = b.first[f] + cells;
    }
  return b;
}

template <typename T>
__global__ void fill_box_ghosts3d_kernel(T* f, Grid3D g, BoxGhostFaces faces, int lo_x, int lo_y, int lo_z,
                                         const GhostRule3D<T>* rule_ptr) {
  const GhostRule3D<T>& r = *rule_ptr;
  const bool wrap = r.boundary == Boundary::periodic;
  const int ext[3] = {g.nx, g.ny, g.nz};
  const long long total = faces.first[faces.count];
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    int q = 0;
    while (e >= faces.first[q + 1]) ++q;
    const long long local = e - faces.first[q];
    const int i = faces.from[q][0] + static_cast<int>(local % faces.n[q][0]);
    const long long rest = local / faces.n[q][0];
    const int j = faces.from[q][1] + static_cast<int>(rest % faces.n[q][1]);
    const int k = faces.from[q][2] + static_cast<int>(rest / faces.n[q][1]);
    int src[3] = {i, j, k};
    const int a = faces.axis[q], side = ext[a], gi = src[a];
    // The interior cell the ghost takes its value from, as fill_box_ghosts3d_host's image().
    src[a] = wrap ? (gi < 0 ? gi + side : gi - side) : (gi < 0 ? -1 - gi : 2 * side - 1 - gi);
    f[g.index(i, j, k)] = ghost_value3d(r, i + lo_x, j + lo_y, k + lo_z, f[g.index(src[0], src[1], src[2])]);
  }
}

/// Enqueues the box's boundary step on `s`; `rule` points to device memory (its tables too).
template <typename T>
inline void launch_fill_box_ghosts3d(T* f, const Grid3D& g, const std::array<int, 3>& lo, const BoxGhostFaces& faces,
                                     const GhostRule3D<T>* rule, cudaStream_t s) {
  const long long cells = faces.first[faces.count];
  if (cells == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<long long>(blocks_for(cells, 256), 4096));
  fill_box_ghosts3d_kernel<T><<<blocks, 256, 0, s>>>(f, g, faces, lo[0], lo[1], lo[2], rule);
  SS_CUDA_LAUNCH_CHECK("fill_box_ghosts3d_kernel");
}

}  // namespace ss
