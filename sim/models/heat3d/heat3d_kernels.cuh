#pragma once
// The heat 3D kernel family, templated on value type and stencil radius. Every
// variant gathers the three 2R+1 lines its own way and calls heat3d_point, so all
// write bitwise-identical fields. Interior only: global and shared3d read the
// ghost faces the separate boundary step (ghost3d_kernels.cuh) writes after each
// launch; stream25d applies the boundary rule itself while it stages planes, under
// every rule.
//   global    - one point per thread, neighbours straight from global memory
//   shared3d  - a 32x4x4 tile plus its cross-shaped halo staged in shared memory
//   stream25d - Micikevicius (2009): the z line in a register queue, the block
//               marching along z over a slab chosen at launch, the xy tile plus
//               halo of each plane staged in a shared ring with cp.async.
// This header holds the step arguments, global and shared3d; stream25d, its
// synchronisation helpers and the analytic face ghosts have headers of their own.
#include <cuda_pipeline.h>

#include <cstdint>
#include <optional>

#include "sim/core/cuda_check.cuh"
#include "sim/core/pack.cuh"
#include "sim/core/ghost3d.hpp"
#include "sim/models/heat3d/heat3d.hpp"

namespace ss {

template <typename T>
struct Heat3DStepArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid3D g;
  T c;  // alpha dt / h^2
  const T* faces = nullptr;  // stream25d, analytic rule: the x- and y-face ghosts of a.in's time (FaceGhosts)
  T* faces_next = nullptr;   // ... and where its producer blocks write those of a.out's time
  // stream25d's box form (kBox): the faces between ranks, whose ghosts the halo exchange
  // writes and the kernel reads from memory, bit 2 axis + side (1 x low, 2 x high, 4 y low,
  // ...); the domain's own faces it stages from the rule as on one GPU.
  unsigned memory_faces = 0;
  // stream25d: the blocks take the tile columns from the middle one on (block x + tiles_x / 2,
  // modulo tiles_x) instead of from the left face: which tiles land on which SMs, nothing else
  // (heat3d_stream25d_tiles_from_middle).
  bool x_tiles_from_middle = false;
};

// ---- global --------------------------------------------------------------
/// What a box's stream25d step keeps between steps under the analytic rule: whether
/// a.faces holds the face ghosts of a.in's time, and whether the step's producer blocks
/// wrote those of a.out's time into a.faces_next (heat3d_device.cu's FaceState).
struct Heat3DBoxFaces {
  bool ready = false;
  bool produced = false;
};

/// One stream25d step of a distributed run's box (heat3d_device.cu): the kernel's box form,
/// which reads the ghosts of the faces between ranks (a.memory_faces) from a.in's ghost frame
/// and stages the domain's own faces from the rule, as the one-GPU kernel stages all six.
/// `in_rule` and `out_rule` (device memory) are the rules at a.in's and a.out's time with
/// their tables moved to the box (index i + kGhost is global cell lo + i); under the analytic
/// rule `sine_modes` is its mode count and `faces` the state of a.faces / a.faces_next (null:
/// the kernel computes every ghost itself). The kernel is planned for `reserve` fewer
/// resident blocks than the device holds, leaving room for the halo exchange's kernels.
void launch_heat3d_stream25d_box(int order, const Heat3DStepArgs<float>& a, std::optional<int> sine_modes,
                                 const GhostRule3D<float>* in_rule, const GhostRule3D<float>* out_rule,
                                 Heat3DBoxFaces* faces, int reserve, cudaStream_t s);

inline constexpr int kHeatGlobalBX = 32, kHeatGlobalBY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kHeatGlobalBX* kHeatGlobalBY) heat3d_step_global(Heat3DStepArgs<T> a) {
  const int i = blockIdx.x * kHeatGlobalBX + threadIdx.x;
  const int j = blockIdx.y * kHeatGlobalBY + threadIdx.y;
  if (i >= a.g.nx || j >= a.g.ny) return;
  const std::ptrdiff_t pitch = a.g.pitch, plane = static_cast<std::ptrdiff_t>(a.g.plane());
  for (int k = blockIdx.z; k < a.g.nz; k += gridDim.z) {
    const T* p = a.in + a.g.index(i, j, k);
    T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
    for (int m = 0; m <= 2 * R; ++m) {
      row[m] = __ldg(p + (m - R));
      col[m] = __ldg(p + (m - R) * pitch);
      dep[m] = __ldg(p + (m - R) * plane);
    }
    a.out[a.g.index(i, j, k)] = heat3d_point<T, R>(row, col, dep, a.c);
  }
}

// ---- shared3d ------------------------------------------------------------
inline constexpr int kShared3BX = 32, kShared3BY = 4, kShared3BZ = 4;

template <typename T, int R>
__global__ void __launch_bounds__(kShared3BX* kShared3BY* kShared3BZ) heat3d_step_shared3d(Heat3DStepArgs<T> a) {
  constexpr int TX = kShared3BX + 2 * R, TY = kShared3BY + 2 * R, TZ = kShared3BZ + 2 * R;
  constexpr int NT = kShared3BX * kShared3BY * kShared3BZ;
  __shared__ T tile[TZ][TY][TX];
  const Grid3D& g = a.g;
  const int i0 = blockIdx.x * kShared3BX, j0 = blockIdx.y * kShared3BY;
  const int tid = (threadIdx.z * kShared3BY + threadIdx.y) * kShared3BX + threadIdx.x;
  const int zblocks = (g.nz + kShared3BZ - 1) / kShared3BZ;
  for (int bz = blockIdx.z; bz < zblocks; bz += gridDim.z) {
    const int k0 = bz * kShared3BZ;
    // Stage the core and the cross-shaped halo (edges and corners are never read).
    for (int e = tid; e < TX * TY * TZ; e += NT) {
      const int tx = e % TX, ty = (e / TX) % TY, tz = e / (TX * TY);
      const int outside = (tx < R || tx >= TX - R) + (ty < R || ty >= TY - R) + (tz < R || tz >= TZ - R);
      const int x = i0 - R + tx, y = j0 - R + ty, z = k0 - R + tz;
      if (outside <= 1 && x < g.nx + R && y < g.ny + R && z < g.nz + R) tile[tz][ty][tx] = a.in[g.index(x, y, z)];
    }
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y, k = k0 + threadIdx.z;
    if (i < g.nx && j < g.ny && k < g.nz) {
      const int cx = threadIdx.x + R, cy = threadIdx.y + R, cz = threadIdx.z + R;
      T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
      for (int m = 0; m <= 2 * R; ++m) {
        row[m] = tile[cz][cy][threadIdx.x + m];
        col[m] = tile[cz][threadIdx.y + m][cx];
        dep[m] = tile[threadIdx.z + m][cy][cx];
      }
      a.out[g.index(i, j, k)] = heat3d_point<T, R>(row, col, dep, a.c);
    }
    __syncthreads();
  }
}
}  // namespace ss

#include "sim/models/heat3d/heat3d_face_ghosts.cuh"
#include "sim/models/heat3d/heat3d_stream25d.cuh"
