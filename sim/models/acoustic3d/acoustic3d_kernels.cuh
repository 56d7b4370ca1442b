#pragma once
// The acoustic 3D kernel family, templated on value type and stencil radius. Both
// variants gather the three 2R+1 lines their own way and call acoustic3d_point, so they
// write the same bits as the `cpu` variant. They read the ghost faces of p that the
// boundary step (acoustic3d_ghosts) wrote after the previous step.
//   global    - one point per thread, neighbours straight from global memory
//   stream25d - Micikevicius (2009) with the planes in a shared ring. Its default shapes
//               are the packed kernel of acoustic3d_stream25d.cuh (heat 3D's ring); the
//               `scalar` shape (Acoustic3DStreamShape) is the kernel below: a 32x16 xy
//               tile plus halo, 2R + 2 planes, filled by cp.async one plane ahead, the block
//               marching along z over a slab of planes, one barrier per plane.
// The minimal traffic per node and step: p, p_prev and (v dt/h)^2 read once, p_next
// written once (16 bytes in float); the damping tables are nx + ny + nz values.
// Under cpml both variants run the interior unchanged (damping 1) and then the two CPML
// passes below over the layer nodes only, the same point functions as the `cpu` variant.
#include <cuda_pipeline.h>

#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"  // ghost_face_cells
#include "sim/core/slice3d.hpp"  // CellBox
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

template <typename T>
struct Acoustic3DStepArgs {
  const T* __restrict__ p;      // p^n (ghost faces written)
  const T* __restrict__ prev;   // p^{n-1}
  const T* __restrict__ c2;     // (v dt / h)^2 per node
  const T* __restrict__ damp;   // damping tables: x (nx), y (ny), z (nz)
  T* __restrict__ out;          // p^{n+1}
  Grid3D g;
};

// ---- global --------------------------------------------------------------
inline constexpr int kAcousticGlobalBX = 32, kAcousticGlobalBY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kAcousticGlobalBX* kAcousticGlobalBY) acoustic3d_step_global(Acoustic3DStepArgs<T> a) {
  const Grid3D& g = a.g;
  const int i = blockIdx.x * kAcousticGlobalBX + threadIdx.x;
  const int j = blockIdx.y * kAcousticGlobalBY + threadIdx.y;
  if (i >= g.nx || j >= g.ny) return;
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  const T damp_xy = __ldg(a.damp + i) * __ldg(a.damp + g.nx + j);
  for (int k = blockIdx.z; k < g.nz; k += gridDim.z) {
    const std::size_t e = g.index(i, j, k);
    const T* c = a.p + e;
    T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
    for (int m = 0; m <= 2 * R; ++m) {
      row[m] = __ldg(c + (m - R));
      col[m] = __ldg(c + (m - R) * pitch);
      dep[m] = __ldg(c + (m - R) * plane);
    }
    const T damp = damp_xy * __ldg(a.damp + g.nx + g.ny + k);
    a.out[e] = acoustic3d_point<T, R>(row, col, dep, __ldg(a.prev + e), __ldg(a.c2 + e), damp);
  }
}

// ---- stream25d -----------------------------------------------------------
inline constexpr int kAcoustic25BX = 32, kAcoustic25BY = 16;  // 32x16: the halo of R = 4 is 1.9 planes per plane, not 2.5

/// stream25d's ring: 2R + 2 planes of the 32x16 tile plus halo (the 2R + 1 the stencil
/// reads and the one arriving), in dynamic shared memory.
template <typename T, int R>
struct Acoustic25Shape {
  static constexpr int SX = kAcoustic25BX + 2 * R, SY = kAcoustic25BY + 2 * R, plane = SX * SY;
  static constexpr int threads = kAcoustic25BX * kAcoustic25BY, loads = (plane + threads - 1) / threads;
  static constexpr int RING = 2 * R + 2;
  static constexpr std::size_t smem_bytes = sizeof(T) * RING * plane;
};

/// Planes arrive by cp.async one plane ahead of the one computed, into a ring that also
/// serves the z line (no register queue); one block barrier per plane. Cells of a plane
/// past the ghost faces are not fetched (only threads outside the interior would read them).
template <typename T, int R>
__global__ void __launch_bounds__(kAcoustic25BX* kAcoustic25BY)
    acoustic3d_step_stream25d(Acoustic3DStepArgs<T> a, int slab) {
  using S = Acoustic25Shape<T, R>;
  constexpr int BX = kAcoustic25BX, BY = kAcoustic25BY, Q = 2 * R + 1, RING = S::RING, L = S::loads;
  extern __shared__ __align__(16) unsigned char acoustic_smem[];
  T* ring = reinterpret_cast<T*>(acoustic_smem);
  const Grid3D& g = a.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int i0 = blockIdx.x * BX, j0 = blockIdx.y * BY;
  const int i = i0 + tx, j = j0 + ty;
  const int k0 = blockIdx.z * slab, k1 = min(k0 + slab, g.nz);
  const bool inside = i < g.nx && j < g.ny;
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());
  std::ptrdiff_t src[L];  // the plane cells this thread fetches, as offsets within a plane
  bool mine[L];
#pragma unroll
  for (int m = 0; m < L; ++m) {
    const int e = tid + m * S::threads, yy = e / S::SX, xx = e % S::SX;
    const int x = i0 + xx - R, y = j0 + yy - R;
    mine[m] = e < S::plane && x < g.nx + R && y < g.ny + R;
    src[m] = mine[m] ? static_cast<std::ptrdiff_t>(g.index(x, y, 0)) : 0;
  }
  auto slot = [](int z) { return (z + 4 * RING) % RING; };
  auto fetch = [&](int z) {
    T* dst = ring + slot(z) * S::plane;
    const T* base = a.p + z * plane;
#pragma unroll
    for (int m = 0; m < L; ++m)
      if (mine[m]) __pipeline_memcpy_async(dst + tid + m * S::threads, base + src[m], sizeof(T));
  };
  for (int z = k0 - R; z <= k0 + R; ++z) fetch(z);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  const T damp_xy = inside ? a.damp[i] * a.damp[g.nx + j] : T(0);
  const int centre = (ty + R) * S::SX + tx + R;
  for (int k = k0; k < k1; ++k) {
    if (k + 1 < k1) fetch(k + R + 1);  // the next plane, while this one is computed
    __pipeline_commit();
    if (inside) {
      const std::size_t e = g.index(i, j, k);
      const T prev = a.prev[e], c2 = a.c2[e];
      const T* mid = ring + slot(k) * S::plane + centre;
      T row[Q], col[Q], dep[Q];
#pragma unroll
      for (int m = 0; m < Q; ++m) {
        row[m] = mid[m - R];
        col[m] = mid[(m - R) * S::SX];
        dep[m] = ring[slot(k + m - R) * S::plane + centre];
      }
      a.out[e] = acoustic3d_point<T, R>(row, col, dep, prev, c2, damp_xy * a.damp[g.nx + g.ny + k]);
    }
    __pipeline_wait_prior(0);
    __syncthreads();  // the plane arrived; nobody reads the slot the next fetch overwrites
  }
}

// ---- after the interior update -------------------------------------------

/// CPML pass 1: psi of every slab node (reads p^n). `layers` enumerates the nodes
/// (CpmlLayout::node on g): the whole grid's layout on one GPU, the box's layer nodes
/// (acoustic_cpml_box_layout) on a box; m (AcousticCpml or AcousticCpmlBox) says where each
/// node's psi and coefficients are.
template <typename T, int R, typename M>
__global__ void acoustic3d_cpml_psi_kernel(const T* __restrict__ p, M m, CpmlLayout layers, Grid3D g, long long nodes) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < nodes;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    int i, j, k;
    layers.node(g, e, i, j, k);
    acoustic3d_cpml_psi<T, R>(p, m, g, i, j, k);
  }
}

/// CPML pass 2: zeta and the correction of p^{n+1} at every slab node (after pass 1, and on
/// a box after psi's exchange); the nodes as for pass 1.
template <typename T, int R, typename M>
__global__ void acoustic3d_cpml_correct_kernel(const T* __restrict__ p, const T* __restrict__ c2, T* out, M m,
                                               CpmlLayout layers, Grid3D g, long long nodes) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < nodes;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    int i, j, k;
    layers.node(g, e, i, j, k);
    const std::size_t at = g.index(i, j, k);
    out[at] = fma_t(c2[at], acoustic3d_cpml_term<T, R>(p, m, g, i, j, k), out[at]);
  }
}

/// Adds the sources of the step (a list by value), thread r for source r: the first source
/// of each node adds every source there in list order (acoustic_add_sources), as the host.
template <typename T>
__global__ void acoustic3d_inject(T* out, AcousticSourceStep<T> sources) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= sources.n || !acoustic_source_owner(sources, r)) return;
  const long long at = sources.at[r];
  out[at] = acoustic_add_sources(out[at], at, sources);
}

/// Copies p at the n receivers (padded indices) into one trace row.
template <typename T>
__global__ void acoustic3d_record(const T* __restrict__ p, const long long* __restrict__ at, int n, T* row) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) row[r] = p[at[r]];
}

/// The boundary step: ghost face cells first .. first + n - 1 of f (write_acoustic_ghost's
/// numbering; all of them: 0 .. ghost_face_cells(g) - 1).
template <typename T>
__global__ void acoustic3d_ghosts(T* f, Grid3D g, AcousticGhostRule r, long long first, long long n) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_acoustic_ghost(f, g, first + e, r);
}

/// Adds `add` (the box's cells, x fastest) to p and p_prev over the cell box b.
template <typename T>
__global__ void acoustic3d_add_box(T* p, T* p_prev, Grid3D g, CellBox b, const T* add) {
  const int wx = b.hi[0] - b.lo[0] + 1, wy = b.hi[1] - b.lo[1] + 1, wz = b.hi[2] - b.lo[2] + 1;
  const long long n = static_cast<long long>(wx) * wy * wz;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = b.lo[0] + static_cast<int>(e % wx), j = b.lo[1] + static_cast<int>(e / wx % wy);
    const int k = b.lo[2] + static_cast<int>(e / (static_cast<long long>(wx) * wy));
    const std::size_t at = g.index(i, j, k);
    p[at] = p[at] + add[e];
    p_prev[at] = p_prev[at] + add[e];
  }
}

}  // namespace ss
