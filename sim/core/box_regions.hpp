#pragma once
// Regions of one rank's box (decomposition.hpp) that its GPU boundary step and overlap work
// on, host-only so the tests check them here: the domain faces' ghost layers a boundary step
// writes (BoxGhostFaces, fill_box_ghosts3d_kernel's argument), the shells next to the faces
// between ranks (what the neighbours read, computed before the interior so that the exchange
// can start), and the domain ghosts those shells read.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "sim/core/box_simulation.hpp"
#include "sim/core/error.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"

namespace ss {

/// The marked faces as a kernel argument: per face (axis, end) its first cell, extent and
/// the running count of cells before it. Up to kMax: the six faces of a box, or the domain
/// faces of all of a box's shells in one launch (at most four per shell).
struct BoxGhostFaces {
  static constexpr int kMax = 24;
  int count = 0;
  int axis[kMax] = {};
  int end[kMax] = {};
  int from[kMax][3] = {};
  int n[kMax][3] = {};
  long long first[kMax + 1] = {};  ///< first[f]: cells of the faces before f; first[count]: all

  /// Adds face (axis, end), `width` layers deep, over [lo, lo + n) of the two other axes.
  void add(int face_axis, int face_end, int width, const int ext[3], const int lo[3], const int extent[3]) {
    if (count == kMax) throw Error("BoxGhostFaces: more than " + std::to_string(kMax) + " faces");
    const int f = count++;
    axis[f] = face_axis;
    end[f] = face_end;
    long long cells = 1;
    for (int a = 0; a < 3; ++a) {
      from[f][a] = a != face_axis ? lo[a] : face_end == 0 ? -width : ext[a];
      n[f][a] = a != face_axis ? extent[a] : width;
      cells *= n[f][a];
    }
    first[f + 1] = first[f] + cells;
  }
  /// Adds every face of `o` after this one's (one launch for both).
  void append(const BoxGhostFaces& o) {
    for (int q = 0; q < o.count; ++q) {
      if (count == kMax) throw Error("BoxGhostFaces: more than " + std::to_string(kMax) + " faces");
      const int f = count++;
      axis[f] = o.axis[q];
      end[f] = o.end[q];
      for (int a = 0; a < 3; ++a) {
        from[f][a] = o.from[q][a];
        n[f][a] = o.n[q][a];
      }
      first[f + 1] = first[f] + (o.first[q + 1] - o.first[q]);
    }
  }
};

/// The domain faces of a box of layout `g` marked in `faces`, `width` layers each.
inline BoxGhostFaces box_ghost_faces(const Grid3D& g, const std::array<std::array<bool, 2>, 3>& faces, int width) {
  BoxGhostFaces b;
  const int ext[3] = {g.nx, g.ny, g.nz}, lo[3] = {0, 0, 0};
  for (int axis = 0; axis < 3; ++axis)
    for (int end = 0; end < 2; ++end)
      if (faces[static_cast<std::size_t>(axis)][static_cast<std::size_t>(end)]) b.add(axis, end, width, ext, lo, ext);
  return b;
}

/// Cells [lo, lo + n) of a box's interior.
struct CellRegion {
  int lo[3];
  int n[3];
  int axis = -1;  ///< a shell's: the axis of the exchanged face it lies along
  long long cells() const { return static_cast<long long>(n[0]) * n[1] * n[2]; }
};

/// Up to six regions as one launch's argument (a box's shells), stepped in 2D tiles of
/// `threads` threads: region r's blocks cover tile_x[r] x (threads / tile_x[r]) cells of one
/// plane each, a tile shaped to the region (32 x 8 over a plane, 64 x 4 over a shell 4 rows
/// thin in y, 4 x 64 over one 4 cells thin in x), so that a block's threads read neighbours
/// its other threads read too, as a kernel over the whole box does. region_tile_cell maps
/// (block, thread) to a cell; every cell of every region is one thread's.
struct CellRegionList {
  int count = 0;
  int threads = 256;
  int lo[6][3] = {};
  int n[6][3] = {};
  int tile_x[6] = {};
  long long blocks_first[7] = {};  ///< blocks of the regions before r; [count]: the launch's

  CellRegionList() = default;
  CellRegionList(const std::vector<CellRegion>& regions, int threads_per_block) : threads(threads_per_block) {
    if (threads < 32 || (threads & (threads - 1)) != 0) throw Error("CellRegionList: threads must be a power of two >= 32");
    for (const CellRegion& r : regions) add(r);
  }
  void add(const CellRegion& r) {
    if (count == 6) throw Error("CellRegionList: more than six regions");
    if (r.cells() <= 0) return;
    auto pow2 = [](int v) {
      int p = 1;
      while (p < v) p *= 2;
      return p;
    };
    const int ty0 = std::min(pow2(r.n[1]), threads / 32);
    const int tx = std::min(pow2(r.n[0]), threads / ty0), ty = threads / tx;
    for (int a = 0; a < 3; ++a) {
      lo[count][a] = r.lo[a];
      n[count][a] = r.n[a];
    }
    tile_x[count] = tx;
    blocks_first[count + 1] = blocks_first[count] + static_cast<long long>((r.n[0] + tx - 1) / tx) *
                                                        ((r.n[1] + ty - 1) / ty) * r.n[2];
    ++count;
  }
  long long blocks() const { return blocks_first[count]; }
};

/// The cell of thread `tid` of block `block` of a CellRegionList's launch; false for a
/// thread past its region's edge.
SS_HD inline bool region_tile_cell(const CellRegionList& list, long long block, int tid, int& i, int& j, int& k) {
  int r = 0;
  while (block >= list.blocks_first[r + 1]) ++r;
  long long b = block - list.blocks_first[r];
  const int tx = list.tile_x[r], ty = list.threads / tx;
  const long long bx_count = (list.n[r][0] + tx - 1) / tx, by_count = (list.n[r][1] + ty - 1) / ty;
  const int bx = static_cast<int>(b % bx_count);
  b /= bx_count;
  const int by = static_cast<int>(b % by_count), bz = static_cast<int>(b / by_count);
  const int x = bx * tx + tid % tx, y = by * ty + tid / tx;
  if (x >= list.n[r][0] || y >= list.n[r][1]) return false;
  i = list.lo[r][0] + x;
  j = list.lo[r][1] + y;
  k = list.lo[r][2] + bz;
  return true;
}

/// A box's interior split for its exchange: the shells, the `width` layers next to each
/// face whose ghosts come from the exchange (what the neighbours read), as disjoint regions,
/// axis by axis; and the core, the rest (n 0 along some axis in a box at most 2 width deep
/// there). Shells and core are disjoint and cover the interior: a model whose step updates
/// some field in place (hydro3d's RK3 register) computes each cell once, the shells first so
/// that the exchange can start while the core is computed.
struct ExchangeSplit {
  std::vector<CellRegion> shells;
  CellRegion core;
};
inline ExchangeSplit split_for_exchange(const Grid3D& g, const BoxPlacement& where, int width) {
  ExchangeSplit split{{}, CellRegion{{0, 0, 0}, {g.nx, g.ny, g.nz}}};
  CellRegion& core = split.core;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      if (where.domain_face[static_cast<std::size_t>(a)][static_cast<std::size_t>(side)]) continue;
      const int w = std::min(width, core.n[a]);
      if (w == 0) continue;
      CellRegion shell = core;
      shell.axis = a;
      shell.n[a] = w;
      if (side == 0) core.lo[a] += w;
      else shell.lo[a] = core.lo[a] + core.n[a] - w;
      core.n[a] -= w;
      if (shell.cells() > 0) split.shells.push_back(shell);
    }
  return split;
}
inline std::vector<CellRegion> exchanged_shells(const Grid3D& g, const BoxPlacement& where, int width) {
  return split_for_exchange(g, where, width).shells;
}
inline CellRegion exchange_core(const Grid3D& g, const BoxPlacement& where, int width) {
  return split_for_exchange(g, where, width).core;
}

/// The domain ghosts a shell reads, per shell: the box's domain faces along the other axes,
/// over the shell's extent. Along its own axis a shell lies at an exchanged face and, in a
/// box at least 2 width deep there, reads none of the opposite face's ghosts; an axis an
/// earlier shell cut is still read up to its domain face (a y shell of a 2x2x1 split reads
/// the x ghosts of the box's domain x face). heat3d's stream25d box form stages the domain's
/// faces itself, so these cells are all of the boundary step its box needs.
inline std::vector<BoxGhostFaces> shell_ghost_faces(const Grid3D& g, const std::array<std::array<bool, 2>, 3>& domain,
                                                    int width, const std::vector<CellRegion>& shells) {
  std::vector<BoxGhostFaces> out;
  const int ext[3] = {g.nx, g.ny, g.nz};
  for (const CellRegion& s : shells) {
    BoxGhostFaces b;
    for (int axis = 0; axis < 3; ++axis) {
      if (axis == s.axis) continue;
      for (int end = 0; end < 2; ++end)
        if (domain[static_cast<std::size_t>(axis)][static_cast<std::size_t>(end)]) b.add(axis, end, width, ext, s.lo, s.n);
    }
    if (b.count) out.push_back(b);
  }
  return out;
}

}  // namespace ss
