#pragma once
// The boundary step of one rank's box on the GPU: fill_box_ghosts3d_host's contract
// (ghost3d.hpp) in one launch. It writes the `width` ghost layers of the faces marked as
// the domain's own, each cell with ghost_value3d at its global index (the analytic rule's
// tables are the whole grid's) from the same image cell as the host step, so a box on the
// GPU gets the bits the whole grid's boundary step gives those cells. Faces between ranks
// are the halo exchange's and are left as they are; edges and corners are not written.
#include <algorithm>
#include <array>

#include "sim/core/box_regions.hpp"  // BoxGhostFaces, box_ghost_faces
#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"

namespace ss {

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
