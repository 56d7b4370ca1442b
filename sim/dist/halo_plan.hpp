#pragma once
// Which cells a rank's box sends and receives in a halo exchange: pure arithmetic on a
// placement (sim/core/box_simulation.hpp), shared by every transport (host MPI, GPU with
// pinned staging, NCCL) and tested without MPI.
#include <array>
#include <vector>

#include "sim/core/box_simulation.hpp"
#include "sim/core/grid3d.hpp"

namespace ss::dist {

/// A block of a box's padded field: its first cell in the box's own indices (negative in
/// the low ghosts) and its extent.
struct HaloRegion {
  std::array<int, 3> lo{};
  std::array<int, 3> n{};
  long long cells() const { return static_cast<long long>(n[0]) * n[1] * n[2]; }
};

/// One face of a box that a neighbour fills: the `width` interior layers it sends, the
/// `width` ghost layers it receives, who is on the other side and the message tags.
struct HaloFace {
  int axis = 0;
  int dir = -1;      ///< -1: the low face, +1: the high face
  int peer = -1;     ///< the neighbour's rank (itself along a periodic axis that is not split)
  int send_tag = 0;  ///< 2 axis + (dir > 0): which way the data travels
  int recv_tag = 0;  ///< the tag the neighbour sends with: the other way
  int phase = 0;     ///< faces of one phase travel together; with edges, one phase per axis
  HaloRegion send, recv;
};

/// The faces of `where`'s box (layout of its extent) that are not the domain's own, for a
/// stencil of radius `width`. Without edges: the interior extent along the other axes,
/// all in phase 0 (a cross stencil reads no edges). With edges: axis by axis (x, y, z),
/// each phase carrying the ghosts of the axes before it, so edges and corners arrive too
/// (every axis of such a model must be periodic, or the model must have written its domain
/// faces of the earlier axes first).
std::vector<HaloFace> plan_halo(const BoxPlacement& where, int width, bool edges);

/// Number of phases in a plan (0 when the box has no neighbour).
int halo_phases(const std::vector<HaloFace>& faces);

/// Copies region r of field f (layout g) to out, x fastest.
void pack_region_host(const float* f, const Grid3D& g, const HaloRegion& r, float* out);
/// Copies `in` (x fastest) into region r of field f (layout g).
void unpack_region_host(float* f, const Grid3D& g, const HaloRegion& r, const float* in);

}  // namespace ss::dist
