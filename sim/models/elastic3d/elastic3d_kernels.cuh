#pragma once
// The elastic 3D kernel family, templated on value type and stencil radius. Every kernel
// computes through the point functions of elastic3d.hpp, as the `cpu` variant does, so
// every GPU variant writes the same bits as it.
//   steps - Weiss & Shragge's nine kernels: strains (6 arrays), stresses (6 arrays),
//           stress source, stress ghosts (free surface), accelerations (3 arrays), force
//           source, update, Clayton-Engquist, u ghosts and receivers
//   fused - stresses from u per point (strains in registers) written once, the stress
//           source and ghosts, then one kernel for the divergence, the force source and
//           the update; then Clayton-Engquist, u ghosts and receivers
//   stream25d - elastic3d_stream25d.cuh: one kernel per step, the tile in shared memory
// One point per thread (x, y from the block, a loop over z planes). Under cpml both run
// the CPML's two passes (elastic3d.hpp) over the layer nodes only: the stress pass after
// the stresses, the update pass after the update.
#include "sim/core/box_regions.hpp"  // CellRegionList
#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"  // ghost_face_cells
#include "sim/core/slice3d.hpp"  // CellBox
#include "sim/models/elastic3d/elastic3d.hpp"

namespace ss {

/// Device pointers to the medium (padded layout).
template <typename T>
struct ElasticMediumPtrs {
  const T *c11, *c13, *c33, *c44, *c66, *q;
};

template <typename T>
struct ElasticFields3 {
  T* c[3];
};
template <typename T>
struct ElasticFields6 {
  T* c[6];
};

inline constexpr int kElasticBX = 32, kElasticBY = 4;

/// The nodes a point kernel steps: the whole interior (a launch of point_grid: x and y from
/// the block, a loop over z planes), or the regions of a CellRegionList made for
/// kElasticBX * kElasticBY threads (a launch of list.blocks() blocks: a GPU box's shells or
/// core, elastic3d_box_device.cu).
struct ElasticCells {
  bool whole = true;
  CellRegionList list;
};

/// Where a source or Clayton-Engquist kernel writes: every node (0), only the nodes inside
/// the region (1) or only those outside it (2). A GPU box that overlaps its exchange writes
/// its shells' nodes first and its core's later, each in the order of one GPU.
struct ElasticPart {
  int mode = 0;
  int lo[3] = {};
  int n[3] = {};
  SS_HD bool takes(int i, int j, int k) const {
    if (mode == 0) return true;
    const bool in = i >= lo[0] && i < lo[0] + n[0] && j >= lo[1] && j < lo[1] + n[1] && k >= lo[2] && k < lo[2] + n[2];
    return in == (mode == 1);
  }
};

/// Loops over the points the block's threads own (see ElasticCells).
#define SS_ELASTIC_POINTS(g, cells)                                                     \
  int i_ = 0, j_ = 0, k_first = 0, k_end = 0, k_step = 1;                               \
  if ((cells).whole) {                                                                  \
    i_ = blockIdx.x * kElasticBX + threadIdx.x;                                         \
    j_ = blockIdx.y * kElasticBY + threadIdx.y;                                         \
    if (i_ >= (g).nx || j_ >= (g).ny) return;                                           \
    k_first = blockIdx.z, k_end = (g).nz, k_step = gridDim.z;                           \
  } else {                                                                              \
    if (!region_tile_cell((cells).list, blockIdx.x, threadIdx.y * kElasticBX + threadIdx.x, i_, j_, k_first)) \
      return;                                                                           \
    k_end = k_first + 1;                                                                \
  }                                                                                     \
  const int i = i_, j = j_;                                                             \
  const std::ptrdiff_t pitch = (g).pitch;                                               \
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>((g).plane());                \
  (void)pitch, (void)plane;                                                             \
  for (int k = k_first; k < k_end; k += k_step)

// ---- steps ----------------------------------------------------------------------

/// 1: strains.
template <typename T, int R>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_strain(const T* __restrict__ ux, const T* __restrict__ uy, const T* __restrict__ uz,
                     ElasticFields6<T> strain, Grid3D g, ElasticCells cells = {}) {
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    const Strain6<T> s = elastic_strain_at<T, R>(ux, uy, uz, e, pitch, plane);
    strain.c[0][e] = s.xx, strain.c[1][e] = s.yy, strain.c[2][e] = s.zz;
    strain.c[3][e] = s.xy, strain.c[4][e] = s.xz, strain.c[5][e] = s.yz;
  }
}

/// 2: stresses from strains (the free surface's plane stress on k = 0).
template <typename T>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_stress(ElasticFields6<T> strain, ElasticMediumPtrs<T> m, ElasticFields6<T> stress, Grid3D g,
                     bool free_top, ElasticCells cells = {}) {
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    const Strain6<T> s{strain.c[0][e], strain.c[1][e], strain.c[2][e], strain.c[3][e], strain.c[4][e], strain.c[5][e]};
    const Stress6<T> o = elastic_stress(s, VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]}, free_top && k == 0);
    stress.c[0][e] = o.xx, stress.c[1][e] = o.yy, stress.c[2][e] = o.zz;
    stress.c[3][e] = o.xy, stress.c[4][e] = o.xz, stress.c[5][e] = o.yz;
  }
}

/// 5: accelerations (the unit-spacing stress divergence).
template <typename T, int R>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_divergence(ElasticFields6<T> stress, ElasticFields3<T> accel, Grid3D g, ElasticCells cells = {}) {
  const T* const s[6] = {stress.c[0], stress.c[1], stress.c[2], stress.c[3], stress.c[4], stress.c[5]};
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    T a[3];
    elastic_divergence_at<T, R>(s, e, pitch, plane, a);
    accel.c[0][e] = a[0], accel.c[1][e] = a[1], accel.c[2][e] = a[2];
  }
}

/// The source box's nodes: thread b owns box entry b; false outside the grid.
SS_HD SS_FORCEINLINE bool source_box_node(int b, int sx, int sy, int sz, const Grid3D& g, int& i, int& j, int& k) {
  constexpr int W = 2 * kSourceRadius + 1;
  i = sx + b % W - kSourceRadius;
  j = sy + b / W % W - kSourceRadius;
  k = sz + b / (W * W) - kSourceRadius;
  return i >= 0 && i < g.nx && j >= 0 && j < g.ny && k >= 0 && k < g.nz;
}
inline constexpr int kSourceBoxNodes = (2 * kSourceRadius + 1) * (2 * kSourceRadius + 1) * (2 * kSourceRadius + 1);

/// 6: the force sources (a list by value) over their boxes: thread (r, b) owns entry b of
/// source r's box unless an earlier source's box holds the node, and adds every source
/// of the node in list order (elastic_add_forces), as the host.
template <typename T>
__global__ void elastic3d_force_source(ElasticFields3<T> accel, Grid3D g, ElasticForceStep<T> l, const T* __restrict__ w,
                                       ElasticPart part = {}) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  int i, j, k;
  if (b >= kSourceBoxNodes || !source_box_node(b, l.node[r][0], l.node[r][1], l.node[r][2], g, i, j, k)) return;
  if (!part.takes(i, j, k) || !elastic_source_owner(l, r, i, j, k)) return;
  const std::size_t at = g.index(i, j, k);
  T a[3] = {accel.c[0][at], accel.c[1][at], accel.c[2][at]};
  elastic_add_forces(l, i, j, k, w, a);
  accel.c[0][at] = a[0], accel.c[1][at] = a[1], accel.c[2][at] = a[2];
}

/// 7: the update with the sponge's damping.
template <typename T>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_update(ElasticFields3<T> cur, ElasticFields3<T> prev, ElasticFields3<T> accel, const T* __restrict__ q,
                     const T* __restrict__ damp, ElasticFields3<T> out, Grid3D g, ElasticCells cells = {}) {
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    const T d = (damp[i] * damp[g.nx + j]) * damp[g.nx + g.ny + k];
#pragma unroll
    for (int c = 0; c < 3; ++c) out.c[c][e] = elastic_update(cur.c[c][e], prev.c[c][e], q[e], accel.c[c][e], d);
  }
}

// ---- fused ----------------------------------------------------------------------

/// 1-2: stresses from u per point.
template <typename T, int R>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_stress_fused(const T* __restrict__ ux, const T* __restrict__ uy, const T* __restrict__ uz,
                           ElasticMediumPtrs<T> m, ElasticFields6<T> stress, Grid3D g, bool free_top,
                           ElasticCells cells = {}) {
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    const Strain6<T> s = elastic_strain_at<T, R>(ux, uy, uz, e, pitch, plane);
    const Stress6<T> o = elastic_stress(s, VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]}, free_top && k == 0);
    stress.c[0][e] = o.xx, stress.c[1][e] = o.yy, stress.c[2][e] = o.zz;
    stress.c[3][e] = o.xy, stress.c[4][e] = o.xz, stress.c[5][e] = o.yz;
  }
}

/// 5-7: divergence, force source and update per point.
template <typename T, int R>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_update_fused(ElasticFields6<T> stress, ElasticFields3<T> cur, ElasticFields3<T> prev,
                           const T* __restrict__ q, const T* __restrict__ damp, ElasticFields3<T> out, Grid3D g,
                           ElasticForceStep<T> forces, const T* __restrict__ w, ElasticCells cells = {}) {
  const T* const s[6] = {stress.c[0], stress.c[1], stress.c[2], stress.c[3], stress.c[4], stress.c[5]};
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    T a[3];
    elastic_divergence_at<T, R>(s, e, pitch, plane, a);
    if (forces.n > 0) elastic_add_forces(forces, i, j, k, w, a);
    const T d = (damp[i] * damp[g.nx + j]) * damp[g.nx + g.ny + k];
#pragma unroll
    for (int c = 0; c < 3; ++c) out.c[c][e] = elastic_update(cur.c[c][e], prev.c[c][e], q[e], a[c], d);
  }
}

// ---- shared by both -------------------------------------------------------------

/// The CPML's stress pass over the layer nodes (after the stresses, before the source).
template <typename T, int R>
__global__ void elastic3d_cpml_stress_kernel(const T* __restrict__ ux, const T* __restrict__ uy,
                                             const T* __restrict__ uz, ElasticCpml<T> cp, ElasticMediumPtrs<T> m,
                                             ElasticFields6<T> stress, Grid3D g, bool free_top, long long nodes) {
  T* const s[6] = {stress.c[0], stress.c[1], stress.c[2], stress.c[3], stress.c[4], stress.c[5]};
  for (long long n = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < nodes;
       n += static_cast<long long>(gridDim.x) * blockDim.x) {
    int i, j, k;
    cp.layout.node(g, n, i, j, k);
    const std::size_t e = g.index(i, j, k);
    elastic_cpml_stress<T, R>(ux, uy, uz, cp, VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]},
                              free_top && k == 0, g, i, j, k, s);
  }
}

/// The CPML's update pass over the layer nodes (after the update, before the boundary
/// and ghost steps; the stress ghosts are written).
template <typename T, int R>
__global__ void elastic3d_cpml_update_kernel(ElasticFields6<T> stress, ElasticCpml<T> cp, const T* __restrict__ q,
                                             ElasticFields3<T> out, Grid3D g, long long nodes) {
  const T* const s[6] = {stress.c[0], stress.c[1], stress.c[2], stress.c[3], stress.c[4], stress.c[5]};
  T* const o[3] = {out.c[0], out.c[1], out.c[2]};
  for (long long n = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < nodes;
       n += static_cast<long long>(gridDim.x) * blockDim.x) {
    int i, j, k;
    cp.layout.node(g, n, i, j, k);
    elastic_cpml_update<T, R>(s, cp, q[g.index(i, j, k)], g, i, j, k, o);
  }
}

/// 4: the stress sources (explosion, moment; a list by value) over their boxes, owned as
/// in elastic3d_force_source (elastic_add_stresses).
template <typename T>
__global__ void elastic3d_stress_source(ElasticFields6<T> stress, Grid3D g, ElasticStressStep<T> l, const T* __restrict__ w,
                                        ElasticPart part = {}) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  int i, j, k;
  if (b >= kSourceBoxNodes || !source_box_node(b, l.node[r][0], l.node[r][1], l.node[r][2], g, i, j, k)) return;
  if (!part.takes(i, j, k) || !elastic_source_owner(l, r, i, j, k)) return;
  const std::size_t at = g.index(i, j, k);
  T v[6];
  for (int c = 0; c < 6; ++c) v[c] = stress.c[c][at];
  elastic_add_stresses(l, i, j, k, w, v);
  for (int c = 0; c < 6; ++c) stress.c[c][at] = v[c];
}

/// Ghost faces of `count` fields (blockIdx.y picks the field), with their top mirror signs.
template <typename T>
__global__ void elastic3d_ghosts(ElasticFields6<T> f, ElasticGhostRule r, Grid3D g, T s0, T s1, T s2, T s3, T s4, T s5) {
  const T sign[6] = {s0, s1, s2, s3, s4, s5};
  T* field = f.c[blockIdx.y];
  const T top = sign[blockIdx.y];
  const long long n = ghost_face_cells(g);
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_elastic_ghost(field, g, e, r, top);
}

/// 8: Clayton-Engquist on the outermost nodes of the absorbing faces.
template <typename T>
__global__ void elastic3d_clayton_engquist(ElasticFields3<T> cur, ElasticFields3<T> out, ElasticMediumPtrs<T> m,
                                           const T* __restrict__ damp, Grid3D g, CeFaces faces, long long n) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const CeNode nd = elastic_ce_node(g, faces, e);
    const T d = (damp[nd.i] * damp[g.nx + nd.j]) * damp[g.nx + g.ny + nd.k];
    const std::size_t at = g.index(nd.i, nd.j, nd.k);
#pragma unroll
    for (int c = 0; c < 3; ++c) out.c[c][at] = elastic_ce_value(nd, c, cur.c[c], g, m.c11, m.c33, m.c44, m.c66, m.q, d);
  }
}

/// 9: the three components at the n receivers (padded indices) into one trace row (the
/// u_x block, the u_y block, the u_z block).
template <typename T>
__global__ void elastic3d_record(ElasticFields3<T> u, const long long* __restrict__ at, int n, T* row) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x)
    for (int c = 0; c < 3; ++c) row[c * n + r] = u.c[c][at[r]];
}

/// A derived view quantity (or a component, q < 3, rounded to float) into a float volume.
template <typename T, int R>
__global__ void __launch_bounds__(kElasticBX* kElasticBY)
    elastic3d_view(ElasticFields3<T> u, Grid3D g, int q, double inv_h, float* out) {
  const ElasticCells cells;
  SS_ELASTIC_POINTS(g, cells) {
    const std::size_t e = g.index(i, j, k);
    out[e] = q < 3 ? static_cast<float>(u.c[q][e])
                   : elastic_derived_at<T, R>(static_cast<ElasticDerived>(q - 3), u.c[0], u.c[1], u.c[2], e, pitch,
                                              plane, inv_h);
  }
}

/// Adds `add` (the box's cells, x fastest) to u_z at both time levels over the cell box b.
template <typename T>
__global__ void elastic3d_add_box(T* uz, T* uz_prev, Grid3D g, CellBox b, const T* add) {
  const int wx = b.hi[0] - b.lo[0] + 1, wy = b.hi[1] - b.lo[1] + 1, wz = b.hi[2] - b.lo[2] + 1;
  const long long n = static_cast<long long>(wx) * wy * wz;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = b.lo[0] + static_cast<int>(e % wx), j = b.lo[1] + static_cast<int>(e / wx % wy);
    const int k = b.lo[2] + static_cast<int>(e / (static_cast<long long>(wx) * wy));
    const std::size_t at = g.index(i, j, k);
    uz[at] = uz[at] + add[e];
    uz_prev[at] = uz_prev[at] + add[e];
  }
}

#undef SS_ELASTIC_POINTS

}  // namespace ss
